#!/usr/bin/env node
// The installed command: `messaging-conformance <subcommand> [options]` (package.json "bin").
//
// Plain JavaScript, because Node 20 cannot start a .ts file: it runs the subcommand's
// TypeScript entry point under tsx (a dependency, so no build step) in the directory it was
// started in, so config paths are the user's and reports land there, never in the package.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const NAME = 'messaging-conformance';
const SUBCOMMANDS = {
  certify: ['cli/certify.ts', 'certify a server (with no --config and no --base-url: ./conformance.yaml if there is one, else the bundled reference)'],
  init: ['cli/init.ts', 'probe a server (--base-url) and write a commented config for it'],
  verify: ['cli/verify.ts', 'check a signed report and say what it certifies'],
  compare: ['cli/compare.ts', 'compare two reports'],
  sign: ['reports/sign.ts', 'sign a report, or make a signing key (--new-key NAME)'],
  serve: ['reference/main.ts', 'run the bundled reference server'],
};

const usage = `Usage: ${NAME} <command> [options]

Commands:
${Object.entries(SUBCOMMANDS).map(([name, [, what]]) => `  ${name.padEnd(9)} ${what}`).join('\n')}

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
const entry = Object.hasOwn(SUBCOMMANDS, subcommand) ? SUBCOMMANDS[subcommand][0] : undefined;
if (entry === undefined) {
  process.stderr.write(`${NAME}: unknown command ${JSON.stringify(subcommand)}\n\n${usage}\n`);
  process.exit(2);
}

// tsx is resolved from this package, not from the user's directory, which need not have it.
const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL(`../${entry}`, import.meta.url)), ...args], {
  stdio: 'inherit',
  // INIT_CWD: where the user stands (harness/settings.ts userDirectory); INVOKED_AS: the
  // installed command, whose reports default to the user's directory.
  env: { ...process.env, INIT_CWD: process.cwd(), CONFORMANCE_INVOKED_AS: NAME },
});
// A signal for this command is for the subcommand: `kill` of a serve stops the server too.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[signal] ?? 0) : 2)));
