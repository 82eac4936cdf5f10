import { test, expect, type TestServer } from './helpers.ts';

// The token endpoint's defenses (reference/auth/tokenGuard.ts; OWASP API2, API4): rate limits
// per source address and per client id (over which only sources that failed for the id are
// refused), 429 with Retry-After; no scrypt for an unknown client id, yet no answer faster for
// it; a credential verified lately recognised without scrypt. An
// earlier reference spent about 35 ms of scrypt on every failed attempt, with no limit: 20
// concurrent anonymous requests took a core and raised send p99 sixfold.

function tokenRequest(server: TestServer, clientId: string, secret: string, remoteAddress = '127.0.0.1') {
  return server.app.inject({ method: 'POST', url: '/api/auth/token', remoteAddress, payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret } });
}

function expectTooMany(response: Awaited<ReturnType<typeof tokenRequest>>): void {
  expect(response.statusCode).toBe(429);
  expect(response.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringContaining('retry after') });
  expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(response.headers['cache-control']).toBe('no-store');
}

test.describe('rate limits', () => {
  test.describe('per source address', () => {
    test.use({ serverOptions: { tokenLimits: { requestsPerSourcePerMinute: 4, failuresPerSourcePerMinute: 100, failuresPerClientPerMinute: 100 } } });
    test('requests beyond the source\'s rate are 429 with Retry-After, and another source is not affected', async ({ server }) => {
      const { clientId, clientSecret } = server.client('primary');
      for (let i = 0; i < 4; i++) expect((await tokenRequest(server, clientId, clientSecret)).statusCode).toBe(200);
      const over = await tokenRequest(server, clientId, clientSecret);
      expectTooMany(over);
      // A minute's allowance refills evenly: one request per 15 s here.
      expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(15);
      expect((await tokenRequest(server, clientId, clientSecret, '192.0.2.7')).statusCode).toBe(200);
    });
  });

  test.describe('failures per source address', () => {
    test.use({ serverOptions: { tokenLimits: { requestsPerSourcePerMinute: 1000, failuresPerSourcePerMinute: 3, failuresPerClientPerMinute: 100 } } });
    test('after the source\'s failures, even right credentials from it are 429; from elsewhere they are served', async ({ server }) => {
      for (let i = 0; i < 3; i++) expect((await tokenRequest(server, `nobody-${i}`, 'guess')).statusCode).toBe(401);
      const { clientId, clientSecret } = server.client('secondary');
      expectTooMany(await tokenRequest(server, clientId, clientSecret));
      expect((await tokenRequest(server, clientId, clientSecret, '198.51.100.4')).statusCode).toBe(200);
    });
  });

  test.describe('failures per client id', () => {
    test.use({ serverOptions: { tokenLimits: { requestsPerSourcePerMinute: 1000, failuresPerSourcePerMinute: 1000, failuresPerClientPerMinute: 3 } } });

    test('over an id\'s failures, the sources that failed for it are refused, known id or not; other sources and other ids are heard', async ({ server }) => {
      const { clientId, clientSecret } = server.client('primary');
      for (let i = 0; i < 3; i++) expect((await tokenRequest(server, clientId, 'wrong', `203.0.113.${i + 1}`)).statusCode).toBe(401);
      for (let i = 0; i < 3; i++) expectTooMany(await tokenRequest(server, clientId, clientSecret, `203.0.113.${i + 1}`));
      for (let i = 0; i < 3; i++) expect((await tokenRequest(server, 'nobody', 'wrong', `203.0.113.${i + 1}`)).statusCode).toBe(401);
      expectTooMany(await tokenRequest(server, 'nobody', 'wrong', '203.0.113.1'));
      const other = server.client('secondary');
      expect((await tokenRequest(server, other.clientId, other.clientSecret, '203.0.113.1')).statusCode).toBe(200);
      expect((await tokenRequest(server, clientId, clientSecret, '192.0.2.10')).statusCode).toBe(200);
    });

    // An earlier version refused every source once an id was over its failures: about 10 wrong
    // secrets a second for a known id, from rotating addresses, kept its own client from any token.
    test('wrong secrets for a client id from rotating source addresses never keep its right secret, from its own address, from a token at the first try', async ({ server }) => {
      const { clientId, clientSecret } = server.client('primary');
      const attack = new Map<number, number>();
      for (let round = 0; round < 3; round++) {
        // Twenty addresses at once (a 429 is held up to a second before it is sent).
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => tokenRequest(server, clientId, `guess-${round}-${i}`, `203.0.113.${i + 1}`)));
        for (const { statusCode } of answers) attack.set(statusCode, (attack.get(statusCode) ?? 0) + 1);
      }
      // Once the id is over its failures, each attacking address is heard once and then refused.
      expect(Object.fromEntries(attack)).toEqual({ 401: 20, 429: 40 });
      expect((await tokenRequest(server, clientId, clientSecret, '192.0.2.10')).statusCode).toBe(200);
    });

    test('a client whose credentials were verified before the lock still gets tokens from a source that failed for it', async ({ server }) => {
      const { clientId, clientSecret } = server.client('primary');
      expect((await tokenRequest(server, clientId, clientSecret)).statusCode).toBe(200);
      for (let i = 0; i < 4; i++) await tokenRequest(server, clientId, `wrong-${i}`);
      expectTooMany(await tokenRequest(server, clientId, 'wrong-again'));
      expect((await tokenRequest(server, clientId, clientSecret)).statusCode).toBe(200);
    });

    test('the control plane\'s reset forgets the limits', async ({ server }) => {
      const { clientId, clientSecret } = server.client('primary');
      for (let i = 0; i < 3; i++) await tokenRequest(server, clientId, 'wrong');
      expectTooMany(await tokenRequest(server, clientId, clientSecret));
      expect((await server.control('POST', '/_control/reset')).statusCode).toBe(200);
      expect((await tokenRequest(server, clientId, clientSecret)).statusCode).toBe(200);
    });
  });
});

