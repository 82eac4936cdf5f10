import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { test as base } from '@playwright/test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp, type BuildOptions } from '../../reference/app.ts';
import type { TargetDescription } from '../../reference/fixtures/out.ts';

export type ClientFixture = TargetDescription['clients'][number];
/** The roles of the demo fixtures (reference/fixtures/demo.ts). */
export type Role = 'primary' | 'secondary' | 'special' | 'brief';

export interface TestServer {
  app: FastifyInstance;
  dbPath: string;
  target: TargetDescription;
  client(role: Role): ClientFixture;
  /** Issues a new token (a token request each call). */
  token(role?: Role): Promise<string>;
  /** One token per role for the whole test, issued on first use (client secrets are scrypt-hashed, so each issue costs). */
  sharedToken(role?: Role): Promise<string>;
  /** Runs a read-only SQL query against the server's database file. */
  query<T>(sql: string, ...params: unknown[]): T[];
  /** A request to the test-control plane, with its token (the plane is never open). */
  control(method: 'POST' | 'PUT', url: string, payload?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

/** A request to an app's control plane with the app's control token. */
export function controlRequest(app: FastifyInstance, method: 'POST' | 'PUT', url: string, payload?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method, url, headers: { authorization: `Bearer ${app.reference.controlToken}`, ...headers }, ...(payload !== undefined && { payload: payload as object }) });
}

export async function startTestServer(options: BuildOptions = {}, dir = mkdtempSync(join(tmpdir(), 'reference-test-'))): Promise<TestServer & { dir: string }> {
  const dbPath = join(dir, 'reference.db');
  // The tests' webhook receivers listen on loopback, which the reference refuses unless allowed.
  // A receiver that never answers is given up after 2 s, as a certification run of the bundled reference does (harness/embedded-reference.ts).
  const app = await buildApp({ dbPath, control: true, allowWebhookHosts: ['127.0.0.1'], webhookTimeoutMs: 2_000, ...options });
  await app.ready();
  const target = app.reference.describe('http://localhost');
  const client = (role: string) => target.clients.find((candidate) => candidate.role === role)!;
  // The token endpoint limits requests per source: a test that asks for many tokens waits out its
  // 429 (Retry-After) as a client would, and a token that is still not issued is an error here,
  // not a request that fails later with "Bearer undefined".
  const token = async (role = 'primary') => {
    const { clientId, clientSecret } = client(role);
    for (let attempt = 1; ; attempt++) {
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/token',
        payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
      });
      if (response.statusCode === 429 && attempt < 5) {
        await sleep(Math.min(10, Number(response.headers['retry-after']) || 1) * 1000);
        continue;
      }
      const issued: unknown = response.json().access_token;
      if (typeof issued !== 'string') throw new Error(`no token for ${role}: ${response.statusCode} ${response.body}`);
      return issued;
    }
  };
  const shared = new Map<string, Promise<string>>();
  return {
    app,
    dir,
    dbPath,
    target,
    client,
    token,
    sharedToken(role = 'primary') {
      if (!shared.has(role)) shared.set(role, token(role));
      return shared.get(role)!;
    },
    control: (method, url, payload, headers) => controlRequest(app, method, url, payload, headers),
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

async function stopTestServer(server: TestServer & { dir: string }): Promise<void> {
  await server.app.close();
  rmSync(server.dir, { recursive: true, force: true });
}

// Options are compared by value; fault sets are Sets, which JSON would turn into {}.
const optionsKey = (options: BuildOptions) => JSON.stringify(options, (_key, value: unknown) => (value instanceof Set ? [...value].sort() : value));

// Apps kept per worker. Tests of one describe share options, so a small number suffices; an app
// pushed out is closed.
const POOL_SIZE = 2;

/**
 * Reference servers shared by the tests of one file that ask for the same options, instead of
 * one server (database, writer thread, upstream simulator, seeding with scrypt) per test. Each
 * test still starts from the seeded state: the control plane's reset runs before it, and the
 * token cache of the test is its own. Servers built without the control plane cannot be reset
 * and are never shared.
 */
class ServerPool {
  private readonly servers = new Map<string, TestServer & { dir: string }>();
  private file: string | undefined;

  async acquire(file: string, options: BuildOptions): Promise<{ server: TestServer; release(): Promise<void> }> {
    if (options.control === false) {
      const server = await startTestServer(options);
      return { server, release: () => stopTestServer(server) };
    }
    if (file !== this.file) {
      await this.closeAll();
      this.file = file;
    }
    const key = optionsKey(options);
    let server = this.servers.get(key);
    if (server) {
      this.servers.delete(key);
      const reset = await server.control('POST', '/_control/reset');
      if (reset.statusCode !== 200) throw new Error(`resetting the shared reference failed: ${reset.statusCode} ${reset.body}`);
    } else {
      server = await startTestServer(options);
      for (const [oldKey, old] of [...this.servers].slice(0, Math.max(0, this.servers.size - POOL_SIZE + 1))) {
        this.servers.delete(oldKey);
        await stopTestServer(old);
      }
    }
    // Most recently used last.
    this.servers.set(key, server);
    const shared = new Map<string, Promise<string>>();
    const perTest: TestServer = {
      ...server,
      sharedToken(role = 'primary') {
        if (!shared.has(role)) shared.set(role, server.token(role));
        return shared.get(role)!;
      },
    };
    return { server: perTest, release: async () => undefined };
  }

  async closeAll(): Promise<void> {
    const servers = [...this.servers.values()];
    this.servers.clear();
    for (const server of servers) await stopTestServer(server);
  }
}

/**
 * The `server` fixture: a reference in the seeded state for each test, shared within a file
 * (see ServerPool). `serverOptions` (test.use) selects the server's build options.
 */
export const test = base.extend<{ server: TestServer; serverOptions: BuildOptions }, { serverPool: ServerPool }>({
  serverOptions: [{}, { option: true }],
  serverPool: [
    async ({}, use) => {
      const pool = new ServerPool();
      await use(pool);
      await pool.closeAll();
    },
    { scope: 'worker' },
  ],
  server: async ({ serverOptions, serverPool }, use, testInfo) => {
    const { server, release } = await serverPool.acquire(testInfo.file, serverOptions);
    await use(server);
    await release();
  },
});
export { expect } from '@playwright/test';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A loopback webhook receiver that records every request and answers with `respond` ('reset': its connection is reset, no answer). */
export async function startReceiver(respond: (request: ReceivedWebhook, index: number) => { status: number; headers?: Record<string, string> } | 'reset' = () => ({ status: 204 })) {
  const received: ReceivedWebhook[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const record = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(record);
      const answer = respond(record, received.length - 1);
      if (answer === 'reset') req.socket.resetAndDestroy();
      else res.writeHead(answer.status, answer.headers).end();
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
