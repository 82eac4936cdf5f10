import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { loadTarget } from '../../harness/config.ts';
import { buildApp } from '../../reference/app.ts';
import { ConfigError } from '../../reference/errors.ts';
import { test, expect, sendBody, startReceiver, type ClientFixture, type ReceivedWebhook, type TestServer } from './helpers.ts';
import { runServer } from './serverProcess.ts';

// The sandbox triggers of the reference profile (reference/README.md, "Sandbox triggers"): how a
// harness reaches the hard paths without the control plane. Each is a target-config `triggers`
// kind other than `control`.

async function whoami(server: TestServer, token: string) {
  return server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `Bearer ${token}` } });
}

test.describe('client webhooks at start (clientWebhooks: declared)', () => {
  test.use({ serverOptions: { clientWebhooks: [{ role: 'primary', kind: 'delivery', url: 'https://hooks.example.com/d' }, { role: 'primary', kind: 'inbound', url: 'https://hooks.example.com/i' }] } });

  test("--client-webhook sets the client's webhooks: whoami's flags are true for it and false for a client without", async ({ server }) => {
    const primary = (await whoami(server, await server.sharedToken('primary'))).json();
    expect(primary).toMatchObject({ deliveryWebhookConfigured: true, inboundWebhookConfigured: true });
    const secondary = (await whoami(server, await server.sharedToken('secondary'))).json();
    expect(secondary).toMatchObject({ deliveryWebhookConfigured: false, inboundWebhookConfigured: false });
    expect(server.client('primary').webhooks).toEqual({ delivery: 'https://hooks.example.com/d', inbound: 'https://hooks.example.com/i' });
    expect(server.client('secondary').webhooks).toBeUndefined();
  });

  test('the control plane reset restores the webhooks given at start', async ({ server }) => {
    const id = encodeURIComponent(server.client('primary').clientId);
    expect((await server.control('PUT', `/_control/clients/${id}/webhooks`, { delivery: null, inbound: null })).statusCode).toBe(200);
    expect((await server.control('POST', '/_control/reset')).statusCode).toBe(200);
    expect((await whoami(server, await server.token('primary'))).json()).toMatchObject({ deliveryWebhookConfigured: true, inboundWebhookConfigured: true });
  });
});

