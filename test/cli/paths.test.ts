// Paths are relative to where the person running the command stands, every file error shows
// the path it tried, and keys are never written into the project tree by default.
import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../harness/settings.ts';
import { newKeyPair } from '../../reports/signature.ts';
import { tempDir } from '../reports/run-fixture.ts';
import { sampleReport, writeReport } from '../reports/sample-report.ts';
import { EXAMPLES, placeholderEnv, runCli } from './helpers.ts';

test('certify --config takes the path from where the user stands (cd examples && … --config vendor.yaml)', async () => {
  const run = await runCli('cli/certify.ts', ['--config', 'vendor.yaml', '--dry-run'], { userDir: EXAMPLES, env: placeholderEnv(join(EXAMPLES, 'vendor.yaml')) });
  expect(run.stdout + run.stderr).toContain('Example vendor staging');
  expect(run.stderr).not.toContain('ENOENT');
});

test('a file that is not there is named by the path that was tried', async () => {
  const me = tempDir();
  const run = await runCli('cli/certify.ts', ['--config', 'vendor.yaml', '--baseline', 'base.yaml'], { userDir: me });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`certify: --config ${join(me, 'vendor.yaml')}: no such file`);
  expect(run.stderr).toContain(`cannot read baseline file ${join(me, 'base.yaml')}`);
  expect(run.summary).toMatch(/^HARNESS ERROR/);
});

test('sign --new-key NAME writes outside the project tree; *.pem is ignored by git', async () => {
  const home = tempDir();
  const run = await runCli('cli/sign.ts', ['--new-key', 'acme'], { userDir: REPO_ROOT, env: { HOME: home } });
  expect(run.code, run.stderr).toBe(0);
  expect(existsSync(join(home, '.messaging-conformance', 'keys', 'acme.key.pem'))).toBe(true);
  expect(existsSync(join(REPO_ROOT, 'acme.key.pem'))).toBe(false);
  expect(run.stdout).toContain(join(home, '.messaging-conformance', 'keys', 'acme.key.pem'));
  // a key someone does put in the tree is never committed
  expect(execFileSync('git', ['check-ignore', 'vendor.key.pem', 'keys/acme.pub.pem'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim().split('\n')).toEqual(['vendor.key.pem', 'keys/acme.pub.pem']);
  const again = await runCli('cli/sign.ts', ['--new-key', 'acme'], { env: { HOME: home } });
  expect(again.code).toBe(2);
  expect(again.stderr).toContain('exists; not overwriting a key');
});

test('a key name with a folder goes where it says, from the user\'s directory', async () => {
  const me = tempDir();
  mkdirSync(join(me, 'keys'));
  const run = await runCli('cli/sign.ts', ['--new-key', 'keys/acme'], { userDir: me });
  expect(run.code, run.stderr).toBe(0);
  expect(existsSync(join(me, 'keys', 'acme.pub.pem'))).toBe(true);
});

test('sign and verify read report and keys from the user\'s directory', async () => {
  const me = tempDir();
  const keys = newKeyPair();
  writeFileSync(join(me, 'k.pem'), keys.privateKeyPem);
  writeFileSync(join(me, 'k.pub.pem'), keys.publicKeyPem);
  writeReport(me, sampleReport('acme sms', []));
  const sign = await runCli('cli/sign.ts', ['--key', 'k.pem', 'report.json'], { userDir: me });
  expect(sign.code, sign.stderr).toBe(0);
  const verify = await runCli('cli/verify.ts', ['report.json', '--pubkey', 'k.pub.pem'], { userDir: me });
  expect(verify.code, verify.stderr).toBe(0);
  const missing = await runCli('cli/verify.ts', ['nope.json'], { userDir: me });
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain(`cannot read report ${join(me, 'nope.json')}`);
});
