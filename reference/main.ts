import { serveAsCommand } from './serve.ts';

// The operator entry: `npm run serve -- [options]` (the options: reference/cli/args.ts, USAGE).
serveAsCommand(process.argv.slice(2));
