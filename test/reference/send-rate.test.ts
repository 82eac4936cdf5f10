import { test, expect, sendBody, type TestServer } from './helpers.ts';

// Profile send.rateLimit (reference/send/rateLimit.ts): each API client may send so many
// messages a second (one per recipient), bursts up to twice as many and never less than the
// largest send; beyond, 429 TOO_MANY_REQUESTS in the CORE wrapper with Retry-After, and nothing
// stored. An earlier reference had no limit: one tenant sending as fast as it could raised every
// other tenant's send latency elevenfold and wrote 60 MiB/s, with no 429 ever
// (bench/send-flood.ts measures it).

const HUNDRED = Array.from({ length: 100 }, (_, i) => `+1202555${String(2000 + i).padStart(4, '0')}`);

async function send(server: TestServer, role: 'primary' | 'secondary', key: string, to: string[], token?: string) {
  const numberId = server.client(role).numbers.find((number) => number.campaignregId !== null && number.smsEnabled)!.numberId;
  return server.app.inject({
    method: 'POST',
    url: '/api/core/messages/send',
    headers: { authorization: `Bearer ${token ?? (await server.sharedToken(role))}`, 'idempotency-key': key },
    payload: sendBody(numberId, { to }),
  });
}

test.describe('a client over its send rate', () => {
  // 5 messages a second: the allowance is the largest send, 100 recipients, refilled in 20 s.
  test.use({ serverOptions: { sendMessagesPerSecond: 5 } });

  test('is answered 429 TOO_MANY_REQUESTS with Retry-After, stores nothing, and leaves other clients alone', async ({ server }) => {
    expect((await send(server, 'primary', 'rate-1', HUNDRED)).statusCode).toBe(202);
    const stored = server.query<{ n: number }>('SELECT count(*) AS n FROM messages')[0]!.n;

    const over = await send(server, 'primary', 'rate-2', ['+12025550123']);
    expect(over.statusCode).toBe(429);
    const retryAfter = Number(over.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(20);
    const body = over.json();
    expect(body).toEqual({
      error: { code: 'TOO_MANY_REQUESTS', message: expect.stringContaining('5 messages a second'), details: { limit: 5, per: 'API client', unit: 'messages per second' } },
      requestId: expect.stringMatching(/^req_/),
    });
    expect(over.headers['x-request-id']).toBe(body.requestId);
    expect(server.query<{ n: number }>('SELECT count(*) AS n FROM messages')[0]!.n).toBe(stored);
    // Not stored, so the same key is free for the send once the client may send again.
    expect(server.query<{ n: number }>("SELECT count(*) AS n FROM idempotency WHERE idempotency_key = 'rate-2'")[0]!.n).toBe(0);

    expect((await send(server, 'secondary', 'rate-3', ['+13125550100'])).statusCode).toBe(202);
  });

  test('is forgotten by the control plane\'s reset', async ({ server }) => {
    expect((await send(server, 'primary', 'reset-1', HUNDRED)).statusCode).toBe(202);
    expect((await send(server, 'primary', 'reset-2', ['+12025550123'])).statusCode).toBe(429);
    expect((await server.control('POST', '/_control/reset')).statusCode).toBe(200);
    // The reset deletes tokens too.
    expect((await send(server, 'primary', 'reset-2', ['+12025550123'], await server.token())).statusCode).toBe(202);
  });
});

test.describe('the default send rate', () => {
  test('sends of 100 recipients in a row meet a 429 with Retry-After within a few seconds\' worth', async ({ server }) => {
    const statuses: number[] = [];
    for (let i = 0; i < 30 && !statuses.includes(429); i++) statuses.push((await send(server, 'primary', `default-${i}`, HUNDRED)).statusCode);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((status) => status === 202)).toBe(true);
    // Two seconds' worth at least before the first 429 (500 messages a second, bursts of 1,000).
    expect(statuses.length).toBeGreaterThan(10);
  });
});
