import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { test, expect } from '@playwright/test';
import { startReceiver } from './helpers.ts';
import { runServer } from './serverProcess.ts';

// Durability: every send answered QUEUED is committed before the answer, so a kill -9 in the
// middle of a burst loses none of them, a restart delivers their webhooks, and nothing is
// created twice.

test('kill -9 during a burst of sends: every QUEUED send survives, gets its webhook, nothing is duplicated', async () => {
  test.setTimeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'reference-crash-'));
  const receiver = await startReceiver();
  const fixtures = join(dir, 'fixtures.json');
  writeFileSync(
    fixtures,
    JSON.stringify({
      clients: [{ role: 'primary', clientId: 'crash', clientSecret: 'crash-secret', webhooks: { delivery: `${receiver.url}/delivery` }, numbers: [{ numberId: 'num_crash', phoneNumber: '+12025550100', campaignregId: 'C1' }] }],
    }),
  );
  const dbPath = join(dir, 'crash.db');
  const args = ['--port', '0', '--db', dbPath, '--fixtures', fixtures, '--log-level', 'warn', '--allow-webhook-host', '127.0.0.1'];
  const accepted = new Map<string, { body: string; messageId: string }>();
  try {
    const first = runServer([...args, '--fresh']);
    const baseUrl = await first.listening;
    const tokenResponse = await request(`${baseUrl}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'crash', client_secret: 'crash-secret' }),
    });
    const { access_token: token } = (await tokenResponse.body.json()) as { access_token: string };
    const payload = (i: number) => JSON.stringify({ sendFrom: 'num_crash', to: [`+1202555${String(2000 + i)}`], messageType: 'SMS', text: `burst ${i}`, externalReference: `crash-${i}` });

    // Keep sending until the process is killed; the kill lands while requests are in flight.
    let killed = false;
    let next = 0;
    const sender = async (url: string) => {
      while (!killed) {
        const i = next++;
        try {
          const response = await request(`${url}/api/core/messages/send`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `burst-${i}` },
            body: payload(i),
          });
          const text = await response.body.text();
          if (response.statusCode === 202) accepted.set(`burst-${i}`, { body: text, messageId: JSON.parse(text).results[0].messageId });
        } catch {
          // The connection died with the process: the outcome of this send is unknown to us.
        }
      }
    };
    const senders = Array.from({ length: 16 }, () => sender(baseUrl));
    while (accepted.size < 300) await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGKILL');
    killed = true;
    await Promise.all(senders);
    await first.exited;
    const answeredBeforeKill = accepted.size;

    const second = runServer(args);
    const restartedUrl = await second.listening;
    try {
      // Every accepted message gets its delivery event (at least once, same webhook-id on repeats).
      const deliveredIds = () => new Set(receiver.received.map((r) => JSON.parse(r.body).data.messageId as string));
      await expect.poll(() => [...accepted.values()].filter((a) => !deliveredIds().has(a.messageId)).length, { timeout: 15_000 }).toBe(0);
      // Sends committed but not answered before the kill are delivered too.
      const undelivered = () => {
        const db = new Database(dbPath, { readonly: true });
        try {
          return (db.prepare("SELECT count(*) AS n FROM webhook_outbox WHERE state != 'delivered'").get() as { n: number }).n;
        } finally {
          db.close();
        }
      };
      await expect.poll(undelivered, { timeout: 15_000 }).toBe(0);

      // A safe retry of every accepted send replays the original answer and creates nothing.
      for (const [key, original] of [...accepted].slice(0, 100)) {
        const i = Number(key.slice('burst-'.length));
        const replay = await request(`${restartedUrl}/api/core/messages/send`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
          body: payload(i),
        });
        expect(replay.statusCode).toBe(202);
        expect(await replay.body.text()).toBe(original.body);
      }
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }

    const db = new Database(dbPath, { readonly: true });
    try {
      const rows = db.prepare("SELECT message_id AS id, external_reference AS ref FROM messages WHERE direction = 'outbound'").all() as Array<{ id: string; ref: string }>;
      const ids = new Set(rows.map((row) => row.id));
      for (const { messageId } of accepted.values()) expect(ids.has(messageId)).toBe(true);
      // One message per operation: no externalReference (one per idempotency key) appears twice.
      expect(new Set(rows.map((row) => row.ref)).size).toBe(rows.length);
      const keys = (db.prepare('SELECT count(*) AS n FROM idempotency').get() as { n: number }).n;
      expect(rows.length).toBe(keys);
      expect(rows.length).toBeGreaterThanOrEqual(answeredBeforeKill);
      const states = db.prepare('SELECT state, count(*) AS n FROM webhook_outbox GROUP BY state').all();
      expect(states).toEqual([{ state: 'delivered', n: rows.length }]);
    } finally {
      db.close();
    }
  } finally {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
