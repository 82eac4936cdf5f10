import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../reference/app.ts';
import { DEMO_FIXTURES } from '../../reference/fixtures/demo.ts';
import type { FixtureSet } from '../../reference/fixtures/schema.ts';
import { WebhookTargets } from '../../reference/webhooks/targets.ts';
import { test, expect, sendBody, startReceiver, type TestServer } from './helpers.ts';

// Profile webhook.targets (OWASP API7): a webhook target in a loopback, private, link-local,
// unspecified or reserved range is refused when it is set and again at delivery, after DNS
// resolution, unless the operator allows it; the server's own port never is a target. An earlier
// reference took any http(s) URL: with --control and no control token, one tenant pointed its
// override at the server's own /_control/reset and a single send wiped every tenant's state.

async function patchOverride(server: TestServer, field: 'webhookDeliveryOverride' | 'webhookInboundOverride', url: string) {
  const numberId = server.client('primary').numbers[0]!.numberId;
  return server.app.inject({ method: 'PATCH', url: `/api/core/numbers/${numberId}`, headers: { authorization: `Bearer ${await server.sharedToken()}` }, payload: { [field]: url } });
}

const REFUSED: Array<[string, string, string]> = [
  ['loopback', 'http://127.0.0.1:8080/hooks', 'loopback'],
  ['loopback written short', 'http://127.1/hooks', 'loopback'],
  ['loopback in hex', 'http://0x7f.0.0.1/hooks', 'loopback'],
  ['loopback as one decimal number', 'http://2130706433/hooks', 'loopback'],
  ['a name that resolves to loopback', 'http://localhost:8080/hooks', 'loopback'],
  ['IPv6 loopback', 'http://[::1]/hooks', 'loopback'],
  ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/hooks', 'loopback'],
  ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/', 'link-local'],
  ['the metadata address, IPv4-mapped', 'http://[::ffff:169.254.169.254]/latest/meta-data/', 'link-local'],
  ['the metadata address through NAT64', 'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/', 'link-local'],
  ['IPv6 link-local', 'http://[fe80::1]/hooks', 'link-local'],
  ['10.0.0.0/8', 'http://10.0.0.1/hooks', 'private'],
  ['172.16.0.0/12', 'https://172.16.5.4/hooks', 'private'],
  ['192.168.0.0/16', 'http://192.168.1.1/hooks', 'private'],
  ['carrier-grade NAT', 'http://100.64.0.1/hooks', 'private'],
  ['IPv6 unique local', 'http://[fd00::1]/hooks', 'private'],
  ['0.0.0.0', 'http://0.0.0.0:8080/hooks', 'unspecified'],
  ['::', 'http://[::]/hooks', 'unspecified'],
  ['multicast', 'http://224.0.0.1/hooks', 'multicast'],
  ['a documentation range', 'http://192.0.2.10/hooks', 'reserved'],
];