test.describe('the cost of a failure', () => {
  test.use({ serverOptions: { tokenLimits: { requestsPerSourcePerMinute: 10_000, failuresPerSourcePerMinute: 10_000, failuresPerClientPerMinute: 10_000 } } });

  /** CPU milliseconds of this process (every thread, scrypt's pool included) and the median answer time of `count` sequential requests. */
  async function cost(count: number, send: (i: number) => Promise<unknown>): Promise<{ cpuMs: number; medianMs: number }> {
    const times: number[] = [];
    const before = process.cpuUsage();
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await send(i);
      times.push(performance.now() - started);
    }
    const used = process.cpuUsage(before);
    return { cpuMs: (used.user + used.system) / 1000, medianMs: times.sort((a, b) => a - b)[Math.floor(count / 2)]! };
  }

  test('an unknown client id costs no scrypt, yet is answered no faster than a wrong secret for a known one', async ({ server }, testInfo) => {
    const { clientId } = server.client('primary');
    await tokenRequest(server, 'warm-up', 'x');
    const known = await cost(12, async (i) => expect((await tokenRequest(server, clientId, `wrong-${i}`)).statusCode).toBe(401));
    const unknown = await cost(12, async (i) => expect((await tokenRequest(server, `nobody-${i}`, 'wrong')).statusCode).toBe(401));
    testInfo.annotations.push({ type: 'cost', description: `wrong secret: ${known.cpuMs.toFixed(0)} ms CPU, median ${known.medianMs.toFixed(1)} ms; unknown id: ${unknown.cpuMs.toFixed(0)} ms CPU, median ${unknown.medianMs.toFixed(1)} ms` });
    expect(unknown.cpuMs).toBeLessThan(known.cpuMs / 3);
    expect(unknown.medianMs).toBeGreaterThan(known.medianMs * 0.6);
    expect(unknown.medianMs).toBeLessThan(known.medianMs * 1.6);
  });

  test('a credential verified lately is recognised without scrypt', async ({ server }) => {
    const { clientId, clientSecret } = server.client('primary');
    expect((await tokenRequest(server, clientId, clientSecret)).statusCode).toBe(200);
    const again = await cost(10, async () => expect((await tokenRequest(server, clientId, clientSecret)).statusCode).toBe(200));
    const failing = await cost(10, async (i) => expect((await tokenRequest(server, clientId, `wrong-${i}`)).statusCode).toBe(401));
    expect(again.cpuMs).toBeLessThan(failing.cpuMs / 3);
  });
});
