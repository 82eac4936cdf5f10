import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { startChildServer } from './childServer.ts';

// Can one tenant's sends slow every other tenant's? Another tenant (the secondary client, from
// 127.0.0.2) sends at a steady moderate rate, first alone and then while the primary client (from
// 127.0.0.1) sends as fast as --connections connections allow, each send to --recipients recipients. Prints the other
// tenant's send latency both times, what the flooding tenant got (statuses, whether each 429
// carried Retry-After, messages accepted per second) and what the server wrote to disk
// (/proc/PID/io). Asserts nothing. Extra reference flags go after `--`.
//   npx tsx bench/send-flood.ts [--duration 10] [--connections 50] [--recipients 10] [--rate 50] [-- reference flags]

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    recipients: { type: 'string', default: '10' },
    rate: { type: 'string', default: '50' },
  },
});
const durationMs = Number(values.duration) * 1000;
const connections = Number(values.connections);
const recipients = Number(values.recipients);
const rate = Number(values.rate);

interface Fixtures {
  clients: Array<{ role: string; clientId: string; clientSecret: string; numbers: Array<{ numberId: string; campaignregId: string | null; smsEnabled: boolean }> }>;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Bytes the process has caused to be written to storage so far (Linux). */
function writtenBytes(pid: number): number {
  const match = /write_bytes: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return Number(match?.[1] ?? NaN);
}

const workDir = mkdtempSync(join(tmpdir(), 'send-flood-'));
const fixturesOut = join(workDir, 'fixtures.json');
const server = await startChildServer('reference/main.ts', ['--port', '0', '--db', join(workDir, 'bench.db'), '--fresh', '--log-level', 'error', '--fixtures-out', fixturesOut, ...positionals]);

try {
  const fixtures = JSON.parse(readFileSync(fixturesOut, 'utf8')) as Fixtures;
  const tenant = async (role: string) => {
    const client = fixtures.clients.find((candidate) => candidate.role === role)!;
    const answer = await request(`${server.baseUrl}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
    });
    const { access_token: token } = (await answer.body.json()) as { access_token: string };
    const numberId = client.numbers.find((number) => number.campaignregId !== null && number.smsEnabled)!.numberId;
    return { token, numberId };
  };
  const flooder = await tenant('primary');
  const other = await tenant('secondary');
  const to = Array.from({ length: recipients }, (_, i) => `+1202555${String(2000 + i).padStart(4, '0')}`);
  const send = (who: { token: string; numberId: string }, dispatcher: Agent, recipientsOf: string[]) =>
    request(`${server.baseUrl}/api/core/messages/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ sendFrom: who.numberId, to: recipientsOf, messageType: 'SMS', text: 'bench', externalReference: 'flood' }),
      dispatcher,
    });

  /** The other tenant's sends at `rate` per second for the duration: latencies of the 202s. */
  const otherAgent = new Agent({ connections: 20, localAddress: '127.0.0.2' });
  async function paced(): Promise<{ latencies: number[]; failed: number }> {
    const latencies: number[] = [];
    let failed = 0;
    const inFlight: Array<Promise<void>> = [];
    const start = performance.now();
    for (let i = 0; performance.now() - start < durationMs; i += 1) {
      const wait = start + (i * 1000) / rate - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      inFlight.push(
        (async () => {
          const began = performance.now();
          const answer = await send(other, otherAgent, ['+13125550100']);
          await answer.body.dump();
          if (answer.statusCode === 202) latencies.push(performance.now() - began);
          else failed += 1;
        })().catch(() => {
          failed += 1;
        }),
      );
    }
    await Promise.all(inFlight);
    return { latencies: latencies.sort((a, b) => a - b), failed };
  }

  /** The flooding tenant: `connections` loops, each sending as soon as its last send is answered. */
  function flood() {
    const agent = new Agent({ connections, localAddress: '127.0.0.1' });
    const statuses = new Map<number, number>();
    let withoutRetryAfter = 0;
    let accepted = 0;
    let stop = false;
    const loop = async () => {
      while (!stop) {
        try {
          const answer = await send(flooder, agent, to);
          await answer.body.dump();
          statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
          if (answer.statusCode === 202) accepted += recipients;
          if (answer.statusCode === 429 && answer.headers['retry-after'] === undefined) withoutRetryAfter += 1;
        } catch {
          statuses.set(0, (statuses.get(0) ?? 0) + 1);
        }
      }
    };
    const loops = Array.from({ length: connections }, () => loop());
    return {
      async stop() {
        stop = true;
        await Promise.all(loops);
        await agent.close();
        return { statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)), withoutRetryAfter, accepted };
      },
    };
  }

  const line = (label: string, { latencies, failed }: { latencies: number[]; failed: number }) =>
    `${label.padEnd(24)} ${latencies.length} sends 202, ${failed} not; p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${percentile(latencies, 100).toFixed(1)} ms`;

  console.log(`the other tenant sends at ${rate}/s for ${durationMs / 1000} s; the flooding tenant on ${connections} connections, ${recipients} recipients a send`);
  await paced(); // warm-up
  const alone = await paced();
  console.log(line('alone', alone));
  const pid = server.process.pid!;
  const writtenBefore = writtenBytes(pid);
  const flooding = flood();
  const floodStarted = performance.now();
  const beside = await paced();
  const flooded = await flooding.stop();
  const seconds = (performance.now() - floodStarted) / 1000;
  const written = writtenBytes(pid) - writtenBefore;
  console.log(line('beside the flood', beside));
  const tooMany = flooded.statuses[429] ?? 0;
  console.log(
    `flooding tenant: answers by status ${JSON.stringify(flooded.statuses)}; ${tooMany} answers 429, ${flooded.withoutRetryAfter} of them without Retry-After; ` +
      `${Math.round(flooded.accepted / seconds)} messages accepted/s; the server wrote ${(written / seconds / 2 ** 20).toFixed(1)} MiB/s`,
  );
  console.log(`other tenant's p99 beside the flood / alone: ${(percentile(beside.latencies, 99) / percentile(alone.latencies, 99)).toFixed(1)}x`);
  await otherAgent.close();
} finally {
  await server.stop();
  rmSync(workDir, { recursive: true, force: true });
}