test.describe('client webhooks at start, refused', () => {
  const refused: Array<[string, Parameters<typeof buildApp>[0], RegExp]> = [
    ['a --client-webhook at a loopback address', { clientWebhooks: [{ role: 'primary', kind: 'delivery', url: 'http://127.0.0.1:9/d' }] }, /^--client-webhook primary:delivery=http:\/\/127\.0\.0\.1:9\/d: the URL is at a loopback address \(127\.0\.0\.1\)/],
    ['a --client-webhook for a role no client has', { clientWebhooks: [{ role: 'tertiary', kind: 'inbound', url: 'https://hooks.example.com/i' }] }, /no client has the role "tertiary" \(roles: primary, secondary, special, brief\)/],
    // The password never reaches the message.
    ['a --client-webhook with credentials in its URL', { clientWebhooks: [{ role: 'primary', kind: 'delivery', url: 'https://user:s3cret@hooks.example.com/d' }] }, /^--client-webhook primary:delivery=https:\/\/\[credentials\]@hooks\.example\.com\/d: the URL is a URL with credentials in it \(user:password@host\); the server does not call such webhook targets \(remove the credentials: callbacks are signed/],
    [
      'a fixtures webhook with credentials in its URL',
      { fixtures: { clients: [{ role: 'primary', clientId: 'a', clientSecret: 's', webhooks: { delivery: 'https://user:s3cret@hooks.example.com/d' }, numbers: [] }] } },
      /^fixtures: \/clients\/0\/webhooks\/delivery is a URL with credentials in it/,
    ],
    [
      'a fixtures number override with credentials in its URL',
      { fixtures: { clients: [{ role: 'primary', clientId: 'a', clientSecret: 's', numbers: [{ phoneNumber: '+12025550100', webhookInboundOverride: 'https://s3cret@hooks.example.com/i' }] }] } },
      /^fixtures: \/clients\/0\/numbers\/0\/webhookInboundOverride is a URL with credentials in it/,
    ],
    [
      'a fixtures webhook at a private address',
      { fixtures: { clients: [{ role: 'primary', clientId: 'a', clientSecret: 's', webhooks: { inbound: 'http://10.1.2.3/i' }, numbers: [] }] } },
      /^fixtures: \/clients\/0\/webhooks\/inbound is at a private address \(10\.1\.2\.3\)/,
    ],
  ];
  for (const [name, options, message] of refused) {
    test(`${name} stops the start with an error naming it`, async () => {
      const failure = await buildApp(options).then(
        async (app) => {
          await app.close();
          return undefined;
        },
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ConfigError);
      expect((failure as Error).message).toMatch(message);
    });
  }

  test('a loopback --client-webhook is accepted when --allow-webhook-host allows it', async () => {
    const app = await buildApp({ allowWebhookHosts: ['127.0.0.1'], clientWebhooks: [{ role: 'secondary', kind: 'delivery', url: 'http://127.0.0.1:9/d' }] });
    try {
      expect(app.reference.describe('http://x').clients.find((client) => client.role === 'secondary')!.webhooks).toEqual({ delivery: 'http://127.0.0.1:9/d' });
    } finally {
      await app.close();
    }
  });
});

test.describe('client webhooks at start, on the command line', () => {
  let dir: string;
  test.beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'reference-triggers-'));
  });
  test.afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('--client-webhook reaches a real server: fixtures-out lists the webhook and the brief client, whoami shows the flag', async () => {
    const out = join(dir, 'out.json');
    const server = runServer(['--port', '0', '--db', join(dir, 'db.sqlite'), '--fresh', '--fixtures-out', out, '--log-level', 'warn', '--client-webhook', 'secondary:inbound=https://hooks.example.com/in']);
    try {
      const baseUrl = await server.listening;
      const described = JSON.parse(readFileSync(out, 'utf8')) as { clients: Array<{ role: string; clientId: string; clientSecret: string; webhooks?: unknown; tokenTtlSeconds?: number; numbers: Array<{ phoneNumber: string }> }> };
      const secondary = described.clients.find((client) => client.role === 'secondary')!;
      expect(secondary.webhooks).toEqual({ inbound: 'https://hooks.example.com/in' });
      const brief = described.clients.find((client) => client.role === 'brief');
      expect(brief).toMatchObject({ clientId: 'demo-brief', clientSecret: 'demo-brief-secret', tokenTtlSeconds: 5, numbers: [{ phoneNumber: '+12025550145', campaignregId: 'CDEMO05', smsEnabled: true, mmsEnabled: true }] });
      // The harness reads this file as a target (--fixtures): the new role does not stop it.
      expect(loadTarget(out, {}).clients.primary.clientId).toBe('demo-primary');
      const token = await request(`${baseUrl}/api/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: secondary.clientId, client_secret: secondary.clientSecret }) });
      const { access_token: accessToken } = (await token.body.json()) as { access_token: string };
      const context = await request(`${baseUrl}/api/core/whoami`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(await context.body.json()).toMatchObject({ inboundWebhookConfigured: true, deliveryWebhookConfigured: false });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  const bad: Array<[string, string[], RegExp]> = [
    ['no KIND', ['--client-webhook', 'primary=https://hooks.example.com/d'], /--client-webhook must be ROLE:KIND=URL with KIND delivery or inbound, got "primary=https:\/\/hooks\.example\.com\/d"/],
    ['an unknown KIND', ['--client-webhook', 'primary:status=https://hooks.example.com/d'], /--client-webhook KIND must be delivery or inbound, got "status"/],
    ['a URL that is not http(s)', ['--client-webhook', 'primary:delivery=ftp://hooks.example.com/d'], /--client-webhook must be an http\(s\) URL, got "ftp:\/\/hooks\.example\.com\/d"/],
    ['a relative URL', ['--client-webhook', 'primary:delivery=/d'], /--client-webhook must be an absolute http\(s\) URL, got "\/d"/],
    ['one ROLE:KIND twice', ['--client-webhook', 'primary:delivery=https://a.example.com/', '--client-webhook', 'primary:delivery=https://b.example.com/'], /--client-webhook primary:delivery is given more than once/],
    ['a role no client has', ['--client-webhook', 'nobody:delivery=https://hooks.example.com/d'], /--client-webhook nobody:delivery=https:\/\/hooks\.example\.com\/d: no client has the role "nobody"/],
    ['a loopback URL', ['--client-webhook', 'primary:delivery=http://localhost:9/d'], /--client-webhook primary:delivery=http:\/\/localhost:9\/d: the URL is at a loopback address/],
  ];
  for (const [name, args, message] of bad) {
    test(`--client-webhook with ${name} is a one-line error, exit code 2`, async () => {
      const server = runServer(['--port', '0', '--db', join(dir, 'db.sqlite'), ...args]);
      expect(await server.exited).toBe(2);
      expect(server.stderr()).toMatch(message);
      expect(server.stderr()).not.toMatch(/\n\s+at /);
    });
  }
});

test.describe('the brief client (expireToken: wait)', () => {
  test("its token says expires_in 5 and is refused 401 UNAUTHORIZED after 5 s, while another client's token of the same moment is not", async ({ server }) => {
    const issue = async (role: 'brief' | 'primary') => {
      const { clientId, clientSecret } = server.client(role);
      const response = await server.app.inject({ method: 'POST', url: '/api/auth/token', payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
      return response.json() as { access_token: string; expires_in: number };
    };
    const [brief, primary] = await Promise.all([issue('brief'), issue('primary')]);
    expect(brief.expires_in).toBe(5);
    expect(primary.expires_in).toBe(3600);
    expect((await whoami(server, brief.access_token)).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5100));
    const expired = await whoami(server, brief.access_token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('UNAUTHORIZED');
    expect(expired.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
    expect((await whoami(server, primary.access_token)).statusCode).toBe(200);
  });
});

test.describe('failed delivery (failedDelivery: request)', () => {
  test('a send to +12025550150 and +12025550151 ends FAILED with UNDELIVERABLE for both, an ordinary recipient DELIVERED', async ({ server }) => {
    const sent = await server.app.inject({
      method: 'POST',
      url: '/api/core/messages/send',
      headers: { authorization: `Bearer ${await server.sharedToken()}`, 'idempotency-key': 'failed-delivery' },
      payload: sendBody(server.client('primary').numbers[0]!.numberId, { to: ['+12025550150', '+12025550151', '+12025550100'] }),
    });
    expect(sent.statusCode).toBe(202);
    await expect
      .poll(() => server.query<{ to: string; status: string; errorCode: string | null }>("SELECT counterpart AS \"to\", status, error_code AS errorCode FROM messages WHERE direction = 'outbound' ORDER BY counterpart"))
      .toEqual([
        { to: '+12025550100', status: 'DELIVERED', errorCode: null },
        { to: '+12025550150', status: 'FAILED', errorCode: 'UNDELIVERABLE' },
        { to: '+12025550151', status: 'FAILED', errorCode: 'UNDELIVERABLE' },
      ]);
  });
});

test.describe('upstream failure by request (upstreamFailure: request)', () => {
  test.use({ serverOptions: { upstreamTimeoutMs: 300 } });

  async function search(server: TestServer, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    return server.app.inject({ method: 'POST', url: '/api/core/numbers/search', headers: { authorization: `Bearer ${await server.sharedToken()}`, ...headers }, payload: body });
  }

  const triggers: Array<[string, Record<string, unknown>, Record<string, string>, number | string]> = [
    ['a rateCenter UPSTREAM-503', { npa: '202', rateCenter: 'UPSTREAM-503' }, {}, 503],
    ['a rateCenter UPSTREAM-400', { rateCenter: 'UPSTREAM-400' }, {}, 400],
    ['a Sandbox-Upstream-Status: 429 header', { npa: '202' }, { 'sandbox-upstream-status': '429' }, 429],
    ['a rateCenter UPSTREAM-STALL', { rateCenter: 'UPSTREAM-STALL' }, {}, 'TIMEOUT'],
  ];
  for (const [name, body, headers, providerStatus] of triggers) {
    test(`a search with ${name} is 502 UPSTREAM_ERROR with details.providerStatus ${providerStatus}, while an ordinary search beside it succeeds`, async ({ server }) => {
      const [triggered, ordinary] = await Promise.all([search(server, body, headers), search(server, { npa: '202' })]);
      expect(triggered.statusCode).toBe(502);
      expect(triggered.json().error).toMatchObject({ code: 'UPSTREAM_ERROR', details: { providerStatus } });
      expect(ordinary.statusCode).toBe(200);
      expect(ordinary.json()).toMatchObject({ providerResultCount: 8, groups: [{ npa: '202', nxx: '555', count: 8 }] });
    });
  }

  for (const value of ['200', '600', 'abc', '503, 504']) {
    test(`a Sandbox-Upstream-Status of ${JSON.stringify(value)} is 400 INVALID_REQUEST naming the header`, async ({ server }) => {
      const response = await search(server, { npa: '202' }, { 'sandbox-upstream-status': value });
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: { header: 'Sandbox-Upstream-Status' } });
    });
  }

  // The stall holds a connection of the provider's pool until the upstream timeout. An earlier
  // reference let one client hold all of them, and another client's searches waited their own
  // timeout out (7 of 25 answered 502).
  test('one client\'s stalled searches hold no more than its share of the provider\'s connections: another client\'s searches meanwhile succeed', async ({ server }) => {
    const stalls = Array.from({ length: 24 }, () => search(server, { rateCenter: 'UPSTREAM-STALL' }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const otherToken = await server.token('secondary');
    const others = [];
    for (let i = 0; i < 5; i++) others.push(await server.app.inject({ method: 'POST', url: '/api/core/numbers/search', headers: { authorization: `Bearer ${otherToken}` }, payload: { npa: '202' } }));
    expect(others.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200]);
    // The stalling client's own searches beyond its share waited for it, and were answered 502
    // TIMEOUT within the upstream timeout like the rest.
    for (const stalled of await Promise.all(stalls)) {
      expect(stalled.statusCode).toBe(502);
      expect(stalled.json().error.details).toEqual({ providerStatus: 'TIMEOUT' });
    }
  });

  test('a rateCenter that only resembles a trigger is an ordinary criterion: UPSTREAM-200 finds nothing', async ({ server }) => {
    const response = await search(server, { rateCenter: 'UPSTREAM-200' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ providerResultCount: 0, groups: [] });
  });
});

test.describe('loopback inbound (inbound: loopback)', () => {
  async function sendFrom(server: TestServer, numberId: string, to: string[], key: string) {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/core/messages/send',
      headers: { authorization: `Bearer ${await server.sharedToken()}`, 'idempotency-key': key },
      payload: sendBody(numberId, { to, text: 'Loopback hello' }),
    });
    expect(response.statusCode).toBe(202);
    return response.json() as { results: Array<{ to: string; messageId: string }> };
  }

  async function setClientWebhooks(server: TestServer, role: 'primary' | 'secondary', webhooks: { delivery?: string; inbound?: string }) {
    expect((await server.control('PUT', `/_control/clients/${server.client(role).clientId}/webhooks`, webhooks)).statusCode).toBe(200);
  }

  const events = (received: ReceivedWebhook[], path: string) => received.filter((request) => request.path === path).map((request) => JSON.parse(request.body));

  test("a send to another client's number arrives at that number's webhookInboundOverride, and its delivery outcome at the sender's delivery webhook", async ({ server }) => {
    const receiver = await startReceiver();
    try {
      const from = server.client('primary').numbers[0]!;
      const to = server.client('secondary').numbers[0]!;
      await setClientWebhooks(server, 'primary', { delivery: `${receiver.url}/delivery` });
      await setClientWebhooks(server, 'secondary', { inbound: `${receiver.url}/client-inbound` });
      const patched = await server.app.inject({
        method: 'PATCH',
        url: `/api/core/numbers/${to.numberId}`,
        headers: { authorization: `Bearer ${await server.sharedToken('secondary')}` },
        payload: { webhookInboundOverride: `${receiver.url}/override` },
      });
      expect(patched.statusCode).toBe(200);

      const { results } = await sendFrom(server, from.numberId, [to.phoneNumber], 'loopback-override');
      const received = await receiver.waitFor(2);
      expect(events(received, '/delivery')).toEqual([expect.objectContaining({ type: 'message.delivery', data: expect.objectContaining({ messageId: results[0]!.messageId, status: 'DELIVERED', to: to.phoneNumber }) })]);
      const [inbound] = events(received, '/override');
      expect(inbound).toEqual({
        type: 'message.inbound',
        timestamp: expect.any(String),
        data: { messageId: expect.stringMatching(/^msg_/), numberId: to.numberId, from: from.phoneNumber, to: to.phoneNumber, text: 'Loopback hello' },
      });
      expect(inbound.data.messageId).not.toBe(results[0]!.messageId);
      expect(events(received, '/client-inbound')).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  test("without an override the arrival goes to the receiving client's inbound webhook; a recipient that is not one of the server's numbers arrives nowhere", async ({ server }) => {
    const receiver = await startReceiver();
    try {
      const [from, to] = server.client('primary').numbers as [ClientFixture['numbers'][number], ClientFixture['numbers'][number]];
      await setClientWebhooks(server, 'primary', { delivery: `${receiver.url}/delivery`, inbound: `${receiver.url}/client-inbound` });
      await sendFrom(server, from.numberId, [to.phoneNumber, '+12025550123'], 'loopback-client');
      const received = await receiver.waitFor(3);
      expect(events(received, '/delivery').map((event) => event.data.status)).toEqual(['DELIVERED', 'DELIVERED']);
      expect(events(received, '/client-inbound')).toEqual([expect.objectContaining({ data: expect.objectContaining({ numberId: to.numberId, from: from.phoneNumber, to: to.phoneNumber, text: 'Loopback hello' }) })]);
      await expect.poll(() => server.query<{ counterpart: string; status: string }>("SELECT counterpart, status FROM messages WHERE direction = 'inbound'")).toEqual([{ counterpart: from.phoneNumber, status: 'RECEIVED' }]);
    } finally {
      await receiver.close();
    }
  });

  test('a replayed send creates no second arrival', async ({ server }) => {
    const [from, to] = server.client('primary').numbers as [ClientFixture['numbers'][number], ClientFixture['numbers'][number]];
    await sendFrom(server, from.numberId, [to.phoneNumber], 'loopback-replay');
    await sendFrom(server, from.numberId, [to.phoneNumber], 'loopback-replay');
    expect(server.query<{ n: number }>("SELECT count(*) AS n FROM messages WHERE direction = 'inbound'")).toEqual([{ n: 1 }]);
  });
});
