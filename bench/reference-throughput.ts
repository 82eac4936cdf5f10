import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { request } from 'undici';
import { startChildServer, type RunningServer } from './childServer.ts';

// Durable sends/s of the reference (SQLite synchronous=FULL, group commit in a writer thread)
// side by side with a fastify hello-world on the same machine, and with the same send request
// answered by that hello-world service without doing anything (the floor fastify and Node's HTTP
// stack set for a POST of that shape), then the delivery-webhook latency
// from acceptance to callback on loopback at a moderate, steady rate. Prints figures, including
// where the CPU time goes; it is not a test and asserts nothing.
// The servers run throughout and are loaded in turns (hello, POST, send, hello, ...): on a
// shared machine the speed drifts by a third within a minute, and a ratio of two measurements
// taken seconds apart drifts much less than one of measurements taken far apart.
//   npx tsx bench/reference-throughput.ts [--rounds 3] [--duration 5] [--connections 50] [--webhooks 2000] [--webhook-rate 200]

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    webhooks: { type: 'string', default: '2000' },
    'webhook-rate': { type: 'string', default: '200' },
  },
});
const rounds = Number(values.rounds);
const duration = Number(values.duration);
const connections = Number(values.connections);
const webhookCount = Number(values.webhooks);
const webhookRate = Number(values['webhook-rate']);

interface Fixtures {
  baseUrl: string;
  controlUrl: string;
  controlToken: string;
  clients: Array<{ role: string; clientId: string; clientSecret: string; numbers: Array<{ numberId: string }> }>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);
const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU time (ms) of each thread of a process, from /proc; empty where /proc is not available. */
function threadCpu(pid: number): Map<string, number> {
  const times = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      times.set(tid, (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS);
    }
  } catch {
    // Not Linux, or the thread ended between the listing and the read.
  }
  return times;
}

interface Round {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  cpuMs: { main: number; busiestOther: number; rest: number; loadGenerator: number };
}

/** Runs autocannon and measures the CPU time the server's threads and this process spent meanwhile. */
async function measure(server: RunningServer, options: Parameters<typeof autocannon>[0]): Promise<Round> {
  const pid = server.process.pid!;
  const before = threadCpu(pid);
  const ownBefore = process.cpuUsage();
  const result = await autocannon(options);
  const own = process.cpuUsage(ownBefore);
  const after = threadCpu(pid);
  const spent = [...after].map(([tid, ms]) => ({ main: tid === String(pid), ms: ms - (before.get(tid) ?? 0) }));
  const others = spent.filter((t) => !t.main).sort((a, b) => b.ms - a.ms);
  return {
    requests: result.requests.total,
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuMs: {
      main: spent.filter((t) => t.main).reduce((sum, t) => sum + t.ms, 0),
      busiestOther: others[0]?.ms ?? 0,
      rest: others.slice(1).reduce((sum, t) => sum + t.ms, 0),
      loadGenerator: (own.user + own.system) / 1000,
    },
  };
}

const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

