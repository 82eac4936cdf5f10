import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { request } from 'undici';
import { test, expect } from '@playwright/test';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';

// Malformed requests (bad JSON, wrong types, huge bodies, odd headers, odd methods): none may be
// answered 5xx, every answer is in the contract of its path (the OAuth body on the token
// endpoint, the CORE wrapper with a requestId everywhere else), and the server stays healthy.
// Ten thousand go through inject() (seconds, no sockets); three thousand more and requests no
// HTTP client would build go over real sockets, through Node's HTTP parser. The generator is
// seeded; a failure prints the seed and the request.

function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const SOCKET_COUNT = 3000;
const INJECT_COUNT = 10_000;


interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Malformed requests drawn from `random`, aimed at the server's routes with its real ids and a live token. */
function requestGenerator(random: () => number, token: string, numberId: string) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const junk = (length: number) => Array.from({ length }, () => String.fromCharCode(Math.floor(random() * 0x3000))).join('');

  const paths = ['/api/auth/token', '/api/auth/token?client_secret=x', '/api/core/whoami', '/api/core/numbers', '/api/core/numbers/search', `/api/core/numbers/${numberId}`, '/api/core/numbers/%E0%A4%A', '/api/core/messages/send', '/_control/inbound', '/api/core/../core/whoami', `/api/core/numbers/${'x'.repeat(3000)}`, '/', '/api/core', '/api/core/messages/send?x=%zz'];
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'TRACE'];
  const contentTypes = ['application/json', 'application/json; charset=latin1', 'application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', 'application/octet-stream', '', 'application/json;;;'];
  const valueSamples: unknown[] = [null, true, 0, -1, 1e308, '', 'x', '+12025550123', [], {}, [null], { __proto__: { polluted: true } }, 'a'.repeat(5000), numberId];
  const bodies = [
    () => '{',
    () => '{"sendFrom":',
    () => junk(50),
    () => '[]'.repeat(100),
    () => '['.repeat(5000) + ']'.repeat(5000),
    () => '{"__proto__":{"x":1}}',
    () => '{"constructor":{"prototype":{"x":1}}}',
    () => JSON.stringify({ sendFrom: pick(valueSamples), to: pick(valueSamples), messageType: pick(valueSamples), text: pick(valueSamples), media: pick(valueSamples), externalReference: pick(valueSamples) }),
    () => JSON.stringify({ sendFrom: numberId, to: [pick(valueSamples)], messageType: pick(['SMS', 'MMS']), externalReference: 'f', media: pick([undefined, [], [{}], [{ url: pick(valueSamples), contentType: pick(valueSamples) }]]) }),
    () => JSON.stringify({ sendFrom: numberId, to: Array.from({ length: pick([1, 100, 101, 500]) }, () => '+12025550123'), messageType: 'SMS', externalReference: 'r'.repeat(pick([1, 256, 257, 100_000])) }),
    () => JSON.stringify({ npa: pick(valueSamples), state: pick(valueSamples), extra: pick(valueSamples) }),
    () => JSON.stringify({ campaignregId: pick(valueSamples), smsEnabled: pick(valueSamples), webhookDeliveryOverride: pick([...valueSamples, 'http://169.254.169.254/', 'http://[::ffff:127.0.0.1]/', 'http://10.0.0.1/', 'ftp://x/']) }),
    () => `grant_type=${encodeURIComponent(junk(5))}&client_id=%%%&client_secret=${junk(3)}`,
    () => JSON.stringify({ grant_type: pick(['client_credentials', 'password', '', null]), client_id: pick(valueSamples), client_secret: pick(valueSamples) }),
    () => 'x'.repeat(300 * 1024),
    () => '',
  ];
  const authorizations = [`Bearer ${token}`, `bearer ${token}`, 'Bearer', `Basic ${Buffer.from('a:b').toString('base64')}`, 'Basic', undefined, `Bearer ${token}x`, junk(10)];

  return (): FuzzRequest => {
    const method = pick(methods);
    const path = pick(paths);
    const body = method === 'GET' || method === 'HEAD' ? undefined : pick(bodies)();
    const headers: Record<string, string> = {};
    const contentType = pick(contentTypes);
    if (contentType) headers['content-type'] = contentType;
    const authorization = pick(authorizations);
    if (authorization !== undefined) headers.authorization = authorization.replace(/[^\x20-\x7e]/g, '?');
    if (random() < 0.5) headers['idempotency-key'] = pick(['k', '', ' ', 'x'.repeat(300), junk(4).replace(/[^\x20-\x7e]/g, '?')]);
    if (random() < 0.05) headers.expect = pick(['100-continue', 'something-else']);
    return { method, path, headers, body };
  };
}

