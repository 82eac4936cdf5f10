import { connect, type AddressInfo, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type BuildOptions } from '../../reference/app.ts';
import { test, expect } from '@playwright/test';
import { controlRequest } from './helpers.ts';

// The edges of HTTP the routes never see (reference/http/): timeouts and the connection cap,
// what Node's parser refuses, Expect, a missing Host, shutdown, 405 on the token path, a
// repeated Idempotency-Key, and a 413 that reaches a client still sending its body. Each
// answer is in the contract of its path: the CORE wrapper with a requestId, or the OAuth body
// on the token endpoint. Raw sockets, since no HTTP client sends most of these.

let dir: string;
let app: FastifyInstance | undefined;
let port: number;

async function listen(options: BuildOptions = {}): Promise<FastifyInstance> {
  app = await buildApp({ dbPath: join(dir, 'db.sqlite'), ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
  return app;
}

test.beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reference-edge-'));
});
test.afterEach(async () => {
  await app?.close();
  app = undefined;
  rmSync(dir, { recursive: true, force: true });
});

interface Exchange {
  /** Everything the server sent. */
  data: string;
  /** A socket error the client saw (a reset, or a write after one), if any. */
  error?: string;
  /** Milliseconds from connecting to the connection's close. */
  closedAfterMs: number;
}

/**
 * Writes `chunks` (with `pauseMs` before each after the first) and collects the answer until the
 * server closes, or `timeoutMs`. Like an HTTP client busy uploading, it goes on writing after the
 * server has closed its side, and closes its own once it has written everything.
 */
function exchange(chunks: Array<string | Buffer>, { pauseMs = 0, timeoutMs = 8000 } = {}): Promise<Exchange> {
  return new Promise((resolve) => {
    const started = Date.now();
    let data = '';
    let error: string | undefined;
    let written = false;
    let serverEnded = false;
    const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, async () => {
      for (const [index, chunk] of chunks.entries()) {
        if (index > 0 && pauseMs > 0) await new Promise((wake) => setTimeout(wake, pauseMs));
        if (socket.destroyed) break;
        socket.write(chunk);
      }
      written = true;
      if (serverEnded) socket.end();
    });
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('end', () => {
      serverEnded = true;
      if (written) socket.end();
    });
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ data, error, closedAfterMs: Date.now() - started });
    });
  });
}

/** The status, headers and JSON body of the first answer in `data`. */
function firstAnswer(data: string): { status: number; headers: Record<string, string>; body: any } {
  const [head = '', ...rest] = data.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const length = Number(headers['content-length'] ?? 0);
  const text = rest.join('\r\n\r\n').slice(0, length);
  return { status: Number(statusLine.split(' ')[1]), headers, body: text ? JSON.parse(text) : undefined };
}

function expectCoreError(data: string, status: number, code: string): void {
  const answer = firstAnswer(data);
  expect(answer.status, data.slice(0, 300)).toBe(status);
  expect(answer.body).toEqual({ error: { code, message: expect.any(String), details: expect.any(Object) }, requestId: expect.stringMatching(/^req_/) });
  expect(answer.headers['x-request-id']).toBe(answer.body.requestId);
}

async function tokenOf(server: FastifyInstance): Promise<string> {
  const response = await server.inject({ method: 'POST', url: '/api/auth/token', payload: { grant_type: 'client_credentials', client_id: 'demo-primary', client_secret: 'demo-primary-secret' } });
  return response.json().access_token;
}

