import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { startChildServer } from './childServer.ts';

// What the most expensive single send costs the reference (OWASP API4, unrestricted resource
// consumption): the database and WAL growth and the writer time of one, then the peak memory
// of five at once and the latency of an ordinary send made meanwhile. Two shapes are tried:
// the largest body the server takes (an externalReference filling the 256 KiB body limit, with
// 100 recipients) and a send at every documented limit of reference/README.md. A shape the
// server refuses is reported with its answer. Prints figures; asserts nothing.
//   npx tsx bench/request-cost.ts [--parallel 5]

const { values } = parseArgs({ options: { parallel: { type: 'string', default: '5' } } });
const parallel = Number(values.parallel);

const BODY_LIMIT = 256 * 1024;
const recipients = Array.from({ length: 100 }, (_, i) => `+1202555${String(2000 + i).padStart(4, '0')}`);
const MiB = 1024 * 1024;

const workDir = mkdtempSync(join(tmpdir(), 'request-cost-'));
const dbPath = join(workDir, 'bench.db');
const fixturesPath = join(workDir, 'fixtures.json');
writeFileSync(
  fixturesPath,
  JSON.stringify({ clients: [{ role: 'primary', clientId: 'cost', clientSecret: 'cost-secret', numbers: [{ numberId: 'num_cost', phoneNumber: '+12025550100', campaignregId: 'C1', smsEnabled: true, mmsEnabled: true }] }] }),
);

/** Bytes of the WAL: what commits wrote since the last truncating checkpoint. */
const walBytes = () => (existsSync(`${dbPath}-wal`) ? statSync(`${dbPath}-wal`).size : 0);
/** Empties the WAL into the database (from a connection of our own), so the next send's writes are all the WAL holds. */
function checkpoint(): void {
  const db = new Database(dbPath);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
/** The server's resident set now and its peak since start, in bytes (Linux /proc). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

function largestBody(): Record<string, unknown> {
  const base = { sendFrom: 'num_cost', to: recipients, messageType: 'SMS', text: 'x', externalReference: '' };
  const room = BODY_LIMIT - Buffer.byteLength(JSON.stringify(base)) - 64;
  return { ...base, externalReference: 'r'.repeat(room) };
}

function atLimitsBody(): Record<string, unknown> {
  // Three-byte characters make the most bytes of a length counted in characters.
  const media = Array.from({ length: 10 }, (_, i) => ({ url: `https://cdn.example.com/${String(i).padEnd(2048 - 'https://cdn.example.com/'.length, 'm')}`, contentType: `image/${'p'.repeat(255 - 'image/'.length)}` }));
  return { sendFrom: 'num_cost', to: recipients, messageType: 'MMS', text: '€'.repeat(1600), media, externalReference: '€'.repeat(256) };
}

for (const [label, make] of [['largest body (256 KiB, 100 recipients)', largestBody], ['every documented limit at once', atLimitsBody]] as const) {
  // A fresh server for each shape, so one shape's peak memory does not hide the next one's.
  // What a send costs, not whether its client may send it: the send rate limit lifted.
  const server = await startChildServer('reference/main.ts', ['--port', '0', '--db', dbPath, '--fresh', '--fixtures', fixturesPath, '--log-level', 'error', '--send-messages-per-second', '1000000']);
  const pid = server.process.pid!;
  try {
    const tokenAnswer = await request(`${server.baseUrl}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'cost', client_secret: 'cost-secret' }),
    });
    const { access_token: token } = (await tokenAnswer.body.json()) as { access_token: string };
    const send = async (body: string) => {
      const began = performance.now();
      const answer = await request(`${server.baseUrl}/api/core/messages/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body,
      });
      const text = await answer.body.text();
      return { status: answer.statusCode, text, ms: performance.now() - began };
    };
    const small = JSON.stringify({ sendFrom: 'num_cost', to: ['+12025550123'], messageType: 'SMS', text: 'hi', externalReference: 'small' });
    for (let i = 0; i < 20; i += 1) await send(small); // warm-up

    const body = JSON.stringify(make());
    checkpoint();
    const one = await send(body);
    if (one.status !== 202) {
      const answer = one.text.length > 240 ? `${one.text.slice(0, 240)}…` : one.text;
      console.log(`${label}: body ${(Buffer.byteLength(body) / 1024).toFixed(0)} KiB refused ${one.status} ${answer}`);
      continue;
    }
    // The carrier's outcome write follows the acceptance; let it land before reading the WAL.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const written = walBytes();
    const memBefore = memory(pid);
    const ordinary = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return send(small);
    })();
    const burst = await Promise.all(Array.from({ length: parallel }, () => send(body)));
    const memAfter = memory(pid);
    const ordinaryMs = (await ordinary).ms;
    console.log(
      `${label}: body ${(Buffer.byteLength(body) / 1024).toFixed(0)} KiB; one send wrote ${(written / MiB).toFixed(2)} MiB to the WAL, answered in ${one.ms.toFixed(0)} ms; ` +
        `${parallel} at once: ${burst.map((r) => r.status).join(',')} in ${Math.max(...burst.map((r) => r.ms)).toFixed(0)} ms, ` +
        `RSS ${(memBefore.rss / MiB).toFixed(0)} -> peak ${(memAfter.peak / MiB).toFixed(0)} MiB; an ordinary send meanwhile ${ordinaryMs.toFixed(0)} ms`,
    );
  } finally {
    await server.stop();
  }
}
rmSync(workDir, { recursive: true, force: true });
