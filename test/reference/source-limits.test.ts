import { connect, type AddressInfo, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Agent, request } from 'undici';
import { buildApp, type BuildOptions } from '../../reference/app.ts';
import { sourceOf } from '../../reference/http/sources.ts';
import { test, expect } from '@playwright/test';
import { controlRequest } from './helpers.ts';

// Limits per source address beside the server-wide ones (reference/http/limits.ts): open
// connections, and requests in progress. An earlier reference had only the server-wide cap of
// 1,024 connections: 1,200 idle connections from one address reset 96% of every other client's
// new connections. Loopback aliases stand for two machines: 127.0.0.1 and 127.0.0.2.

let dir: string;
let app: FastifyInstance | undefined;
let baseUrl: string;
const sockets: Socket[] = [];

async function listen(options: BuildOptions = {}): Promise<FastifyInstance> {
  app = await buildApp({ dbPath: join(dir, 'db.sqlite'), ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return app;
}

test.beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reference-sources-'));
});
test.afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await app?.close();
  app = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Opens `count` idle connections from `localAddress`; resolves once each is connected or closed, with those still open after `settleMs`. */
async function idleConnections(count: number, localAddress: string, settleMs = 300): Promise<number> {
  const { port } = new URL(baseUrl);
  const opened = Array.from({ length: count }, () => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress });
    sockets.push(socket);
    socket.on('error', () => undefined);
    return new Promise<void>((resolve) => {
      socket.once('connect', () => resolve());
      socket.once('close', () => resolve());
    });
  });
  await Promise.all(opened);
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  return sockets.filter((socket) => !socket.destroyed && socket.readyState === 'open' && socket.localAddress === localAddress).length;
}

/** A request from `localAddress` on a new connection: its status, or the transport's error code. */
async function statusFrom(localAddress: string, path = '/api/core/whoami'): Promise<number | string> {
  const agent = new Agent({ localAddress });
  try {
    const answer = await request(`${baseUrl}${path}`, { dispatcher: agent, headersTimeout: 3000, bodyTimeout: 3000 });
    await answer.body.dump();
    return answer.statusCode;
  } catch (error) {
    return (error as { code?: string }).code ?? 'error';
  } finally {
    await agent.close().catch(() => undefined);
  }
}

test('a source address is an IPv4 address, an IPv4-mapped one as IPv4, and an IPv6 /64 network', () => {
  expect(sourceOf('192.0.2.7')).toBe('192.0.2.7');
  expect(sourceOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
  expect(sourceOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
  expect(sourceOf('2001:DB8:1:2::ffff')).toBe(sourceOf('2001:db8:1:2:aaaa::1'));
  expect(sourceOf('2001:db8:1:3::1')).not.toBe(sourceOf('2001:db8:1:2::1'));
});

test.describe('open connections per source address', () => {
  test('connections beyond the limit from one address are closed at once; another address is served', async () => {
    await listen({ maxConnectionsPerSource: 5 });
    expect(await idleConnections(8, '127.0.0.1')).toBe(5);
    expect(await statusFrom('127.0.0.2')).toBe(401);
    // The first address is served again as soon as it holds fewer.
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await statusFrom('127.0.0.1')).toBe(401);
  });

  test('with the defaults, a client from another address is answered while one address holds 1,100 idle connections', async () => {
    test.setTimeout(60_000);
    await listen();
    const held = await idleConnections(1100, '127.0.0.1', 500);
    expect(held).toBeLessThan(1024);
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await statusFrom('127.0.0.2'));
    expect(answers).toEqual(Array(10).fill(401));
  });
});

test.describe('requests in progress per source address', () => {
  test('one beyond the limit is 429 with Retry-After, in the CORE wrapper or the OAuth body by its path; another address is served', async () => {
    const server = await listen({ maxRequestsPerSource: 2, control: true, upstreamTimeoutMs: 3000 });
    const token = (await server.inject({ method: 'POST', url: '/api/auth/token', payload: { grant_type: 'client_credentials', client_id: 'demo-primary', client_secret: 'demo-primary-secret' } })).json().access_token as string;
    await controlRequest(server, 'POST', '/_control/upstream', { mode: 'stall' });
    const first = new Agent({ localAddress: '127.0.0.1' });
    const second = new Agent({ localAddress: '127.0.0.2' });
    const search = (dispatcher: Agent) =>
      request(`${baseUrl}/api/core/numbers/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
        dispatcher,
      });
    // Two searches held by the stalled provider: the address's two requests in progress.
    const held = [search(first), search(first)];
    await new Promise((resolve) => setTimeout(resolve, 300));

    const core = await request(`${baseUrl}/api/core/whoami`, { headers: { authorization: `Bearer ${token}` }, dispatcher: first });
    expect(core.statusCode).toBe(429);
    expect(core.headers['retry-after']).toBe('1');
    const coreBody = (await core.body.json()) as { error: { code: string; details: unknown }; requestId: string };
    expect(coreBody).toEqual({ error: { code: 'TOO_MANY_REQUESTS', message: expect.stringContaining('at most 2 at once'), details: { limit: 2, per: 'source address', unit: 'requests in progress' } }, requestId: expect.stringMatching(/^req_/) });
    expect(core.headers['x-request-id']).toBe(coreBody.requestId);

    const oauth = await request(`${baseUrl}/api/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', dispatcher: first });
    expect(oauth.statusCode).toBe(429);
    expect(oauth.headers['retry-after']).toBe('1');
    expect(oauth.headers['cache-control']).toBe('no-store');
    expect(await oauth.body.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringContaining('at most 2 at once') });

    const other = await request(`${baseUrl}/api/core/whoami`, { headers: { authorization: `Bearer ${token}` }, dispatcher: second });
    expect(other.statusCode).toBe(200);
    await other.body.dump();

    await controlRequest(server, 'POST', '/_control/upstream', { mode: 'ok' });
    for (const answer of await Promise.all(held)) await answer.body.dump();
    // Answered, they no longer count.
    const after = await request(`${baseUrl}/api/core/whoami`, { headers: { authorization: `Bearer ${token}` }, dispatcher: first });
    expect(after.statusCode).toBe(200);
    await after.body.dump();
    await Promise.all([first.close(), second.close()]);
  });
});
