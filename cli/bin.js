#!/usr/bin/env node
// The installed command: `messaging-conformance <subcommand> [options]` (package.json "bin").
//
// Plain JavaScript, because Node 20 cannot start a .ts file: it registers tsx (a dependency, so
// no build step) in this process and runs the subcommand's function (cli/commands.ts) here, in
// the directory it was started in, so config paths are the user's and reports land there, never
// in the package.
import { readFileSync } from 'node:fs';
import { register } from 'tsx/esm/api';

const NAME = 'messaging-conformance';

// Where the user stands (harness/settings.ts userDirectory), and the installed command, whose
// reports default to the user's directory; both read when a command runs.
process.env.INIT_CWD = process.cwd();
process.env.CONFORMANCE_INVOKED_AS = NAME;
register();
const { SUBCOMMANDS } = await import('./commands.ts');
const { execute } = await import('./command.ts');

const usage = `Usage: ${NAME} <command> [options]

Commands:
${Object.entries(SUBCOMMANDS).map(([name, { summary }]) => `  ${name.padEnd(9)} ${summary}`).join('\n')}

${NAME} <command> --help shows the command's options. Paths are relative to the directory you
run it in; certify writes its report to ./conformance-report/ unless --out says otherwise.
Exit codes: 0 success (conformant), 1 not conformant or invalid, 2 harness or input error.`;

const [subcommand, ...args] = process.argv.slice(2);
if (subcommand === undefined || subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
  process.stdout.write(`${usage}\n`);
  process.exit(subcommand === undefined ? 2 : 0);
}
if (subcommand === '--version') {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.name} ${pkg.version}\n`);
  process.exit(0);
}
if (!Object.hasOwn(SUBCOMMANDS, subcommand)) {
  process.stderr.write(`${NAME}: unknown command ${JSON.stringify(subcommand)}\n\n${usage}\n`);
  process.exit(2);
}
const command = await SUBCOMMANDS[subcommand].load();
process.exit(await execute(command, args));
