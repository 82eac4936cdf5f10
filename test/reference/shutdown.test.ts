import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { test, expect } from '@playwright/test';
import { runServer } from './serverProcess.ts';

// Bounded shutdown (reference/http/shutdown.ts): SIGTERM stops accepting, lets requests in
// progress finish, and after the grace period closes every connection still open. An earlier
// reference never exited while one connection stayed open without a full request: Node stops
// checking its timeouts once the server closes. Nothing acknowledged (answered 2xx) is lost.

let dir: string;
const sockets: Socket[] = [];
test.beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reference-shutdown-'));
});
test.afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** A connection that sent `bytes` and stays open; what the server sends it is collected. */
function holdOpen(baseUrl: string, bytes: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    let received = '';
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      if (bytes) socket.write(bytes);
      resolve({ socket, received: () => received, closed });
    });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    sockets.push(socket);
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
  });
}

test('SIGTERM with an idle, a half-headers and a half-body connection open exits after the grace period; a request in progress is answered first', async () => {
  test.setTimeout(60_000);
  const out = join(dir, 'target.json');
  const server = runServer(['--port', '0', '--db', join(dir, 'db.sqlite'), '--fresh', '--log-level', 'warn', '--fixtures-out', out, '--shutdown-grace', '2', '--upstream-timeout', '1']);
  const baseUrl = await server.listening;
  const primary = (JSON.parse(readFileSync(out, 'utf8')) as { clients: Array<{ role: string; clientId: string; clientSecret: string }> }).clients.find((c) => c.role === 'primary')!;
  const tokenAnswer = await request(`${baseUrl}/api/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: primary.clientId, client_secret: primary.clientSecret }) });
  const { access_token: token } = (await tokenAnswer.body.json()) as { access_token: string };

  const idle = await holdOpen(baseUrl, '');
  const halfHeaders = await holdOpen(baseUrl, 'GET /api/core/whoami HTTP/1.1\r\nHost: x\r\n');
  const halfBody = await holdOpen(baseUrl, 'POST /api/core/messages/send HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sendFrom":');
  // In progress when the signal comes: a search the provider stalls, answered 502 after 1 s.
  const stalled = `{"rateCenter":"UPSTREAM-STALL"}`;
  const inProgress = await holdOpen(baseUrl, `POST /api/core/numbers/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${stalled.length}\r\n\r\n${stalled}`);
  await new Promise((resolve) => setTimeout(resolve, 200));

  const signalled = Date.now();
  server.child.kill('SIGTERM');
  await inProgress.closed;
  expect(inProgress.received()).toMatch(/^HTTP\/1\.1 502 /);
  expect(inProgress.received()).toContain('"providerStatus":"TIMEOUT"');

  expect(await server.exited).toBe(0);
  const tookMs = Date.now() - signalled;
  expect(tookMs).toBeGreaterThanOrEqual(1_900);
  expect(tookMs).toBeLessThan(15_000);
  for (const connection of [idle, halfHeaders, halfBody]) await connection.closed;
  expect(server.stderr()).toContain('still open 2 s after shutdown began');
});

test('every send answered 2xx before or during shutdown is in the database after the process exits', async () => {
  test.setTimeout(60_000);
  const db = join(dir, 'db.sqlite');
  const out = join(dir, 'target.json');
  const server = runServer(['--port', '0', '--db', db, '--fresh', '--log-level', 'warn', '--fixtures-out', out, '--shutdown-grace', '2']);
  const baseUrl = await server.listening;
  const primary = (JSON.parse(readFileSync(out, 'utf8')) as { clients: Array<{ role: string; clientId: string; clientSecret: string; numbers: Array<{ numberId: string; campaignregId: string | null }> }> }).clients.find((c) => c.role === 'primary')!;
  const tokenAnswer = await request(`${baseUrl}/api/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: primary.clientId, client_secret: primary.clientSecret }) });
  const { access_token: token } = (await tokenAnswer.body.json()) as { access_token: string };
  const body = JSON.stringify({ sendFrom: primary.numbers.find((n) => n.campaignregId !== null)!.numberId, to: ['+12025550123'], messageType: 'SMS', text: 'shutdown', externalReference: 'shutdown' });

  const agent = new Agent({ connections: 8 });
  const acknowledged: string[] = [];
  const statuses = new Map<string, number>();
  let stop = false;
  const loop = async () => {
    while (!stop) {
      try {
        const answer = await request(`${baseUrl}/api/core/messages/send`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body, dispatcher: agent });
        const text = await answer.body.text();
        statuses.set(String(answer.statusCode), (statuses.get(String(answer.statusCode)) ?? 0) + 1);
        if (answer.statusCode === 202) acknowledged.push(...(JSON.parse(text) as { results: Array<{ messageId: string }> }).results.map((r) => r.messageId));
      } catch (error) {
        const code = (error as { code?: string }).code ?? 'error';
        statuses.set(code, (statuses.get(code) ?? 0) + 1);
        // Refused: the server no longer listens.
        if (code === 'ECONNREFUSED') return;
      }
    }
  };
  const loops = Array.from({ length: 8 }, () => loop());
  await new Promise((resolve) => setTimeout(resolve, 500));
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  stop = true;
  await Promise.all(loops);
  await agent.close();

  expect(acknowledged.length, JSON.stringify(Object.fromEntries(statuses))).toBeGreaterThan(0);
  const stored = new Database(db, { readonly: true });
  try {
    const ids = new Set((stored.prepare('SELECT message_id FROM messages').all() as Array<{ message_id: string }>).map((row) => row.message_id));
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);
  } finally {
    stored.close();
  }
});
