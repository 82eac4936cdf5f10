import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { request } from 'undici';
import { startChildServer } from './childServer.ts';

// Durable sends/s of the reference (SQLite synchronous=FULL, group commit) side by side with a
// fastify hello-world on the same machine, then the delivery-webhook latency from acceptance to
// callback on loopback. Prints figures; it is not a test and asserts nothing.
//   npx tsx bench/reference-throughput.ts [--duration 10] [--connections 50] [--webhooks 2000]

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    webhooks: { type: 'string', default: '2000' },
    'webhook-concurrency': { type: 'string', default: '8' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const webhookCount = Number(values.webhooks);
const webhookConcurrency = Number(values['webhook-concurrency']);

interface Fixtures {
  baseUrl: string;
  controlUrl: string;
  clients: Array<{ role: string; clientId: string; clientSecret: string; numbers: Array<{ numberId: string }> }>;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);
const workDir = mkdtempSync(join(tmpdir(), 'reference-bench-'));

try {
  // 1. Hello-world baseline.
  const hello = await startChildServer('bench/helloServer.ts');
  await autocannon({ url: hello.baseUrl, connections, duration: 2 }); // warm-up
  const helloResult = await autocannon({ url: hello.baseUrl, connections, duration });
  await hello.stop();

  // 2. The reference's durable send.
  const fixturesOut = join(workDir, 'fixtures.json');
  const reference = await startChildServer('reference/main.ts', [
    '--port', '0', '--db', join(workDir, 'bench.db'), '--fresh', '--control', '--log-level', 'warn', '--fixtures-out', fixturesOut,
  ]);
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
  const sendRequest = {
    method: 'POST',
    path: '/api/core/messages/send',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: sendBody,
    // Every request is a new operation: a fresh Idempotency-Key each time.
    setupRequest: (spec: { headers?: Record<string, string> }) => ({ ...spec, headers: { ...spec.headers, 'idempotency-key': randomUUID() } }),
  };
  await autocannon({ url: reference.baseUrl, connections, duration: 2, requests: [sendRequest] }); // warm-up
  const sendResult = await autocannon({ url: reference.baseUrl, connections, duration, requests: [sendRequest] });

  // 3. Delivery-webhook latency: request start and acceptance (response) to callback arrival.
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
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ delivery: receiverUrl }),
  }).then((response) => response.body.dump());

  const started = new Map<string, { start: number; accepted: number }>();
  let next = 0;
  const worker = async () => {
    while (next < webhookCount) {
      next += 1;
      const start = performance.now();
      const response = await request(`${reference.baseUrl}/api/core/messages/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: sendBody,
      });
      const accepted = performance.now();
      const body = (await response.body.json()) as { results: Array<{ messageId: string }> };
      started.set(body.results[0]!.messageId, { start, accepted });
    }
  };
  await Promise.all(Array.from({ length: webhookConcurrency }, worker));
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
    fromAcceptance.push(Math.max(0, arrival - times.accepted));
  }
  fromStart.sort((a, b) => a - b);
  fromAcceptance.sort((a, b) => a - b);

  const ratio = sendResult.requests.average / helloResult.requests.average;
  console.log(`reference throughput benchmark (${connections} connections, ${duration} s each, autocannon in this process)`);
  console.log('');
  console.log('                              req/s     p50 ms   p99 ms   non-2xx  errors');
  const row = (name: string, r: typeof helloResult) =>
    console.log(
      `${name.padEnd(28)} ${fmt(r.requests.average, 0).padStart(7)}   ${fmt(r.latency.p50).padStart(6)}   ${fmt(r.latency.p99).padStart(6)}   ${String(r.non2xx).padStart(7)}  ${String(r.errors).padStart(6)}`,
    );
  row('fastify hello-world', helloResult);
  row('durable send (sync=FULL)', sendResult);
  console.log('');
  console.log(`durable sends/s as a share of hello-world req/s: ${fmt(ratio * 100)} %  (target >= 30 %)`);
  console.log('');
  console.log(`delivery webhooks: ${arrivals.size} of ${webhookCount} received (${webhookConcurrency} sends in flight)`);
  console.log(`  request start -> callback:  p50 ${fmt(percentile(fromStart, 50))} ms   p99 ${fmt(percentile(fromStart, 99))} ms   (target p99 <= 50 ms)`);
  console.log(`  acceptance    -> callback:  p50 ${fmt(percentile(fromAcceptance, 50))} ms   p99 ${fmt(percentile(fromAcceptance, 99))} ms`);
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