/** The rounds of one server: median rate and latencies, CPU per request over all of them. */
function summary(runs: Round[]) {
  const requests = runs.reduce((sum, r) => sum + r.requests, 0);
  const perRequest = (pick: (cpu: Round['cpuMs']) => number) => (runs.reduce((sum, r) => sum + pick(r.cpuMs), 0) * 1000) / Math.max(1, requests);
  return {
    perSecond: median(runs.map((r) => r.perSecond)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    cpu: {
      mainUs: perRequest((c) => c.main),
      busiestOtherUs: perRequest((c) => c.busiestOther),
      restUs: perRequest((c) => c.rest),
      loadGeneratorUs: perRequest((c) => c.loadGenerator),
    },
  };
}

const workDir = mkdtempSync(join(tmpdir(), 'reference-bench-'));
const servers: RunningServer[] = [];

try {
  const hello = await startChildServer('bench/helloServer.ts');
  servers.push(hello);
  const fixturesOut = join(workDir, 'fixtures.json');
  const reference = await startChildServer('reference/main.ts', [
    '--port', '0', '--db', join(workDir, 'bench.db'), '--fresh', '--control', '--log-level', 'warn', '--fixtures-out', fixturesOut,
    '--allow-webhook-host', '127.0.0.1',
    // Durable sends as fast as the server takes them, from one client: the send rate limit lifted.
    '--send-messages-per-second', '1000000',
  ]);
  servers.push(reference);
  const fixtures = JSON.parse(readFileSync(fixturesOut, 'utf8')) as Fixtures;
  const primary = fixtures.clients.find((client) => client.role === 'primary')!;
  const tokenResponse = await request(`${reference.baseUrl}/api/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: primary.clientId, client_secret: primary.clientSecret }),
  });
  const { access_token: token } = (await tokenResponse.body.json()) as { access_token: string };
  const sendBody = JSON.stringify({
    sendFrom: primary.numbers[0]!.numberId,
    to: ['+12025550123'],
    messageType: 'SMS',
    text: 'benchmark',
    externalReference: 'bench',
  });
  // Every request is a new operation with a fresh random Idempotency-Key, as real clients send
  // them (UUIDs, per the Idempotency-Key draft); sequential keys would flatter the key index.
  const sendRequest = {
    method: 'POST',
    path: '/api/core/messages/send',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': '' },
    body: sendBody,
    setupRequest: (spec: { headers?: Record<string, string> }) => {
      spec.headers!['idempotency-key'] = randomUUID();
      return spec;
    },
  };
  const helloOptions = { url: hello.baseUrl, connections, duration };
  const postOptions = { url: hello.baseUrl, connections, duration, requests: [sendRequest] };
  const sendOptions = { url: reference.baseUrl, connections, duration, requests: [sendRequest] };

  // 1 and 2. Hello-world, the send request answered by hello-world, and durable sends in turns,
  // after a warm-up of each.
  await autocannon({ ...helloOptions, duration: 2 });
  await autocannon({ ...postOptions, duration: 2 });
  await autocannon({ ...sendOptions, duration: 2 });
  const helloRuns: Round[] = [];
  const postRuns: Round[] = [];
  const sendRuns: Round[] = [];
  for (let round = 0; round < rounds; round += 1) {
    helloRuns.push(await measure(hello, helloOptions));
    postRuns.push(await measure(hello, postOptions));
    sendRuns.push(await measure(reference, sendOptions));
  }
  await hello.stop();

  // 3. Delivery-webhook latency at a steady moderate rate (not under saturation): from the
  // request's start and from its acceptance (the 202 arriving) to the callback's arrival.
  const arrivals = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const event = JSON.parse(Buffer.concat(chunks).toString()) as { data: { messageId: string } };
      if (!arrivals.has(event.data.messageId)) arrivals.set(event.data.messageId, at);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/delivery`;
  await request(`${fixtures.controlUrl}/clients/${encodeURIComponent(primary.clientId)}/webhooks`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${fixtures.controlToken}` },
    body: JSON.stringify({ delivery: receiverUrl }),
  }).then((response) => response.body.dump());

  const started = new Map<string, { start: number; accepted: number }>();
  const sendOne = async () => {
    const start = performance.now();
    const response = await request(`${reference.baseUrl}/api/core/messages/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: sendBody,
    });
    const accepted = performance.now();
    const body = (await response.body.json()) as { results: Array<{ messageId: string }> };
    started.set(body.results[0]!.messageId, { start, accepted });
  };
  const inFlight: Array<Promise<void>> = [];
  const paceStart = performance.now();
  for (let i = 0; i < webhookCount; i += 1) {
    const due = paceStart + (i * 1000) / webhookRate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(sendOne());
  }
  await Promise.all(inFlight);
  const deadline = Date.now() + 10_000;
  while (arrivals.size < webhookCount && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  receiver.close();
  await reference.stop();

  const fromStart: number[] = [];
  const fromAcceptance: number[] = [];
  for (const [messageId, times] of started) {
    const arrival = arrivals.get(messageId);
    if (arrival === undefined) continue;
    fromStart.push(arrival - times.start);
    // The server posts the event right after the commit, before it answers, so the callback can
    // arrive before the 202 does: that counts as zero.
    fromAcceptance.push(Math.max(0, arrival - times.accepted));
  }
  fromStart.sort((a, b) => a - b);
  fromAcceptance.sort((a, b) => a - b);

  const helloSummary = summary(helloRuns);
  const postSummary = summary(postRuns);
  const sendSummary = summary(sendRuns);
  const ratios = helloRuns.map((helloRound, i) => sendRuns[i]!.perSecond / helloRound.perSecond);
  console.log(`reference throughput benchmark (${connections} connections, ${rounds} rounds of ${duration} s per server, autocannon in this process)`);
  console.log('');
  console.log('                              req/s     p50 ms   p99 ms   non-2xx  errors   (medians of the rounds)');
  const row = (name: string, r: typeof helloSummary) =>
    console.log(
      `${name.padEnd(28)} ${fmt(r.perSecond, 0).padStart(7)}   ${fmt(r.p50).padStart(6)}   ${fmt(r.p99).padStart(6)}   ${String(r.non2xx).padStart(7)}  ${String(r.errors).padStart(6)}`,
    );
  row('fastify hello-world', helloSummary);
  row('send request, no work', postSummary);
  row('durable send (sync=FULL)', sendSummary);
  console.log('');
  console.log(`rounds, sends/s : hello req/s: ${helloRuns.map((h, i) => `${fmt(sendRuns[i]!.perSecond, 0)} : ${fmt(h.perSecond, 0)} = ${fmt(ratios[i]! * 100)} %`).join(';  ')}`);
  console.log(`durable sends/s as a share of hello-world req/s: ${fmt(median(ratios) * 100)} % (median of the rounds; target >= 30 %)`);
  console.log('');
  console.log('CPU time per request, microseconds (2 cores = 2,000,000 us/s to share):');
  console.log('                              server main   server other threads      autocannon');
  const cpuRow = (name: string, c: typeof helloSummary.cpu) =>
    console.log(
      `${name.padEnd(28)} ${fmt(c.mainUs).padStart(12)}   ${`${fmt(c.busiestOtherUs)} + ${fmt(c.restUs)}`.padStart(20)}   ${fmt(c.loadGeneratorUs).padStart(13)}`,
    );
  cpuRow('fastify hello-world', helloSummary.cpu);
  cpuRow('send request, no work', postSummary.cpu);
  cpuRow('durable send (sync=FULL)', sendSummary.cpu);
  console.log('  (other threads: the busiest one, for the send the writer thread, + the rest)');
  const serverUs = (c: typeof helloSummary.cpu) => c.mainUs + c.busiestOtherUs + c.restUs;
  const perHello = (c: typeof helloSummary.cpu) => fmt(serverUs(c) / serverUs(helloSummary.cpu), 2);
  console.log(`server CPU per request (all threads) as a multiple of a hello-world request: durable send ${perHello(sendSummary.cpu)}x (target <= 3x), of which the send request's HTTP and framework floor ${perHello(postSummary.cpu)}x`);
  console.log('');
  console.log(`delivery webhooks: ${arrivals.size} of ${webhookCount} received (sends paced at ${webhookRate}/s)`);
  console.log(`  acceptance    -> callback:  p50 ${fmt(percentile(fromAcceptance, 50))} ms   p99 ${fmt(percentile(fromAcceptance, 99))} ms   (target p99 <= 50 ms)`);
  console.log(`  request start -> callback:  p50 ${fmt(percentile(fromStart, 50))} ms   p99 ${fmt(percentile(fromStart, 99))} ms`);
} finally {
  await Promise.all(servers.map((server) => server.stop()));
  rmSync(workDir, { recursive: true, force: true });
}
