import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect, sendBody, startReceiver, type TestServer } from './helpers.ts';

// Section 6 with profile webhook.* and message.*: delivery and inbound events, Standard Webhooks
// signing, targets (number override before client webhook), retries.

function verify(secret: string, headers: Record<string, unknown>, body: string): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest('base64');
  return String(headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
}

async function setClientWebhooks(server: TestServer, role: 'primary' | 'secondary', webhooks: { delivery?: string | null; inbound?: string | null }) {
  const response = await server.control('PUT', `/_control/clients/${encodeURIComponent(server.client(role).clientId)}/webhooks`, webhooks);
  expect(response.statusCode).toBe(200);
}

async function send(server: TestServer, body: Record<string, unknown>, key = 'k1') {
  const response = await server.app.inject({
    method: 'POST',
    url: '/api/core/messages/send',
    headers: { authorization: `Bearer ${await server.sharedToken()}`, 'idempotency-key': key },
    payload: body,
  });
  expect(response.statusCode).toBe(202);
  return response.json() as { results: Array<{ to: string; messageId: string }> };
}

test.describe('delivery webhooks', () => {
  test('one signed delivery event per recipient goes to the client delivery webhook', async ({ server }) => {
    const receiver = await startReceiver();
    try {
      await setClientWebhooks(server, 'primary', { delivery: `${receiver.url}/delivery` });
      const number = server.client('primary').numbers[0]!;
      const { results } = await send(server, sendBody(number.numberId, { to: ['+12025550123', '+12025550155'] }));
      const received = await receiver.waitFor(2);
      const events = received.map((request) => JSON.parse(request.body));
      const byTo = Object.fromEntries(events.map((event) => [event.data.to, event]));
      expect(byTo['+12025550123']).toEqual({
        type: 'message.delivery',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: { messageId: results[0]!.messageId, status: 'DELIVERED', to: '+12025550123', sendFrom: number.numberId, externalReference: 'order-1' },
      });
      // Profile message.testOutcomes: 555-0150..0199 ends FAILED with UNDELIVERABLE.
      expect(byTo['+12025550155'].data).toMatchObject({ messageId: results[1]!.messageId, status: 'FAILED', errorCode: 'UNDELIVERABLE' });
      for (const request of received) {
        expect(request.path).toBe('/delivery');
        expect(request.headers['webhook-id']).toMatch(/^evt_/);
        expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
        expect(verify(server.client('primary').webhookSecret, request.headers, request.body)).toBe(true);
      }
      await expect.poll(() => server.query<{ status: string }>("SELECT status FROM messages ORDER BY counterpart").map((row) => row.status)).toEqual(['DELIVERED', 'FAILED']);
    } finally {
      await receiver.close();
    }
  });

  test("the number's webhookDeliveryOverride wins over the client's delivery webhook", async ({ server }) => {
    const clientHook = await startReceiver();
    const numberHook = await startReceiver();
    try {
      await setClientWebhooks(server, 'primary', { delivery: clientHook.url });
      const number = server.client('primary').numbers[0]!;
      const token = await server.sharedToken();
      await server.app.inject({ method: 'PATCH', url: `/api/core/numbers/${number.numberId}`, headers: { authorization: `Bearer ${token}` }, payload: { webhookDeliveryOverride: `${numberHook.url}/override` } });
      await send(server, sendBody(number.numberId));
      const [event] = await numberHook.waitFor(1);
      expect(event!.path).toBe('/override');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(clientHook.received).toHaveLength(0);
    } finally {
      await clientHook.close();
      await numberHook.close();
    }
  });

  test('with no target configured the event is recorded as undeliverable and never attempted', async ({ server }) => {
    await send(server, sendBody(server.client('primary').numbers[0]!.numberId));
    expect(server.query<{ state: string; attempts: number }>('SELECT state, attempts FROM webhook_outbox')).toEqual([{ state: 'undeliverable', attempts: 0 }]);
  });

  test('a non-2xx answer is retried with backoff and the same webhook-id until a 2xx', async ({ server }) => {
    const receiver = await startReceiver((_request, index) => ({ status: index < 2 ? 500 : 200 }));
    try {
      await setClientWebhooks(server, 'primary', { delivery: receiver.url });
      await send(server, sendBody(server.client('primary').numbers[0]!.numberId));
      const received = await receiver.waitFor(3, 5000);
      expect(new Set(received.map((request) => request.headers['webhook-id'])).size).toBe(1);
      expect(new Set(received.map((request) => request.body)).size).toBe(1);
      // 0.5 s base with equal jitter: the first retry waits 250-500 ms, the second 500-1000 ms.
      expect(received[1]!.at - received[0]!.at).toBeGreaterThanOrEqual(200);
      expect(received[2]!.at - received[1]!.at).toBeGreaterThanOrEqual(450);
      await expect.poll(() => server.query<{ state: string; attempts: number }>('SELECT state, attempts FROM webhook_outbox')).toEqual([{ state: 'delivered', attempts: 3 }]);
    } finally {
      await receiver.close();
    }
  });

  test('a 410 answer stops delivery to that event', async ({ server }) => {
    const receiver = await startReceiver(() => ({ status: 410 }));
    try {
      await setClientWebhooks(server, 'primary', { delivery: receiver.url });
      await send(server, sendBody(server.client('primary').numbers[0]!.numberId));
      await receiver.waitFor(1);
      await expect.poll(() => server.query<{ state: string }>('SELECT state FROM webhook_outbox')[0]?.state).toBe('gone');
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  test('a connection failure is retried and recorded', async ({ server }) => {
    await setClientWebhooks(server, 'primary', { delivery: 'http://127.0.0.1:9/closed' });
    await send(server, sendBody(server.client('primary').numbers[0]!.numberId));
    await expect
      .poll(() => server.query<{ attempts: number; last_result: string; state: string }>('SELECT attempts, last_result, state FROM webhook_outbox')[0], { timeout: 3000 })
      .toMatchObject({ state: 'pending', last_result: expect.stringMatching(/^error /) });
  });
});

test.describe('many callbacks in flight', () => {
  test('callbacks to a slow receiver are all delivered, and the process is not warned of a listener leak', async ({ server }) => {
    // One shutdown signal serves every attempt in flight: past ten at once, Node warns of a leak
    // that is not one (each attempt's listener goes when it ends) on the server's stderr.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    let answered = 0;
    const slow = createServer((req, res) => {
      req.resume();
      req.on('end', () => setTimeout(() => (answered++, res.writeHead(204).end()), 300));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      await setClientWebhooks(server, 'primary', { delivery: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/delivery` });
      const number = server.client('primary').numbers[0]!;
      for (let i = 0; i < 15; i++) await send(server, sendBody(number.numberId), `many-${i}`);
      await expect.poll(() => answered, { timeout: 5000 }).toBe(15);
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });
});

test.describe('inbound webhooks', () => {
  test("a simulated inbound message goes to the number's override, else the client's inbound webhook", async ({ server }) => {
    const clientHook = await startReceiver();
    const numberHook = await startReceiver();
    try {
      await setClientWebhooks(server, 'primary', { inbound: `${clientHook.url}/inbound` });
      const [withOverride, plain] = server.client('primary').numbers;
      const token = await server.sharedToken();
      await server.app.inject({ method: 'PATCH', url: `/api/core/numbers/${withOverride!.numberId}`, headers: { authorization: `Bearer ${token}` }, payload: { webhookInboundOverride: numberHook.url } });

      const first = await server.control('POST', '/_control/inbound', { numberId: withOverride!.numberId, from: '+12025550999', text: 'hi' });
      expect(first.statusCode).toBe(201);
      const [event] = await numberHook.waitFor(1);
      expect(JSON.parse(event!.body)).toEqual({
        type: 'message.inbound',
        timestamp: expect.any(String),
        data: { messageId: first.json().messageId, numberId: withOverride!.numberId, from: '+12025550999', to: withOverride!.phoneNumber, text: 'hi' },
      });
      expect(verify(server.client('primary').webhookSecret, event!.headers, event!.body)).toBe(true);

      await server.control('POST', '/_control/inbound', { numberId: plain!.numberId, from: '+12025550998', text: 'yo' });
      const [toClient] = await clientHook.waitFor(1);
      expect(toClient!.path).toBe('/inbound');
      expect(JSON.parse(toClient!.body).data.numberId).toBe(plain!.numberId);
    } finally {
      await clientHook.close();
      await numberHook.close();
    }
  });
});