test.describe('when set: the update route', () => {
  test.use({ serverOptions: { allowWebhookHosts: [] } });

  for (const [what, url, reason] of REFUSED) {
    test(`an override at ${what} (${url}) is 400 INVALID_REQUEST naming the reason, and is not stored`, async ({ server }) => {
      const response = await patchOverride(server, 'webhookDeliveryOverride', url);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'webhookDeliveryOverride', reason } });
      expect(server.query<{ o: string | null }>('SELECT webhook_delivery_override AS o FROM numbers WHERE number_id = ?', server.client('primary').numbers[0]!.numberId)[0]!.o).toBeNull();
    });
  }

  test('the inbound override is checked like the delivery override', async ({ server }) => {
    const response = await patchOverride(server, 'webhookInboundOverride', 'http://169.254.169.254/');
    expect(response.json().error.details).toEqual({ field: 'webhookInboundOverride', reason: 'link-local', address: '169.254.169.254' });
  });

  test('a public address is accepted, and so is a name that does not resolve now (its delivery is checked when made)', async ({ server }) => {
    expect((await patchOverride(server, 'webhookDeliveryOverride', 'https://93.184.216.34/hooks')).statusCode).toBe(200);
    expect((await patchOverride(server, 'webhookDeliveryOverride', 'https://hooks.example.invalid/hooks')).statusCode).toBe(200);
  });

  // Credentials in a webhook URL used to be accepted, stored and shown in every answer that
  // shows the URL, and never sent. They are a defect of the request now.
  for (const url of ['https://user:s3cret@hooks.example.com/d', 'https://s3cret@hooks.example.com/d', 'https://:s3cret@hooks.example.com/d']) {
    test(`an override with credentials in its URL (${url.replace('s3cret', '…')}) is 400 INVALID_REQUEST, not stored, and not echoed`, async ({ server }) => {
      const response = await patchOverride(server, 'webhookDeliveryOverride', url);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'webhookDeliveryOverride', reason: 'credentials' } });
      expect(response.body).not.toContain('s3cret');
      expect(server.query<{ o: string | null }>('SELECT webhook_delivery_override AS o FROM numbers WHERE number_id = ?', server.client('primary').numbers[0]!.numberId)[0]!.o).toBeNull();
    });
  }

  test('the control plane refuses credentials in a client webhook URL too', async ({ server }) => {
    const response = await server.control('PUT', `/_control/clients/${server.client('primary').clientId}/webhooks`, { inbound: 'https://user:s3cret@hooks.example.com/i' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual({ field: 'inbound', reason: 'credentials' });
  });

  test('the control plane checks the client webhooks it sets in the same way', async ({ server }) => {
    const response = await server.control('PUT', `/_control/clients/${server.client('primary').clientId}/webhooks`, { delivery: 'http://10.1.2.3/hooks' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toMatchObject({ field: 'delivery', reason: 'private' });
  });
});

test.describe('the operator allowlist (--allow-webhook-host)', () => {
  test.describe('a CIDR range and a host name', () => {
    test.use({ serverOptions: { allowWebhookHosts: ['10.0.0.0/8', 'localhost'] } });
    test('allow what they name and nothing else', async ({ server }) => {
      expect((await patchOverride(server, 'webhookDeliveryOverride', 'http://10.20.30.40/hooks')).statusCode).toBe(200);
      expect((await patchOverride(server, 'webhookDeliveryOverride', 'http://localhost:8080/hooks')).statusCode).toBe(200);
      expect((await patchOverride(server, 'webhookDeliveryOverride', 'http://192.168.1.1/hooks')).statusCode).toBe(400);
      expect((await patchOverride(server, 'webhookDeliveryOverride', 'http://127.0.0.1:8080/hooks')).statusCode).toBe(400);
    });
  });

  test.describe('an address', () => {
    test.use({ serverOptions: { allowWebhookHosts: ['127.0.0.1'] } });
    test('allows that address in any spelling, and not its neighbours', async ({ server }) => {
      expect((await patchOverride(server, 'webhookDeliveryOverride', 'http://127.0.0.1:8080/hooks')).statusCode).toBe(200);
      expect((await patchOverride(server, 'webhookDeliveryOverride', 'http://[::ffff:127.0.0.1]:8080/hooks')).statusCode).toBe(200);
      expect((await patchOverride(server, 'webhookDeliveryOverride', 'http://127.0.0.2:8080/hooks')).statusCode).toBe(400);
    });
  });
});

test.describe('when delivered', () => {
  let dir: string;
  let app: FastifyInstance | undefined;
  test.beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'reference-targets-'));
  });
  test.afterEach(async () => {
    await app?.close();
    app = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** The demo fixtures with the primary client's delivery webhook set to `url` (checked when seeded, before the server listens). */
  function fixturesWithDelivery(url: string): FixtureSet {
    return { clients: DEMO_FIXTURES.clients.map((client) => (client.role === 'primary' ? { ...client, webhooks: { delivery: url } } : client)) };
  }

  async function sendFromPrimary(target: FastifyInstance): Promise<string> {
    const token = await target.inject({ method: 'POST', url: '/api/auth/token', payload: { grant_type: 'client_credentials', client_id: 'demo-primary', client_secret: 'demo-primary-secret' } });
    const accessToken = token.json().access_token as string;
    const numberId = target.reference.describe('http://x').clients[0]!.numbers[0]!.numberId;
    const sent = await target.inject({ method: 'POST', url: '/api/core/messages/send', headers: { authorization: `Bearer ${accessToken}`, 'idempotency-key': 'k' }, payload: sendBody(numberId) });
    expect(sent.statusCode).toBe(202);
    return accessToken;
  }

  /** The state and last result of every event in the outbox. */
  function outbox(): unknown[] {
    const handle = new Database(join(dir, 'db.sqlite'), { readonly: true });
    try {
      return handle.prepare('SELECT state, last_result AS lastResult FROM webhook_outbox').all();
    } finally {
      handle.close();
    }
  }

  test('a target that resolves to loopback when delivered is refused: nothing reaches the receiver and the event is settled refused', async () => {
    const receiver = await startReceiver();
    try {
      const port = new URL(receiver.url).port;
      // Stored by an earlier start, when the name may have resolved elsewhere: a client
      // webhook given at start is checked then and refused (client-webhooks.test.ts).
      app = await buildApp({ dbPath: join(dir, 'db.sqlite') });
      await app.close();
      const handle = new Database(join(dir, 'db.sqlite'));
      handle.prepare("UPDATE clients SET delivery_webhook_url = ? WHERE role = 'primary'").run(`http://localhost:${port}/delivery`);
      handle.close();
      app = await buildApp({ dbPath: join(dir, 'db.sqlite') });
      await app.ready();
      await sendFromPrimary(app);
      await expect.poll(outbox).toEqual([{ state: 'refused', lastResult: expect.stringContaining('loopback') }]);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  test("the server's own port is never a target, even with loopback allowed and no control token: the control plane is not reset", async () => {
    const port = await freePort();
    const own = `http://127.0.0.1:${port}/_control/reset`;
    app = await buildApp({ dbPath: join(dir, 'db.sqlite'), control: true, allowWebhookHosts: ['127.0.0.1'], fixtures: fixturesWithDelivery(own) });
    await app.listen({ host: '127.0.0.1', port });
    const token = await sendFromPrimary(app);
    // At set time: the update route and the control plane refuse it.
    const numberId = app.reference.describe('http://x').clients[0]!.numbers[0]!.numberId;
    const patched = await app.inject({ method: 'PATCH', url: `/api/core/numbers/${numberId}`, headers: { authorization: `Bearer ${token}` }, payload: { webhookDeliveryOverride: `http://localhost:${port}/_control/reset` } });
    expect(patched.json().error.details).toMatchObject({ reason: 'own-server' });
    // At delivery: the seeded webhook is refused, so the tokens and the message survive.
    await expect.poll(async () => (await app!.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
    await expect.poll(outbox).toEqual([{ state: 'refused', lastResult: expect.stringContaining('own-server') }]);
  });

  test('a request carrying the webhook headers is refused by the control plane, token or not', async () => {
    app = await buildApp({ dbPath: join(dir, 'db.sqlite'), control: true });
    const token = await sendFromPrimary(app);
    const reset = await app.inject({ method: 'POST', url: '/_control/reset', headers: { 'webhook-id': 'evt_1', 'webhook-signature': 'v1,x' } });
    expect(reset.statusCode).toBe(403);
    expect((await app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
  });
});

test.describe('DNS rebinding', () => {
  test('a name that resolved to a public address when set and to loopback when delivered is refused at delivery', async () => {
    const answers = [[{ address: '93.184.216.34' }], [{ address: '127.0.0.1' }]];
    const targets = new WebhookTargets([], async () => answers.shift()!);
    expect(await targets.check('https://rebind.example/hooks')).toEqual({ ok: true });
    expect(await targets.resolveForDelivery('rebind.example', 443)).toEqual({ ok: false, reason: 'loopback', address: '127.0.0.1' });
  });

  test('a name with one public and one private address is refused: every answer must pass', async () => {
    const targets = new WebhookTargets([], async () => [{ address: '93.184.216.34' }, { address: '10.0.0.7' }]);
    expect(await targets.resolveForDelivery('round-robin.example', 443)).toEqual({ ok: false, reason: 'private', address: '10.0.0.7' });
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
