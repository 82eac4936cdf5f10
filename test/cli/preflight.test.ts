// The run's own problems stop it before any suite, within seconds, as a harness error naming
// what failed and what to check — never as requirement failures of the server. Each case runs
// `npm run certify -- --config …` as a person would.
import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { tempDir } from '../reports/run-fixture.ts';
import { closedPort, fakeServer, referenceConfig, runCli, referenceForFile, startReference, type CliRun } from './helpers.ts';

const shared = referenceForFile('preflight-');

async function certify(config: string, ...args: string[]): Promise<CliRun> {
  const out = join(shared.dir, `out-${Math.random().toString(36).slice(2)}`);
  return runCli('cli/certify.ts', ['--config', config, '--out', out, ...args], { out });
}

/** A run the preflight stopped: exit 2, a HARNESS ERROR line that says so, a report that is a harness error, no test run. */
function expectStopped(run: CliRun, what: RegExp): void {
  expect(run.code, run.stdout + run.stderr).toBe(2);
  expect(run.summary).toMatch(new RegExp(`^HARNESS ERROR \\(stopped: PreflightError: ${what.source}`));
  expect(run.report?.verdict).toBe('harness error');
  expect(run.report?.run.stop?.by).toBe('setup');
  expect(run.report?.requirements.every((r) => r.verdict === 'not run')).toBe(true);
  // seconds, not minutes (generous: other work may load the machine)
  expect(run.ms).toBeLessThan(45_000);
}

test('a wrong client secret stops the run: the client, the URL, the answer, what to check', async () => {
  const config = referenceConfig(shared.dir, 'wrong-secret', shared.reference.fixtures, (c) => (c.clients.primary.clientSecret = 'not-the-secret'));
  const run = await certify(config);
  expectStopped(run, /the primary client \(demo-primary\) could not obtain a token/);
  expect(run.stdout).toContain(`POST ${shared.reference.baseUrl}/api/auth/token: JSON body → 401`);
  expect(run.stdout).toContain(`check:  clients.primary.clientId and clients.primary.clientSecret in ${config}`);
  expect(run.stdout + run.stderr).not.toContain('not-the-secret');
  // printed once: the answer and what to check appear once, the summary line names the error
  expect((run.stdout + run.stderr).split('JSON body → 401').length - 1, run.stdout).toBe(1);
  expect((run.stdout + run.stderr).split('could not obtain a token').length - 1, run.stdout).toBe(2);
});

test('a wrong secret of the second client stops the run the same way', async () => {
  const config = referenceConfig(shared.dir, 'wrong-secondary', shared.reference.fixtures, (c) => (c.clients.secondary.clientSecret = 'nope'));
  const run = await certify(config);
  expectStopped(run, /the secondary client \(demo-secondary\) could not obtain a token/);
  expect(run.stdout).toContain('clients.secondary.clientId and clients.secondary.clientSecret');
});

test('an unreachable base URL (connection refused) stops the run, not SEND-004 or ERR-004', async () => {
  const port = await closedPort();
  const run = await certify(referenceConfig(shared.dir, 'refused', shared.reference.fixtures, (c) => (c.baseUrl = `http://127.0.0.1:${port}`)));
  expectStopped(run, /nothing answers at http:\/\/127\.0\.0\.1:\d+/);
  expect(run.stdout).toContain('ECONNREFUSED');
});

test('a base URL that answers HTML to everything stops the run with the evidence', async () => {
  const html = await fakeServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome to nginx!</body></html>'));
  try {
    const run = await certify(referenceConfig(shared.dir, 'html', shared.reference.fixtures, (c) => (c.baseUrl = html.url)));
    expectStopped(run, /the token endpoint does not answer JSON \(primary client, JSON body\): this is not the interface at this URL/);
    expect(run.stdout).toContain(`POST ${html.url}/api/auth/token → 200 text/html <html><body>Welcome to nginx!</body></html>`);
  } finally {
    await html.close();
  }
});

test('a token endpoint that never answers stops the run after the request timeout', async () => {
  const silent = await fakeServer(null);
  try {
    const run = await certify(referenceConfig(shared.dir, 'silent', shared.reference.fixtures, (c) => ((c.baseUrl = silent.url), (c.timeouts = { requestMs: 1000 }))));
    expectStopped(run, /POST http:\/\/127\.0\.0\.1:\d+\/api\/auth\/token got no answer within 1000 ms/);
    expect(run.stdout).toContain('timeouts.requestMs');
  } finally {
    await silent.close();
  }
});

