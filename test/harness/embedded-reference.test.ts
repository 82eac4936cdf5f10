// The bundled reference as a run's target: one command line whoever starts it, and the global
// setup's wait for one that certify started beside Playwright.
import { expect, test } from '@playwright/test';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { awaitReference, compileReference, REFERENCE_FROM_SOURCE, referenceArgs, referenceCommand } from '../../harness/embedded-reference.ts';
import { REPO_ROOT, referenceFixturesFile, type TargetSource } from '../../harness/settings.ts';
import { closedPort } from '../cli/helpers.ts';

type ReferenceSource = Extract<TargetSource, { kind: 'reference' }>;
const source = (dir: string, port = 4321, entry = 'reference/main.ts', entryArgs: string[] = []): ReferenceSource => ({ kind: 'reference', port, dir, entry, entryArgs, startedBy: 'certify' });

test('the command line names the port, a fresh database in the run folder, the fixtures file, and another entry with its own options only when asked', () => {
  const args = referenceArgs(source('/tmp/ref dir'));
  expect(args.slice(0, 2), 'certify starts the reference compiled').toEqual(['--enable-source-maps', 'reference/.compiled/main.mjs']);
  expect(args[args.indexOf('--port') + 1]).toBe('4321');
  expect(args[args.indexOf('--db') + 1]).toBe('/tmp/ref dir/reference.db');
  expect(args[args.indexOf('--fixtures-out') + 1]).toBe('/tmp/ref dir/fixtures.json');
  expect(args).toContain('--fresh');
  expect(args).not.toContain('--faults');
  const other = referenceArgs(source('/tmp/ref', 4321, 'faults/main.ts', ['--faults', 'send.status-not-queued,webhooks.unsigned']));
  expect(other.slice(0, 4), 'another entry is compiled into its own folder, its options first').toEqual(['--enable-source-maps', 'faults/.compiled/main.mjs', '--faults', 'send.status-not-queued,webhooks.unsigned']);
  // the webServer's shell command keeps a path with a space in one argument
  expect(referenceCommand(source('/tmp/ref dir'))).toContain("--db '/tmp/ref dir/reference.db'");
  // and from the sources: every worker loads the config that holds it
  expect(referenceCommand(source('/tmp/ref dir'))).toMatch(/^node --import tsx reference\/main\.ts /);
});

test('where the compiled server cannot be written, the reference runs from its sources', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'embedded-reference-')), 'a-file');
  writeFileSync(file, '');
  expect(compileReference(undefined, join(file, 'compiled')), 'a folder under a file cannot be made').toEqual(REFERENCE_FROM_SOURCE);
});

test('the wait ends once the fixtures file is whole, and says what is missing when it never comes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'embedded-reference-'));
  const ref = source(dir);
  await expect(awaitReference(ref, 100)).rejects.toThrow(/did not start within 0.1 s: no .*fixtures\.json/);
  writeFileSync(referenceFixturesFile(ref), '{"baseUrl": "http://127.0.0.1:43');
  const waiting = awaitReference(ref, 2_000);
  setTimeout(() => writeFileSync(referenceFixturesFile(ref), '{"baseUrl": "http://127.0.0.1:4321"}'), 100);
  await expect(waiting, 'a half-written file is waited past').resolves.toBeUndefined();
});

test('the command line starts the reference, which writes the fixtures file the wait reads', async () => {
  test.setTimeout(60_000);
  const ref = source(mkdtempSync(join(tmpdir(), 'embedded-reference-')), await closedPort());
  const child = spawn(process.execPath, referenceArgs(ref), { cwd: REPO_ROOT, stdio: 'ignore' });
  try {
    await awaitReference(ref, 30_000);
    const res = await fetch(`http://127.0.0.1:${ref.port}/api/core/whoami`);
    expect(res.status, 'it listens (and wants a token)').toBe(401);
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
});
