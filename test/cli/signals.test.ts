// A run ended from outside leaves the report of what ran, as Ctrl-C does: a SIGTERM (a CI job
// cancelled, `kill PID`) reaches certify alone, which passes it on to Playwright as the SIGINT a
// terminal would have sent. The report is a harness error, never a certificate.
import { expect, test } from '@playwright/test';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../harness/settings.ts';
import type { Report } from '../../reports/types.ts';
import { childEnv, tempDir } from '../reports/run-fixture.ts';
import { summaryOf } from './helpers.ts';

test('SIGTERM to a running certify writes the report of what ran, a harness error, and its output ends with a line', async () => {
  test.setTimeout(240_000);
  const out = join(tempDir('signals-'), 'out');
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'cli/certify.ts'), '--out', out], { cwd: REPO_ROOT, env: childEnv({ INIT_CWD: REPO_ROOT }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let signalled = false;
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    // once tests are running: the run is interrupted in its middle, not before it starts
    if (!signalled && /^\s+✓/m.test(stdout)) {
      signalled = true;
      child.kill('SIGTERM');
    }
  });
  const code = await new Promise<number | null>((done) => child.once('exit', (status) => done(status)));
  expect(signalled, stdout.slice(-1000) + stderr).toBe(true);
  expect(code, stdout.slice(-1500) + stderr).toBe(2);
  expect(existsSync(join(out, 'report.json')), `no report after SIGTERM: ${stderr}`).toBe(true);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
  expect(report.verdict).toBe('harness error');
  expect(report.run.errors).toContain('the run was interrupted before every test ended');
  expect(report.run.stop?.by, 'the report says why the run stopped').toBe('interrupted');
  expect(summaryOf(stdout)).toMatch(/^HARNESS ERROR \(stopped: interrupted/);
  expect(stdout.endsWith('\n'), 'the output ends with a newline').toBe(true);
  expect(stderr === '' || stderr.endsWith('\n'), `stderr ends with a newline: ${JSON.stringify(stderr.slice(-200))}`).toBe(true);
});