test('a target that fails (5xx) on the first calls stops the run with the evidence', async () => {
  const failing = await fakeServer((_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"UNAVAILABLE"}}'));
  try {
    const run = await certify(referenceConfig(shared.dir, 'failing', shared.reference.fixtures, (c) => (c.baseUrl = failing.url)));
    expectStopped(run, /the token endpoint fails \(primary client, JSON body\)/);
    expect(run.stdout).toContain('→ 503 application/json {"error":{"code":"UNAVAILABLE"}}');
  } finally {
    await failing.close();
  }
});

test("the expireToken trigger's own client with a wrong secret stops the run, not AUTH-003", async () => {
  const config = referenceConfig(shared.dir, 'wrong-brief', shared.reference.fixtures, (c) => {
    c.triggers = { expireToken: { kind: 'wait', client: { clientId: 'demo-brief', clientSecret: 'not-the-brief-secret' }, maxWaitSeconds: 10 } };
  });
  const run = await certify(config, '--grep', '@AUTH-003');
  expectStopped(run, /the expireToken trigger client \(demo-brief\) could not obtain a token/);
  expect(run.stdout).toContain(`check:  triggers.expireToken.client.clientId and triggers.expireToken.client.clientSecret in ${config}`);
});

test('numbers.sms naming a number the primary client does not list stops the run, not the send requirements', async () => {
  const foreign = shared.reference.fixtures.clients.find((c) => c.role === 'secondary')!.numbers[0]!.numberId;
  const run = await certify(referenceConfig(shared.dir, 'wrong-sms', shared.reference.fixtures, (c) => (c.numbers = { sms: foreign })));
  expectStopped(run, new RegExp(`numbers\\.sms \\(${foreign}\\) is not one of the primary client's numbers`));
});

test('a control plane that refuses the configured controlToken makes the tests that need it harness errors, never failures of the server', async () => {
  test.setTimeout(120_000);
  const dir = tempDir('control-token');
  const reference = await startReference(dir, { args: ['--control', '--control-token', 'the-right-token'] });
  try {
    const config = referenceConfig(dir, 'wrong-control-token', reference.fixtures, (c) => {
      c.hooks = { controlUrl: `${reference.baseUrl}/_control`, controlToken: 'a-wrong-token', offers: ['upstreamFailure', 'expireToken'] };
    });
    const out = join(dir, 'out');
    const run = await runCli('cli/certify.ts', ['--config', config, '--out', out, '--grep', '@AUTH-003|@SEARCH-002|@SEARCH-001'], { out });
    expect(run.code, run.stdout.slice(-3000)).toBe(2);
    expect(run.summary).toMatch(/^HARNESS ERROR /);
    const verdicts = Object.fromEntries(run.report!.requirements.filter((r) => ['AUTH-003', 'SEARCH-001', 'SEARCH-002'].includes(r.id)).map((r) => [r.id, r.verdict]));
    // The tests that reach their requirement through the plane checked nothing; the rest judged the server.
    expect(verdicts).toEqual({ 'AUTH-003': 'not run', 'SEARCH-001': 'pass', 'SEARCH-002': 'not run' });
    expect(run.report!.run.errors.join('\n')).toMatch(/ControlPlaneError: the test-control plane failed: POST http:\/\/127\.0\.0\.1:\d+\/_control\/(tokens\/expire|upstream) was not done/);
    expect(run.stdout).toContain('check:  hooks.controlUrl and hooks.controlToken in the target config');
    expect(run.stdout + run.stderr).not.toContain('a-wrong-token');
  } finally {
    await reference.stop();
  }
});

