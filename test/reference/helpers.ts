import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { test as base } from '@playwright/test';
import { buildApp, type BuildOptions } from '../../reference/app.ts';
import type { TargetDescription } from '../../reference/fixtures/out.ts';

export type ClientFixture = TargetDescription['clients'][number];

export interface TestServer {
  app: FastifyInstance;
  dbPath: string;
  target: TargetDescription;
  client(role: 'primary' | 'secondary' | 'special'): ClientFixture;
  token(role?: 'primary' | 'secondary' | 'special'): Promise<string>;
  /** Runs a read-only SQL query against the server's database file. */
  query<T>(sql: string, ...params: unknown[]): T[];
}

export async function startTestServer(options: BuildOptions = {}, dir = mkdtempSync(join(tmpdir(), 'reference-test-'))): Promise<TestServer & { dir: string }> {
  const dbPath = join(dir, 'reference.db');
  const app = await buildApp({ dbPath, control: true, ...options });
  await app.ready();
  const target = app.reference.describe('http://localhost');
  const client = (role: string) => target.clients.find((candidate) => candidate.role === role)!;
  return {
    app,
    dir,
    dbPath,
    target,
    client,
    async token(role = 'primary') {
      const { clientId, clientSecret } = client(role);
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/token',
        payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
      });
      return response.json().access_token as string;
    },
    query<T>(sql: string, ...params: unknown[]) {
      const db = new Database(dbPath, { readonly: true });
      try {
        return db.prepare(sql).all(...params) as T[];
      } finally {
        db.close();
      }
    },
  };
}

/** One Playwright fixture: a fresh reference per test, closed and deleted afterwards. */
export const test = base.extend<{ server: TestServer; serverOptions: BuildOptions }>({
  serverOptions: [{}, { option: true }],
  server: async ({ serverOptions }, use) => {
    const server = await startTestServer(serverOptions);
    await use(server);
    await server.app.close();
    rmSync(server.dir, { recursive: true, force: true });
  },
});
export { expect } from '@playwright/test';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A loopback webhook receiver that records every request and answers with `respond`. */
export async function startReceiver(respond: (request: ReceivedWebhook, index: number) => { status: number; headers?: Record<string, string> } = () => ({ status: 204 })) {
  const received: ReceivedWebhook[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const record = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(record);
      const answer = respond(record, received.length - 1);
      res.writeHead(answer.status, answer.headers).end();
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    /** Waits until at least `count` requests arrived (or fails after timeoutMs). */
    async waitFor(count: number, timeoutMs = 5000): Promise<ReceivedWebhook[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} webhook requests, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export function sendBody(numberId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { sendFrom: numberId, to: ['+12025550123'], messageType: 'SMS', text: 'Hello', externalReference: 'order-1', ...overrides };
}