/**
 * What is wrong with an answer, or undefined: a 5xx, or a body outside the contract of its path
 * (the OAuth body with no-store on the token endpoint, the CORE wrapper with its requestId in
 * x-request-id everywhere else).
 */
function contractBreach(request: FuzzRequest, status: number, headers: Record<string, unknown>, text: string): string | undefined {
  if (status >= 500) return `status ${status}`;
  if (request.method === 'HEAD' || status < 400) return undefined;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `a body that is not JSON: ${text.slice(0, 100)}`;
  }
  if (request.path.split('?')[0] === '/api/auth/token') {
    if (typeof body?.error !== 'string' || headers['cache-control'] !== 'no-store') return `not the OAuth error body: ${text.slice(0, 200)}`;
    return undefined;
  }
  const wrapped = typeof body?.error?.code === 'string' && typeof body.error.message === 'string' && typeof body.error.details === 'object' && typeof body.requestId === 'string';
  if (!wrapped) return `not the CORE wrapper: ${text.slice(0, 200)}`;
  if (headers['x-request-id'] !== body.requestId) return `x-request-id ${String(headers['x-request-id'])} is not requestId ${body.requestId}`;
  return undefined;
}

/** A normal token, read and send still work. */
async function stillHealthy(server: TestServer, base: string | undefined, numberId: string): Promise<void> {
  const token = await server.token();
  const send = { sendFrom: numberId, to: ['+12025550123'], messageType: 'SMS', externalReference: 'after' };
  if (base === undefined) {
    expect((await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
    const sent = await server.app.inject({ method: 'POST', url: '/api/core/messages/send', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'after-fuzz' }, payload: send });
    expect(sent.statusCode).toBe(202);
    return;
  }
  const whoami = await request(`${base}/api/core/whoami`, { headers: { authorization: `Bearer ${token}` } });
  expect(whoami.statusCode).toBe(200);
  await whoami.body.dump();
  const sent = await request(`${base}/api/core/messages/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'after-fuzz' },
    body: JSON.stringify(send),
  });
  expect(sent.statusCode).toBe(202);
  await sent.body.dump();
}

// The fuzz is about malformed input, not the token endpoint's rate limits (token-limits.test.ts).
const UNLIMITED = { tokenLimits: { requestsPerSourcePerMinute: 1e6, failuresPerSourcePerMinute: 1e6, failuresPerClientPerMinute: 1e6 } };

test(`${INJECT_COUNT} malformed requests through inject(): no 5xx, every answer in its path's contract (seed ${SEED})`, async () => {
  test.setTimeout(120_000);
  const server = await startTestServer({ synchronous: 'NORMAL', ...UNLIMITED });
  try {
    const numberId = server.client('primary').numbers[0]!.numberId;
    const next = requestGenerator(prng(SEED), await server.token(), numberId);
    const failures: string[] = [];
    let sent = 0;
    const worker = async () => {
      while (sent < INJECT_COUNT) {
        sent += 1;
        const fuzz = next();
        const response = await server.app.inject({ method: fuzz.method as 'GET', url: fuzz.path, headers: fuzz.headers, ...(fuzz.body !== undefined && { payload: fuzz.body }) });
        const breach = contractBreach(fuzz, response.statusCode, response.headers, response.body);
        if (breach) failures.push(`${breach} for ${fuzz.method} ${fuzz.path.slice(0, 80)} ${JSON.stringify(fuzz.headers).slice(0, 200)} ${fuzz.body?.slice(0, 100)}`);
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    expect(failures.slice(0, 20), `seed ${SEED}: ${failures.length} of ${INJECT_COUNT} broke the contract`).toEqual([]);
    await stillHealthy(server, undefined, numberId);
  } finally {
    await server.app.close();
    rmSync(server.dir, { recursive: true, force: true });
  }
});

test(`${SOCKET_COUNT} malformed requests over sockets and raw bytes: no 5xx, parser refusals in the contract too (seed ${SEED})`, async () => {
  test.setTimeout(90_000);
  const server = await startTestServer({ synchronous: 'NORMAL', ...UNLIMITED });
  try {
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (server.app.server.address() as AddressInfo).port;
    const base = `http://127.0.0.1:${port}`;
    const numberId = server.client('primary').numbers[0]!.numberId;
    const next = requestGenerator(prng(SEED + 1), await server.token(), numberId);

    const failures: string[] = [];
    let sent = 0;
    const worker = async () => {
      while (sent < SOCKET_COUNT) {
        sent += 1;
        const fuzz = next();
        // undici sends no Expect header; the raw requests below carry one.
        delete fuzz.headers.expect;
        try {
          const response = await request(`${base}${fuzz.path}`, { method: fuzz.method, headers: fuzz.headers, body: fuzz.body });
          const breach = contractBreach(fuzz, response.statusCode, response.headers, await response.body.text());
          if (breach) failures.push(`${breach} for ${fuzz.method} ${fuzz.path.slice(0, 80)} ${JSON.stringify(fuzz.headers).slice(0, 200)} ${fuzz.body?.slice(0, 200)}`);
        } catch (error) {
          // A client may see the connection end while it still sends a refused body; not a 5xx.
          if (!/other side closed|ECONNRESET|EPIPE|socket/i.test(String(error))) failures.push(`${fuzz.method} ${fuzz.path}: ${String(error)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));

    // Requests that no HTTP client would build: raw bytes on a socket, each refused by Node's
    // parser or below the routes, and still answered in the contract of its path.
    const rawRequests: Array<[string, string]> = [
      ['/api/core/whoami', 'GET /api/core/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \x01\x02\r\n\r\n'],
      ['/api/core/messages/send', 'POST /api/core/messages/send HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!'],
      ['/api/core/messages/send', 'POST /api/core/messages/send HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n'],
      ['/api/core/whoami', 'BREW /api/core/whoami HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['/api/core/whoami', 'GET /api/core/whoami?%zz HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['/api/core/whoami', `GET /api/core/whoami HTTP/1.1\r\nHost: x\r\nX-Filler: ${'f'.repeat(20_000)}\r\n\r\n`],
      ['/api/core/whoami', 'GET /api/core/whoami HTTP/1.1\r\n\r\n'],
      ['/api/core/messages/send', 'POST /api/core/messages/send HTTP/1.1\r\nHost: x\r\nExpect: nothing\r\nContent-Length: 0\r\n\r\n'],
      ['/api/auth/token', `POST /api/auth/token HTTP/1.1\r\nHost: x\r\nX-Filler: ${'f'.repeat(20_000)}\r\n\r\n`],
      ['/api/auth/token', 'PROPFIND /api/auth/token HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['/api/core/numbers', 'GET /api/core/numbers HTTP/1.1\r\nHost: x\r\nBad header line\r\n\r\n'],
    ];
    for (const [path, raw] of rawRequests) {
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(raw));
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString()));
        socket.on('close', () => resolve(data));
        socket.on('error', () => resolve(data));
      });
      const [head = '', ...rest] = answer.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const headers = Object.fromEntries(head.split('\r\n').slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const length = Number(headers['content-length'] ?? 0);
      const breach = status === 0 ? 'no answer' : contractBreach({ method: 'POST', path, headers: {} }, status, headers, rest.join('\r\n\r\n').slice(0, length));
      if (breach) failures.push(`${breach} for raw ${JSON.stringify(raw.slice(0, 120))}`);
    }

    expect(failures.slice(0, 20), `seed ${SEED + 1}: ${failures.length} broke the contract`).toEqual([]);
    await stillHealthy(server, base, numberId);
  } finally {
    await server.app.close();
    rmSync(server.dir, { recursive: true, force: true });
  }
});