test("a server that reports outcomes to the client's webhook but never to a number's override is judged on WH-001, not stopped as an unreachable receiver", async () => {
  // The preflight's round trip by the override gets nothing; by the client's delivery webhook,
  // set through the control plane, it gets the callback: the receiver is reachable, so the
  // missing callback is the server's failure for the suites to judge, never the config's.
  test.setTimeout(120_000);
  const dir = tempDir('override-never-sent');
  const reference = await startReference(dir, { args: ['--control', '--control-token', 'plane-token', '--faults', 'webhooks.override-never-sent'], entry: 'faults/main.ts' });
  try {
    const config = referenceConfig(dir, 'override-never-sent', reference.fixtures, (c) => {
      c.hooks = { controlUrl: `${reference.baseUrl}/_control`, controlToken: 'plane-token', offers: ['clientWebhooks'] };
      c.webhooks = { listenHost: '127.0.0.1', listenPort: 0, timeoutMs: 2000 };
    });
    const out = join(dir, 'out');
    const run = await runCli('cli/certify.ts', ['--config', config, '--out', out, '--grep', 'POSTed to the number.s webhookDeliveryOverride @WH-001'], { out });
    expect(run.code, run.stdout.slice(-3000)).toBe(1);
    expect(run.summary).toMatch(/^(NOT CONFORMANT|PARTIAL)/);
    expect(run.report!.requirements.find((r) => r.id === 'WH-001')?.verdict).toBe('fail');
    expect(run.stdout + run.stderr).toMatch(/no callback came by http:\/\/127\.0\.0\.1:\d+\/hooks\/\S+, as the webhookDeliveryOverride of \S+, but one came by the client's webhook/);
  } finally {
    await reference.stop();
  }
});

test("a webhook receiver port another program holds stops the run as a harness error, not as the webhook requirements' failures", async () => {
  const holder = await fakeServer(() => undefined);
  try {
    const port = Number(new URL(holder.url).port);
    const config = referenceConfig(shared.dir, 'receiver-port-taken', shared.reference.fixtures, (c) => (c.webhooks = { listenHost: '127.0.0.1', listenPort: port }));
    const run = await certify(config, '--grep', '@WH-001|@SEND-008');
    expect(run.code, run.stdout.slice(-2000)).toBe(2);
    expect(run.summary).toMatch(new RegExp(`^HARNESS ERROR \\(stopped: ReceiverListenError: the harness's webhook receiver cannot listen on 127\\.0\\.0\\.1:${port} \\(EADDRINUSE\\)\\)`));
    expect(run.report?.requirements.find((r) => r.id === 'WH-001')?.verdict).not.toBe('fail');
  } finally {
    await holder.close();
  }
});

test("a target that refuses the receiver's public URL as a webhook target stops the run: the config's address, not the webhook requirements", async () => {
  // The reference refuses private addresses it was not told to allow (profile webhook.targets), as a careful server does.
  const config = referenceConfig(shared.dir, 'receiver-refused', shared.reference.fixtures, (c) => (c.webhooks = { listenHost: '127.0.0.1', listenPort: 0, publicUrl: 'http://10.255.255.1:{port}' }));
  const run = await certify(config, '--grep', '@WH-001');
  expect(run.code, run.stdout.slice(-2000)).toBe(2);
  expect(run.summary).toMatch(/^HARNESS ERROR \(stopped: ReceiverRefused: the target refused the harness's webhook receiver http:\/\/10\.255\.255\.1:\d+\/hooks\/\S+ as webhookDeliveryOverride: /);
  expect(run.stdout).toContain('check:  webhooks.publicUrl in the target config');
  expect(run.report?.requirements.find((r) => r.id === 'WH-001')?.verdict).toBe('not run');
});

test('a webhooks.publicUrl the target cannot reach stops the run within seconds, naming publicUrl and the address the target was given', async () => {
  // The reference takes the address (it is told to allow loopback) but nothing listens there.
  const port = await closedPort();
  const config = referenceConfig(shared.dir, 'unreachable-receiver', shared.reference.fixtures, (c) => (c.webhooks = { listenHost: '127.0.0.1', listenPort: 0, publicUrl: `http://127.0.0.1:${port}`, timeoutMs: 2000 }));
  const run = await certify(config, '--grep', '@WH-001|@SEND-008');
  expectStopped(run, /the target did not call the harness's webhook receiver within 2 s/);
  expect(run.stdout + run.stderr).toContain('webhooks.publicUrl in');
  expect(run.stdout + run.stderr).toMatch(/the target was given http:\/\/127\.0\.0\.1:\d+\/hooks\/\S+, as the webhookDeliveryOverride of/);
  expect(run.report?.requirements.find((r) => r.id === 'WH-001')?.verdict).toBe('not run');
});
