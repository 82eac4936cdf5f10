// A run that is clearly broken stops early instead of running for minutes, partial and never a
// certificate: not conformant when the tests in a row failed on a requirement, a harness error
// when the harness cannot place the cause (INTERPRETING.md, Stopped runs); --max-failures passes
// through and makes the run partial.
import { expect, test } from '@playwright/test';
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { tempDir } from '../reports/run-fixture.ts';
import { REPO_ROOT } from '../../harness/settings.ts';
import { fakeServer, runCli, summaryOf, type CliRun } from './helpers.ts';

/** Answers the preflight's calls like the interface, and every other call with a web page. */
const brokenAfterPreflight = () =>
  fakeServer((req, res) => {
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'POST' && req.url === '/api/auth/token') return json(200, { access_token: 'tok-123', token_type: 'bearer', expires_in: 3600 });
    if (req.method === 'GET' && req.url === '/api/core/numbers' && req.headers.authorization === 'Bearer tok-123') {
      return json(200, { numbers: [{ numberId: 'num_1', campaignregId: 'C1', smsEnabled: true, mmsEnabled: false }] });
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
  });

/** certify against that server, with these extra flags. */
async function certifyBroken(...flags: string[]): Promise<CliRun> {
  const server = await brokenAfterPreflight();
  const dir = tempDir();
  try {
    const config = join(dir, 'broken.yaml');
    writeFileSync(config, stringify({ label: 'broken', baseUrl: server.url, clients: { primary: { clientId: 'c', clientSecret: 's' } } }));
    const out = join(dir, 'out');
    return await runCli('cli/certify.ts', ['--config', config, '--out', out, ...flags], { out });
  } finally {
    await server.close();
  }
}

test('every test failing the same way on a requirement stops the run: not conformant on it, partial, saying why, in seconds', async () => {
  test.setTimeout(240_000);
  const run = await certifyBroken();
  expect(run.code, run.stdout.slice(-2000)).toBe(1);
  expect(run.summary).toMatch(/^NOT CONFORMANT \(partial: 10 tests in a row failed the same way \(failed on ERR-004\); every later test would too/);
  expect(run.report?.verdict).toBe('not conformant');
  expect(run.report?.requirements.find((r) => r.id === 'ERR-004')?.verdict).toBe('fail');
  expect(run.report?.run.errors).toEqual([]);
  expect(run.report?.run.stop?.by).toBe('harness');
  const notStarted = run.report!.requirements.flatMap((r) => r.tests).filter((t) => t.outcome === 'did-not-run');
  expect(notStarted.length).toBeGreaterThan(300);
});

test('--max-failures N stops after N failed tests: the run is partial, and not conformant for what failed', async () => {
  test.setTimeout(240_000);
  const run = await certifyBroken('--max-failures', '3');
  expect(run.code, run.stdout.slice(-2000)).toBe(1);
  expect(run.summary).toMatch(/^NOT CONFORMANT \(partial: stopped after 3 failed tests \(--max-failures 3\)\)  /);
  expect(run.report?.verdict).toBe('not conformant');
  expect(run.report?.run.stop).toEqual({ by: 'max-failures', reason: 'stopped after 3 failed tests (--max-failures 3)' });
  expect(run.report?.requirements.find((r) => r.id === 'ERR-004')?.verdict).toBe('fail');
});

test('the bundled reference dying in the middle of a run is a harness error, never a verdict on it', async () => {
  test.setTimeout(120_000);
  const out = join(tempDir(), 'out');
  const certify = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'cli/certify.ts'), '--out', out, '--grep', '@WH-'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  certify.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let done = false;
  const killed = new Promise<void>((resolve, reject) => {
    certify.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!/^preflight: /m.test(stdout) || done) return;
      done = true;
      // certify's own child running the reference (compiled: reference/.compiled/main.mjs), found as a user would with ps
      const children = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(certify.pid)], { encoding: 'utf8' });
      const line = children.split('\n').find((l) => /reference\/(\.compiled\/)?main\./.test(l));
      if (!line) return reject(new Error(`certify has no reference child:\n${children}`));
      process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGKILL');
      resolve();
    });
  });
  const code = await new Promise<number | null>((resolve) => certify.once('exit', resolve));
  await killed;
  expect(code, `${stdout}\n${stderr}`).toBe(2);
  expect(stderr).toContain('certify: the bundled reference exited (SIGKILL) before the run ended');
  expect(summaryOf(stdout)).toMatch(/^HARNESS ERROR /);
  expect(stdout, 'no verdict on the server').not.toMatch(/^(NOT )?CONFORMANT/m);
});
