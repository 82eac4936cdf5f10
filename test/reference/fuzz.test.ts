import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { request } from 'undici';
import { test, expect } from '@playwright/test';
import { startTestServer } from './helpers.ts';

// Thousands of malformed requests (bad JSON, wrong types, huge bodies, odd headers, odd methods)
// against a listening reference: none may be answered 5xx, and the server must stay healthy.
// The generator is seeded; a failure prints the seed and the request.

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
const COUNT = 3000;

test(`malformed requests never get a 5xx (seed ${SEED})`, async () => {
  test.setTimeout(90_000);
  const server = await startTestServer({ synchronous: 'NORMAL' });
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (server.app.server.address() as AddressInfo).port;
  const base = `http://127.0.0.1:${port}`;
  const token = await server.token();
  const numberId = server.client('primary').numbers[0]!.numberId;
  const random = prng(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const junk = (length: number) => Array.from({ length }, () => String.fromCharCode(Math.floor(random() * 0x3000))).join('');

  const paths = ['/api/auth/token', '/api/core/whoami', '/api/core/numbers', '/api/core/numbers/search', `/api/core/numbers/${numberId}`, '/api/core/numbers/%E0%A4%A', '/api/core/messages/send', '/_control/inbound', '/api/core/../core/whoami', `/api/core/numbers/${'x'.repeat(3000)}`, '/'];
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
    () => JSON.stringify({ npa: pick(valueSamples), state: pick(valueSamples), extra: pick(valueSamples) }),
    () => JSON.stringify({ campaignregId: pick(valueSamples), smsEnabled: pick(valueSamples), webhookDeliveryOverride: pick(valueSamples) }),
    () => `grant_type=${encodeURIComponent(junk(5))}&client_id=%%%&client_secret=${junk(3)}`,
    () => 'x'.repeat(300 * 1024),
    () => '',
  ];
  const authorizations = [`Bearer ${token}`, `bearer ${token}`, 'Bearer', `Basic ${Buffer.from('a:b').toString('base64')}`, 'Basic', undefined, `Bearer ${token}x`, junk(10)];

  const failures: string[] = [];
  let sent = 0;
  const worker = async () => {
    while (sent < COUNT) {
      sent += 1;
      const method = pick(methods);
      const path = pick(paths);
      const body = method === 'GET' || method === 'HEAD' ? undefined : pick(bodies)();
      const headers: Record<string, string> = {};
      const contentType = pick(contentTypes);
      if (contentType) headers['content-type'] = contentType;
      const authorization = pick(authorizations);
      if (authorization !== undefined) headers.authorization = authorization.replace(/[^\x20-\x7e]/g, '?');
      if (random() < 0.5) headers['idempotency-key'] = pick(['k', '', ' ', 'x'.repeat(300), junk(4).replace(/[^\x20-\x7e]/g, '?')]);
      try {
        const response = await request(`${base}${path}`, { method, headers, body });
        await response.body.dump();
        if (response.statusCode >= 500) failures.push(`${response.statusCode} for ${method} ${path} ${JSON.stringify(headers)} ${body?.slice(0, 200)}`);
      } catch (error) {
        // The server may close a connection on a request Node's HTTP parser rejects; that is not a 5xx.
        if (!/other side closed|ECONNRESET|socket/i.test(String(error))) failures.push(`${method} ${path}: ${String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));

  // Requests that no HTTP client would build: raw bytes on a socket.
  const rawRequests = [
    'GET /api/core/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \x01\x02\r\n\r\n',
    'POST /api/core/messages/send HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!',
    'POST /api/core/messages/send HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n',
    'BREW /api/core/whoami HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET /api/core/whoami?%zz HTTP/1.1\r\nHost: x\r\n\r\n',
  ];
  for (const raw of rawRequests) {
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(raw));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
    });
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
    if (status >= 500) failures.push(`${status} for raw ${JSON.stringify(raw)}`);
  }

  expect(failures, `seed ${SEED}`).toEqual([]);

  // Still healthy: a normal token, read and send work.
  const whoami = await request(`${base}/api/core/whoami`, { headers: { authorization: `Bearer ${await server.token()}` } });
  expect(whoami.statusCode).toBe(200);
  await whoami.body.dump();
  const sendResponse = await request(`${base}/api/core/messages/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'after-fuzz' },
    body: JSON.stringify({ sendFrom: numberId, to: ['+12025550123'], messageType: 'SMS', externalReference: 'after' }),
  });
  expect(sendResponse.statusCode).toBe(202);
  await sendResponse.body.dump();
  await server.app.close();
  rmSync(server.dir, { recursive: true, force: true });
});
