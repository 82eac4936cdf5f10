import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { startChildServer } from './childServer.ts';

// Send latency while the token endpoint is flooded with failed client authentications (OWASP
// API4/API2: an unauthenticated endpoint that costs a key derivation per attempt). Sends go at a
// steady moderate rate; the same rate is measured three times in one run, so the ratios hold on
// a shared machine: alone, under a flood from one source address, and under a flood spread over
// many loopback source addresses (127.0.0.2, 127.0.0.3, ...), as a botnet would spread it.
// Prints figures; asserts nothing.
//   npx tsx bench/token-flood.ts [--duration 8] [--rate 100] [--flooders 20] [--sources 20]

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    rate: { type: 'string', default: '100' },
    flooders: { type: 'string', default: '20' },
    sources: { type: 'string', default: '20' },
  },
});
const durationMs = Number(values.duration) * 1000;
const rate = Number(values.rate);
const flooders = Number(values.flooders);
const sources = Number(values.sources);

interface Fixtures {
  clients: Array<{ role: string; clientId: string; clientSecret: string; numbers: Array<{ numberId: string; campaignregId: string | null }> }>;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

const workDir = mkdtempSync(join(tmpdir(), 'token-flood-'));
const fixturesOut = join(workDir, 'fixtures.json');
const server = await startChildServer('reference/main.ts', ['--port', '0', '--db', join(workDir, 'bench.db'), '--fresh', '--log-level', 'error', '--fixtures-out', fixturesOut]);

try {
  const fixtures = JSON.parse(readFileSync(fixturesOut, 'utf8')) as Fixtures;
  const primary = fixtures.clients.find((client) => client.role === 'primary')!;
  const numberId = primary.numbers.find((number) => number.campaignregId !== null)!.numberId;
  const tokenAnswer = await request(`${server.baseUrl}/api/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: primary.clientId, client_secret: primary.clientSecret }),
  });
  const { access_token: token } = (await tokenAnswer.body.json()) as { access_token: string };
  const body = JSON.stringify({ sendFrom: numberId, to: ['+12025550123'], messageType: 'SMS', text: 'bench', externalReference: 'flood' });

  /** Sends at `rate` per second for the duration; the latency of each, in ms. */
  async function paced(): Promise<{ latencies: number[]; failed: number }> {
    const latencies: number[] = [];
    let failed = 0;
    const inFlight: Array<Promise<void>> = [];
    const start = performance.now();
    for (let i = 0; performance.now() - start < durationMs; i += 1) {
      const due = start + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      inFlight.push(
        (async () => {
          const began = performance.now();
          const answer = await request(`${server.baseUrl}/api/core/messages/send`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
            body,
          });
          await answer.body.dump();
          if (answer.statusCode === 202) latencies.push(performance.now() - began);
          else failed += 1;
        })(),
      );
    }
    await Promise.all(inFlight);
    return { latencies: latencies.sort((a, b) => a - b), failed };
  }

  /** `flooders` loops of failed token requests (unknown client ids, then a wrong secret for a real one) until stopped. */
  function flood(sourceCount: number, firstAddress = 2) {
    const agents = Array.from({ length: sourceCount }, (_, i) => new Agent({ localAddress: `127.0.0.${i + firstAddress}` }));
    const statuses = new Map<number, number>();
    let stop = false;
    let n = 0;
    const loop = async (index: number) => {
      while (!stop) {
        n += 1;
        const clientId = n % 2 === 0 ? primary.clientId : `nobody-${n}`;
        try {
          const answer = await request(`${server.baseUrl}/api/auth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: `guess-${n}` }),
            dispatcher: agents[index % agents.length],
          });
          await answer.body.dump();
          statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
        } catch {
          statuses.set(0, (statuses.get(0) ?? 0) + 1);
        }
      }
    };
    const loops = Array.from({ length: flooders }, (_, i) => loop(i));
    return {
      async stop() {
        stop = true;
        await Promise.all(loops);
        await Promise.all(agents.map((agent) => agent.close()));
        return Object.fromEntries([...statuses].sort(([a], [b]) => a - b));
      },
    };
  }

  const report = (label: string, { latencies, failed }: { latencies: number[]; failed: number }, statuses?: Record<number, number>) => {
    const p = (q: number) => percentile(latencies, q).toFixed(1);
    const token = statuses ? `; token answers by status ${JSON.stringify(statuses)}` : '';
    console.log(`${label.padEnd(34)} sends ${latencies.length} ok, ${failed} not 202; p50 ${p(50)} ms, p99 ${p(99)} ms, max ${p(100)} ms${token}`);
    return percentile(latencies, 99);
  };

  console.log(`sends at ${rate}/s for ${durationMs / 1000} s each; ${flooders} concurrent flooders of failed token requests`);
  await paced(); // warm-up
  const alone = report('alone', await paced());
  const one = flood(1);
  const underOne = await paced();
  const oneStatuses = await one.stop();
  const single = report('flood from one source', underOne, oneStatuses);
  // From other addresses than the first flood's (127.0.0.2), whose limits it has used up.
  const many = flood(sources, 3);
  const underMany = await paced();
  const manyStatuses = await many.stop();
  const spread = report(`flood from ${sources} sources`, underMany, manyStatuses);
  console.log(`send p99 under flood / alone: one source ${(single / alone).toFixed(1)}x, ${sources} sources ${(spread / alone).toFixed(1)}x`);
} finally {
  await server.stop();
  rmSync(workDir, { recursive: true, force: true });
}
