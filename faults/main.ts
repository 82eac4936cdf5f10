import { ConfigError } from '../reference/errors.ts';
import { USAGE } from '../reference/cli/args.ts';
import { serveAsCommand } from '../reference/serve.ts';
import { faultBanner, parseFaults } from './index.ts';
import { faultExtension } from './inject.ts';

// The reference DELIBERATELY BROKEN, for the kill matrix (npm run sensitivity) only:
// `node --import tsx faults/main.ts --faults NAME[,NAME] [the reference's options]`. The faults
// reach the server as its one extension (reference/extension.ts); every other flag is the
// reference's own. Not part of the package: the shipped server cannot be broken by a flag.

const USAGE_HERE = `Usage: node --import tsx faults/main.ts --faults NAME[,NAME] [options]

Starts the reference server with deliberate faults of faults/, for the kill matrix only.
Without --faults it refuses to start (use npm run serve). Every other option is the reference's:

${USAGE.split('\n').slice(4).join('\n')}`;

/** Takes `--faults X` or `--faults=X` out of argv; the rest goes to the reference. */
function takeFaults(argv: readonly string[]): { value: string | undefined; rest: string[] } {
  const rest: string[] = [];
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--faults') value = argv[++i] ?? '';
    else if (arg.startsWith('--faults=')) value = arg.slice('--faults='.length);
    else rest.push(arg);
  }
  return { value, rest };
}

const argv = process.argv.slice(2);
if (argv.includes('--help')) {
  process.stdout.write(USAGE_HERE);
  process.exit(0);
}
const { value, rest } = takeFaults(argv);
try {
  if (value === undefined) throw new ConfigError('--faults is required here: this entry exists to start a broken server (npm run serve starts the reference as shipped)');
  const faults = parseFaults(value);
  // A deliberately broken server says so before anything else, on stderr where the logs go.
  process.stderr.write(faultBanner(faults));
  serveAsCommand(rest, [faultExtension(faults)]);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`error: ${error.message}\n`);
  process.exit(2);
}
