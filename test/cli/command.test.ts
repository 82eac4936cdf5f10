// The command layer (cli/command.ts): every command is a function from its arguments to an
// exit code, run here in process, as cli/bin.js runs it, and the installed command's list of
// commands comes from one table.
import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CommandExit, execute, exitWith, type Command } from '../../cli/command.ts';
import { SUBCOMMANDS } from '../../cli/commands.ts';
import { certify } from '../../cli/certify.ts';
import { sign } from '../../cli/sign.ts';
import { verify } from '../../cli/verify.ts';
import { REPO_ROOT } from '../../harness/settings.ts';
import { InputError } from '../../reports/errors.ts';
import { tempDir } from '../reports/run-fixture.ts';
import { sampleReport, writeReport } from '../reports/sample-report.ts';

/** What a command wrote to stdout and stderr while it ran, and its exit code. */
async function captured(run: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const [write, writeErr] = [process.stdout.write, process.stderr.write];
  process.stdout.write = ((chunk: string | Uint8Array) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => err.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    return { code: await run(), out: out.join(''), err: err.join('') };
  } finally {
    process.stdout.write = write;
    process.stderr.write = writeErr;
  }
}

test('execute turns what a command throws into its exit code: the code it ended with, 2 with one line for bad input, 2 with the stack for a bug', async () => {
  const ending: Command = { name: 'x', run: () => exitWith(1) };
  expect(await captured(() => execute(ending, []))).toMatchObject({ code: 1, err: '' });
  const input: Command = { name: 'x', run: () => { throw new InputError('no such file a.json'); } };
  expect(await captured(() => execute(input, []))).toEqual({ code: 2, out: '', err: 'x: no such file a.json\n' });
  const bug: Command = { name: 'x', run: () => { throw new TypeError('undefined is not a function'); } };
  const crashed = await captured(() => execute(bug, []));
  expect(crashed.code).toBe(2);
  expect(crashed.err).toMatch(/^x: internal error\nTypeError: undefined is not a function\n\s+at /);
  expect(new CommandExit(2)).toBeInstanceOf(Error);
});

test('certify runs in process: --help answers 0, a bad flag 2 with the usage, and neither exits the process', async () => {
  const help = await captured(() => certify(['--help']));
  expect(help.code).toBe(0);
  expect(help.out).toContain('--config');
  const bad = await captured(() => certify(['--no-such-flag']));
  expect(bad.code).toBe(2);
  expect(bad.err).toContain('--no-such-flag');
  const refused = await captured(() => execute({ name: 'certify', run: certify }, ['--workers', 'many']));
  expect(refused.code).toBe(2);
  expect(refused.err).toContain('--workers');
  expect(refused.out).toContain('HARNESS ERROR  nothing was run');
});

test('sign and verify run in process: a key made, a report signed, then verified (0), and a changed report not verified (1)', async () => {
  const dir = tempDir();
  const base = join(dir, 'acme');
  expect((await captured(async () => sign(['--new-key', base]))).code).toBe(0);
  expect(existsSync(`${base}.key.pem`)).toBe(true);
  const report = writeReport(dir, sampleReport());
  const signed = await captured(async () => sign(['--key', `${base}.key.pem`, report]));
  expect(signed.code, signed.err).toBe(0);
  const verified = await captured(async () => verify([report, '--pubkey', `${base}.pub.pem`]));
  expect(verified.code, verified.err).toBe(0);
  expect(verified.out).toMatch(/^signature: valid/);
  writeReport(dir, sampleReport('another label'), 'report.json');
  const changed = await captured(async () => verify([report, '--pubkey', `${base}.pub.pem`]));
  expect(changed.code).toBe(1);
  expect(changed.out).toMatch(/^NOT VERIFIED: .* was changed after it was signed/);
  const missing = await captured(() => execute({ name: 'verify', run: verify }, [join(dir, 'none.json')]));
  expect(missing).toMatchObject({ code: 2, err: `verify: cannot read report ${join(dir, 'none.json')}\n` });
});

test('the installed command lists every command of the table, and runs one in its own process', () => {
  const help = execFileSync(process.execPath, [join(REPO_ROOT, 'cli/bin.js'), '--help'], { encoding: 'utf8' });
  for (const [name, { summary }] of Object.entries(SUBCOMMANDS)) expect(help).toContain(`  ${name.padEnd(9)} ${summary}`);
  const version = execFileSync(process.execPath, [join(REPO_ROOT, 'cli/bin.js'), 'certify', '--version'], { encoding: 'utf8' });
  expect(version).toMatch(/^messaging-conformance \d+\.\d+\.\d+/);
});