test.describe('timeouts and the connection cap', () => {
  test('a request whose body stalls is answered 408 in the CORE wrapper and closed once the request timeout passes', async () => {
    const server = await listen({ requestTimeoutMs: 1000, headersTimeoutMs: 500 });
    const token = await tokenOf(server);
    const stalled = await exchange([
      `POST /api/core/messages/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: k\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sendFrom":`,
    ]);
    expectCoreError(stalled.data, 408, 'REQUEST_TIMEOUT');
    expect(stalled.closedAfterMs).toBeLessThan(3000);
  });

  test('a token request whose body stalls is answered 408 in the OAuth body', async () => {
    await listen({ requestTimeoutMs: 1000, headersTimeoutMs: 500 });
    const stalled = await exchange(['POST /api/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"grant_type":']);
    const answer = firstAnswer(stalled.data);
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    expect(stalled.closedAfterMs).toBeLessThan(3000);
  });

  test('a request whose headers stall is answered 408 once the headers timeout passes', async () => {
    await listen({ requestTimeoutMs: 5000, headersTimeoutMs: 500 });
    const stalled = await exchange(['GET /api/core/whoami HTTP/1.1\r\nHost: x\r\n']);
    expectCoreError(stalled.data, 408, 'REQUEST_TIMEOUT');
    expect(stalled.closedAfterMs).toBeLessThan(2500);
  });

  test('a connection beyond --max-connections is closed at once, and the ones within it are served', async () => {
    await listen({ maxConnections: 2 });
    const held = [connect(port, '127.0.0.1'), connect(port, '127.0.0.1')];
    try {
      await Promise.all(held.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const beyond = await exchange(['GET /api/core/whoami HTTP/1.1\r\nHost: x\r\n\r\n'], { timeoutMs: 3000 });
      expect(beyond.data).toBe('');
      expect(beyond.closedAfterMs).toBeLessThan(1000);
    } finally {
      for (const socket of held) socket.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const within = await exchange(['GET /api/core/whoami HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    expectCoreError(within.data, 401, 'UNAUTHORIZED');
  });
});

test.describe("what Node's HTTP parser refuses, and other answers below the routes", () => {
  test('headers over 16 KiB on a core path are 431 in the CORE wrapper with a requestId', async () => {
    await listen();
    const answer = await exchange([`GET /api/core/whoami HTTP/1.1\r\nHost: x\r\nX-Filler: ${'f'.repeat(20 * 1024)}\r\n\r\n`]);
    expectCoreError(answer.data, 431, 'HEADERS_TOO_LARGE');
  });

  test('a malformed header line on a core path is 400 INVALID_REQUEST in the CORE wrapper', async () => {
    await listen();
    expectCoreError((await exchange(['GET /api/core/numbers HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n'])).data, 400, 'INVALID_REQUEST');
  });

  test('two Content-Length headers are 400 INVALID_REQUEST in the CORE wrapper', async () => {
    await listen();
    const answer = await exchange(['POST /api/core/messages/send HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!']);
    expectCoreError(answer.data, 400, 'INVALID_REQUEST');
  });

  test('an HTTP/1.1 request without Host is 400 INVALID_REQUEST in the CORE wrapper', async () => {
    await listen();
    const answer = await exchange(['GET /api/core/whoami HTTP/1.1\r\nConnection: close\r\n\r\n']);
    expectCoreError(answer.data, 400, 'INVALID_REQUEST');
    expect(firstAnswer(answer.data).body.error.message).toContain('Host');
  });

  test('an Expect header other than 100-continue is 417 in the CORE wrapper, and in the OAuth body on the token path', async () => {
    await listen();
    expectCoreError((await exchange(['POST /api/core/messages/send HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 0\r\n\r\n'])).data, 417, 'EXPECTATION_FAILED');
    const token = firstAnswer((await exchange(['POST /api/auth/token HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 0\r\n\r\n'])).data);
    expect(token.status).toBe(417);
    expect(token.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    expect(token.headers['cache-control']).toBe('no-store');
  });

  test('a parser refusal on the token path is answered in the OAuth body', async () => {
    await listen();
    const answer = firstAnswer((await exchange([`POST /api/auth/token HTTP/1.1\r\nHost: x\r\nX-Filler: ${'f'.repeat(20 * 1024)}\r\n\r\n`])).data);
    expect(answer.status).toBe(431);
    expect(answer.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  test('a request that arrives while the server shuts down is 503 SERVICE_UNAVAILABLE in the CORE wrapper, with Retry-After', async () => {
    // The first request is held by a stalled provider, which keeps the connection open; the
    // second is sent on it after close() began.
    const server = await listen({ upstreamTimeoutMs: 1500, control: true });
    await controlRequest(server, 'POST', '/_control/upstream', { mode: 'stall' });
    const token = await tokenOf(server);
    const search = `POST /api/core/numbers/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
    const whoami = `GET /api/core/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`;
    const answers = exchange([search, whoami], { pauseMs: 600 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const closed = server.close();
    const { data } = await answers;
    await closed;
    app = undefined;
    const second = data.slice(data.indexOf('HTTP/1.1', 10));
    expectCoreError(second, 503, 'SERVICE_UNAVAILABLE');
    expect(firstAnswer(second).headers['retry-after']).toBe('1');
  });
});

test.describe('the token path and the send headers', () => {
  test('every method but POST on the token path is 405 with Allow: POST in the OAuth body, the router\'s unknown ones too', async () => {
    await listen();
    for (const method of ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'MKCOL']) {
      const answer = firstAnswer((await exchange([`${method} /api/auth/token HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`])).data);
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow, method).toBe('POST');
      expect(answer.headers['cache-control'], method).toBe('no-store');
      if (method !== 'HEAD') expect(answer.body, method).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
  });

  test('a repeated Idempotency-Key header is 400 INVALID_REQUEST, not one key "a, b"', async () => {
    const server = await listen();
    const token = await tokenOf(server);
    const numberId = server.reference.describe('http://x').clients[0]!.numbers[0]!.numberId;
    const body = JSON.stringify({ sendFrom: numberId, to: ['+12025550123'], messageType: 'SMS', externalReference: 'twice' });
    const answer = await exchange([
      `POST /api/core/messages/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: a\r\nIdempotency-Key: b\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ]);
    expectCoreError(answer.data, 400, 'INVALID_REQUEST');
    expect(firstAnswer(answer.data).body.error.details).toEqual({ header: 'Idempotency-Key', reason: 'repeated' });
  });

  test('a 413 reaches a client that goes on sending its 1 MiB body, and the connection ends without a reset', async () => {
    const server = await listen();
    const token = await tokenOf(server);
    const size = 1024 * 1024;
    const head = `POST /api/core/messages/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: big\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;
    // The 413 is sent as soon as Content-Length is read; the rest of the body follows after it.
    const body = Buffer.alloc(size, 'x');
    const chunks = [head, ...Array.from({ length: 16 }, (_, i) => body.subarray(i * (size / 16), (i + 1) * (size / 16)))];
    const answer = await exchange(chunks, { pauseMs: 20 });
    expectCoreError(answer.data, 413, 'PAYLOAD_TOO_LARGE');
    expect(answer.error, 'the client saw a reset').toBeUndefined();
  });
});

/** Every answer in `data`, in order. */
function allAnswers(data: string): Array<ReturnType<typeof firstAnswer>> {
  return data
    .split(/(?=HTTP\/1\.1 \d{3} )/)
    .filter((part) => part.startsWith('HTTP/1.1'))
    .map(firstAnswer);
}

const OAUTH_ERROR = { error: expect.any(String), error_description: expect.any(String) };
const CORE_ERROR = { error: { code: expect.any(String), message: expect.any(String), details: expect.any(Object) }, requestId: expect.stringMatching(/^req_/) };

// RFC 9110 8.4 and 15.5.16: a content coding the server does not decode is 415. An earlier
// reference read a body labelled Content-Encoding: gzip as plain JSON.
test.describe('a request body in a content coding', () => {
  test('is 415 with Accept-Encoding: identity, in the CORE wrapper on a core path and in the OAuth body on the token path', async () => {
    const server = await listen();
    const token = await tokenOf(server);
    for (const encoding of ['gzip', 'br', 'deflate, identity', 'x-unknown']) {
      const core = await server.inject({ method: 'POST', url: '/api/core/numbers/search', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': encoding }, payload: '{}' });
      expect(core.statusCode, encoding).toBe(415);
      expect(core.headers['accept-encoding']).toBe('identity');
      expect(core.json()).toEqual({ error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('Content-Encoding'), details: { header: 'Content-Encoding', supported: ['identity'] } }, requestId: core.headers['x-request-id'] });
      const oauth = await server.inject({ method: 'POST', url: '/api/auth/token', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': encoding }, payload: 'grant_type=client_credentials&client_id=demo-primary&client_secret=demo-primary-secret' });
      expect(oauth.statusCode, encoding).toBe(415);
      expect(oauth.headers['accept-encoding']).toBe('identity');
      expect(oauth.headers['cache-control']).toBe('no-store');
      expect(oauth.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('Content-Encoding') });
    }
  });

  test('identity is the body as sent, and a 415 for a media type does not carry Accept-Encoding (RFC 9110 12.5.3)', async () => {
    const server = await listen();
    const token = await tokenOf(server);
    const identity = await server.inject({ method: 'POST', url: '/api/core/numbers/search', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': 'identity' }, payload: '{}' });
    expect(identity.statusCode).toBe(200);
    const mediaType = await server.inject({ method: 'POST', url: '/api/core/numbers/search', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, payload: '{}' });
    expect(mediaType.statusCode).toBe(415);
    expect(mediaType.headers['accept-encoding']).toBeUndefined();
  });
});

// The contract of an answer follows the route the router matches: an earlier reference compared
// raw paths, so a percent-encoded token path, a request without Host outside the token route, and
// a parser refusal of the second request on a keep-alive connection came in the other format.
test.describe('the error format follows the route the router matches', () => {
  test('the token path percent-encoded is the token path: 405 for GET, 431 for headers too large, in the OAuth body', async () => {
    await listen();
    const get = firstAnswer((await exchange(['GET /api/auth/%74oken HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'])).data);
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect(get.body).toEqual(OAUTH_ERROR);
    const large = firstAnswer((await exchange([`POST /api/auth/%74ok%65n HTTP/1.1\r\nHost: x\r\nX-Filler: ${'f'.repeat(20 * 1024)}\r\n\r\n`])).data);
    expect(large.status).toBe(431);
    expect(large.body).toEqual(OAUTH_ERROR);
    // An encoded slash is not a slash to the router: that path is not the token path.
    const slash = firstAnswer((await exchange(['POST /api/auth%2Ftoken HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'])).data);
    expect(slash.status).toBe(404);
    expect(slash.body).toEqual(CORE_ERROR);
  });

  test('a request without Host on the token path is 400 in the OAuth body, whatever its method', async () => {
    await listen();
    for (const method of ['GET', 'POST', 'PROPFIND']) {
      const answer = firstAnswer((await exchange([`${method} /api/auth/token HTTP/1.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`])).data);
      expect(answer.status, method).toBe(400);
      expect(answer.body, method).toEqual(OAUTH_ERROR);
    }
  });

  test('a parser refusal of a request pipelined behind another is in its own path\'s format, after the first one\'s answer', async () => {
    await listen();
    const token = 'POST /api/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}';
    const whoami = 'GET /api/core/whoami HTTP/1.1\r\nHost: x\r\n\r\n';
    const cases: Array<[string, string, Array<[number, object]>]> = [
      ['a malformed core request behind a token request', `${token}GET /api/core/whoami HTTP/1.1\r\nNot a header\r\n\r\n`, [[400, OAUTH_ERROR], [400, CORE_ERROR]]],
      ['a malformed token request behind a core request', `${whoami}POST /api/auth/token HTTP/1.1\r\nNot a header\r\n\r\n`, [[401, CORE_ERROR], [400, OAUTH_ERROR]]],
      ['bytes that are no request behind a token request', `${token}garbage\r\n\r\n`, [[400, OAUTH_ERROR], [400, CORE_ERROR]]],
    ];
    for (const [label, bytes, expected] of cases) {
      const answers = allAnswers((await exchange([bytes])).data);
      expect(answers.map((answer) => [answer.status, answer.body]), label).toEqual(expected);
    }
    // Sent apart, in two packets, the same.
    const apart = allAnswers((await exchange([whoami, 'POST /api/auth/token HTTP/1.1\r\nNot a header\r\n\r\n'], { pauseMs: 100 })).data);
    expect(apart.map((answer) => [answer.status, answer.body])).toEqual([[401, CORE_ERROR], [400, OAUTH_ERROR]]);
  });
});
