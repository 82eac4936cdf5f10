// A filtered run on a correct server is partial, never a certificate: the summary, the report,
// sign and verify all say so.
import { expect, test } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newKeyPair } from '../../reports/signature.ts';
import { runNode, tempDir } from '../reports/run-fixture.ts';
import { PLAYWRIGHT_CLI } from '../../cli/playwright-cli.ts';
import { SETTINGS_ENV } from '../../harness/settings.ts';
import { runCli } from './helpers.ts';

test('certify --grep @SEND-004: PARTIAL, exit 0, recorded in the report; sign refuses it, verify says partial', async () => {
  test.setTimeout(240_000);
  const dir = tempDir();
  const out = join(dir, 'out');
  const run = await runCli('cli/certify.ts', ['--grep', '@SEND-004', '--out', out], { out });
  expect(run.code, run.stdout.slice(-2000)).toBe(0);
  // every document requirement the tests matching @SEND-004 check passed, of all the checkable ones
  expect(run.summary).toMatch(/^PARTIAL \(grep @SEND-004\)  document (\d+)\/\1 of \d+ checkable  standard (\d+)\/\2 of \d+ checkable  profile (\d+)\/\3 of \d+ checkable  not testable 0  not run \d+  exercised: /);
  expect(run.report?.verdict).toBe('partial');
  expect(run.report?.run.filters).toEqual(['grep @SEND-004']);
  expect(run.report?.run.partial).toEqual(['grep @SEND-004']);

  const key = join(dir, 'k.pem');
  writeFileSync(key, newKeyPair().privateKeyPem);
  const report = join(out, 'report.json');
  const refused = await runCli('cli/sign.ts', ['--key', key, report]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('is a partial run (grep @SEND-004), not a certificate');
  const attested = await runCli('cli/sign.ts', ['--key', key, '--partial', report]);
  expect(attested.code, attested.stderr).toBe(0);
  const verified = await runCli('cli/verify.ts', [report]);
  expect(verified.code).toBe(0);
  expect(verified.stdout).toContain('verdict:   PARTIAL (grep @SEND-004)');
  expect(verified.stdout).not.toMatch(/verdict: {3}CONFORMANT/);
});

test('a bare Playwright run with --workers 2 gets the run lock its workers need, and a test that locks a number finishes', async () => {
  // Its settings say one worker (no certify chose more); Playwright's own flag runs two. The
  // global setup starts the lock for the workers Playwright runs, not for the settings' count.
  test.setTimeout(240_000);
  const run = await runNode([PLAYWRIGHT_CLI, 'test', '-c', 'playwright.config.ts', '--workers', '2', '--grep', '@UPD-001', '--reporter', 'line'], { [SETTINGS_ENV]: undefined });
  expect(run.code, `${run.stdout.slice(-2000)}\n${run.stderr.slice(-2000)}`).toBe(0);
  expect(run.stdout).toMatch(/\d+ passed/);
});
