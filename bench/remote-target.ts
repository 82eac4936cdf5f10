// npx tsx bench/remote-target.ts [--rtt-ms 50] [--pool N] [--config FILE] [--runs N] [-- certify flags…]
//
// Certification time against a remote sandbox: the bundled reference started the way a vendor
// runs it (its default limits, no control plane, client webhooks set at start) and certified with
// examples/reference-triggers.yaml, its ports moved, through relays that add a round trip:
//
// - the API relay is a byte relay (TCP): every chunk either way is passed on `--rtt-ms`/2 after
//   it arrived, in order, so each exchange pays the round trip, a new connection pays it for its
//   handshake's first bytes, and nothing of HTTP is rewritten;
// - the callback relay is the run's `webhooks.publicUrl` (http://127.0.0.1:<relay>/p{port}): a
//   callback reaches the harness's receiver `--rtt-ms`/2 after the reference made it, and the
//   receiver's answer reaches the reference as much later.
//
// `--pool N` seeds the reference with its demo set and N shares' worth of numbers more (three of
// the primary client's like the demo set's, one of the secondary's, for each) and declares them
// all as the config's numbers.pool, as init writes it: a vendor's sandbox with a pool of numbers,
// spread across the run's workers. 0, the default, seeds the demo set alone and declares no pool.
//
// `--config FILE` relays a target of yours instead, already running where FILE's baseUrl says:
// only its API goes through the relay (its callbacks go where its config sends them). `--runs N`
// certifies N times in a row, each run printed, then the verdicts: a correct server must stay
// CONFORMANT on every run with the default command's concurrency (issue 28: ten runs).
//
// Prints bench/certify-time.ts's breakdown of the run (wall and CPU time, time inside tests, per
// area and slowest tests), then what the API relay saw: exchanges, how many of them were on the
// critical path (the longest chain of exchanges each sent after the previous one was answered:
// at RTT r the run cannot take less than that many times r), the time at least one exchange was
// in flight, the mean number in flight then, and the 429 answers; and the report's 429s waited
// out. Issue 28's targets for it: RTT 50 ms ≤ 30 s, RTT 150 ms ≤ 60 s, CONFORMANT.
import { spawn } from 'node:child_process';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { parse, stringify } from 'yaml';
import { freePort, freePorts } from '../cli/free-port.ts';
import { compiledReference } from '../harness/embedded-reference.ts';
import { MAX_WORKERS } from '../harness/settings.ts';
import type { Report } from '../reports/types.ts';
import { DEMO_FIXTURES } from '../reference/fixtures/demo.ts';
import type { FixtureSet } from '../reference/fixtures/schema.ts';

const { values, positionals } = parseArgs({
  options: { 'rtt-ms': { type: 'string', default: '50' }, pool: { type: 'string', default: '0' }, config: { type: 'string' }, runs: { type: 'string', default: '1' } },
  allowPositionals: true,
});
const rttMs = Number(values['rtt-ms']);
const pool = Number(values.pool);
const runs = Number(values.runs);
if (!Number.isFinite(rttMs) || rttMs < 0 || !Number.isInteger(pool) || pool < 0 || !Number.isInteger(runs) || runs < 1 || (values.config !== undefined && pool > 0)) {
  console.error('--rtt-ms takes a number of milliseconds, 0 or more; --pool a whole number, 0 or more (not with --config); --runs a whole number, 1 or more');
  process.exit(2);
}
const oneWay = rttMs / 2;

// ---- the API relay: bytes, each chunk passed on half a round trip later ----------------------

/** One exchange as the relay saw it: from the request's first byte to the answer's last. */
interface Seen {
  start: number;
  end: number;
  status: number | null;
}
const exchanges: Seen[] = [];

/** Pass `from`'s bytes to `to` `delayMs` after each arrived, in order; the end too. */
function pipeLate(from: Socket, to: Socket, delayMs: number, onChunk: (chunk: Buffer) => void): void {
  const later = (fn: () => void) => (delayMs > 0 ? setTimeout(fn, delayMs) : setImmediate(fn));
  from.on('data', (chunk: Buffer) => {
    onChunk(chunk);
    later(() => {
      if (!to.destroyed) to.write(chunk);
    });
  });
  from.on('end', () => later(() => to.end()));
  from.on('close', () => later(() => to.destroy()));
  from.on('error', () => later(() => to.destroy()));
}

async function byteRelay(port: number, host = '127.0.0.1'): Promise<{ port: number; close(): void }> {
  const server = createServer({ noDelay: true }, (client) => {
    const upstream = connect({ port, host, noDelay: true });
    // No pipelining (the harness's pool sends one request at a time per connection): a request
    // starts with the client's first bytes after an answer, and ends with the answer's last byte.
    let current: Seen | null = null;
    const close = () => {
      if (current) exchanges.push(current);
      current = null;
    };
    pipeLate(client, upstream, oneWay, () => {
      if (current && current.end > 0) close();
      current ??= { start: performance.now(), end: 0, status: null };
    });
    pipeLate(upstream, client, oneWay, (chunk) => {
      // The answer reaches the harness half a round trip after it left the server.
      if (!current) return;
      if (current.end === 0) {
        const m = /^HTTP\/1\.[01] (\d{3})/.exec(chunk.subarray(0, 16).toString('latin1'));
        current.status = m ? Number(m[1]) : null;
      }
      current.end = performance.now() + oneWay;
    });
    client.on('close', close);
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

// ---- the callback relay: HTTP, half a round trip each way (as bench/slow-target.ts) ----------

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host', 'expect', 'content-length']);
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });
let callbacksRelayed = 0;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function relayCallback(req: IncomingMessage, res: ServerResponse, origin: string, path: string): Promise<void> {
  const body = await readBody(req);
  const headers: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (!HOP_BY_HOP.has(req.rawHeaders[i]!.toLowerCase())) headers.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  if (oneWay > 0) await sleep(oneWay);
  callbacksRelayed++;
  let answer;
  try {
    answer = await request(origin + path, { method: req.method as 'POST', headers, body, dispatcher: agent, headersTimeout: 60_000, bodyTimeout: 60_000 });
  } catch {
    // nothing listens there (or it dropped the connection): so does the relay, a round trip late
    if (oneWay > 0) await sleep(oneWay);
    req.socket.destroy();
    return;
  }
  const answerBody = Buffer.from(await answer.body.arrayBuffer());
  if (oneWay > 0) await sleep(oneWay);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  res.writeHead(answer.statusCode, { ...out, 'content-length': String(answerBody.length) });
  res.end(answerBody);
}

async function callbackRelay(): Promise<HttpServer & { port: number }> {
  const server = createHttpServer((req, res) => {
    const match = /^\/p(\d+)(\/.*)?$/.exec(req.url ?? '');
    if (!match) return void res.writeHead(404).end();
    relayCallback(req, res, `http://127.0.0.1:${match[1]}`, match[2] ?? '/').catch(() => req.socket.destroy());
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return Object.assign(server, { port: (server.address() as AddressInfo).port });
}

// ---- the reference, as a vendor runs it ----------------------------------------------------

/**
 * The demo set (reference/fixtures/demo.ts) and `extra` shares' worth of numbers more: for each,
 * three primary numbers like the demo set's (a campaignregId with SMS and MMS, one with SMS only,
 * one without a campaignregId) and a secondary one.
 */
function pooledFixtures(extra: number): FixtureSet {
  const primary = Array.from({ length: extra }, (_, i) => [
    { phoneNumber: `+120255501${60 + 3 * i}`, campaignregId: `CPOOL${i}A`, smsEnabled: true, mmsEnabled: true },
    { phoneNumber: `+120255501${61 + 3 * i}`, campaignregId: `CPOOL${i}B`, smsEnabled: true, mmsEnabled: false },
    { phoneNumber: `+120255501${62 + 3 * i}`, campaignregId: null, smsEnabled: true, mmsEnabled: false },
  ]).flat();
  const secondary = Array.from({ length: extra }, (_, i) => ({ phoneNumber: `+131255501${60 + i}`, campaignregId: `CSPOOL${i}`, smsEnabled: true, mmsEnabled: true }));
  return {
    clients: DEMO_FIXTURES.clients.map((c) => (c.role === 'primary' ? { ...c, numbers: [...c.numbers, ...primary] } : c.role === 'secondary' ? { ...c, numbers: [...c.numbers, ...secondary] } : c)),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-remote-'));
const configFile = join(dir, 'remote-target.yaml');
let api: { port: number; close(): void };
let callbacks: (HttpServer & { port: number }) | undefined;
let reference: ReturnType<typeof spawn> | undefined;
if (values.config !== undefined) {
  // A target of yours: its API through the relay, everything else as its config says.
  const config = parse(readFileSync(values.config, 'utf8')) as Record<string, any>;
  const url = new URL(String(config.baseUrl));
  if (url.protocol !== 'http:') {
    console.error(`--config ${values.config}: the relay passes plain HTTP; baseUrl is ${url.href}`);
    process.exit(2);
  }
  api = await byteRelay(Number(url.port || 80), url.hostname);
  config.label = `${config.label ?? url.host} behind a relay (RTT ${rttMs} ms)`;
  config.baseUrl = `http://127.0.0.1:${api.port}${url.pathname.replace(/\/$/, '')}`;
  writeFileSync(configFile, stringify(config));
  console.log(`round trip ${rttMs} ms on every exchange with ${url.host}; config ${configFile}\n`);
} else {
  ({ api, callbacks, reference } = await referenceBehindRelays());
}

/** The bundled reference as a vendor runs it, its API and its callbacks through relays; writes configFile. */
async function referenceBehindRelays() {
  const referencePort = await freePort();
  // The run's receiver takes listenPort and each worker the next one (harness/run-receiver.ts): a free run of them.
  const receiverPort = await freePorts(1 + MAX_WORKERS);
  const api = await byteRelay(referencePort);
  const callbacks = await callbackRelay();
  const receiverViaRelay = `http://127.0.0.1:${callbacks.port}/p${receiverPort}`;
  const fixturesFile = join(dir, 'fixtures.json');
  const seed = pool > 0 ? ['--fixtures', join(dir, 'pool.json')] : [];
  if (pool > 0) writeFileSync(join(dir, 'pool.json'), JSON.stringify(pooledFixtures(pool)));
  const reference = spawn(
    process.execPath,
    [
      ...compiledReference(),
      // Its defaults otherwise: token limits, webhook retry base, upstream timeout, as shipped.
      '--host', '127.0.0.1', '--port', String(referencePort), '--fresh', '--db', join(dir, 'ref.db'), '--log-level', 'warn',
      '--allow-webhook-host', '127.0.0.1', '--fixtures-out', fixturesFile, ...seed,
      '--client-webhook', `primary:delivery=${receiverViaRelay}/clients/primary/delivery`,
      '--client-webhook', `primary:inbound=${receiverViaRelay}/clients/primary/inbound`,
      // As examples/reference-triggers.yaml declares: the secondary client has a delivery webhook only (CTX-003).
      '--client-webhook', `secondary:delivery=${receiverViaRelay}/clients/secondary/delivery`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    reference.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/listening on http:\/\//.test(out)) resolve();
    });
    reference.once('exit', (code) => reject(new Error(`the reference exited with ${code} before listening`)));
  });

  const fixtures = JSON.parse(readFileSync(fixturesFile, 'utf8')) as { clients: Array<{ role: string; webhookSecret?: string; numbers: Array<{ numberId: string }> }> };
  const config = parse(readFileSync('examples/reference-triggers.yaml', 'utf8')) as Record<string, any>;
  config.label = `reference behind a relay (RTT ${rttMs} ms)`;
  config.baseUrl = `http://127.0.0.1:${api.port}`;
  config.webhooks.listenPort = receiverPort;
  config.webhooks.publicUrl = `http://127.0.0.1:${callbacks.port}/p{port}`;
  const secret = fixtures.clients.find((c) => c.role === 'primary')?.webhookSecret;
  if (secret) config.webhooks.secret = secret;
  // A vendor with a pool declares it (init lists every number it finds): the run spreads it across its workers.
  const numbersOf = (role: string) => fixtures.clients.find((c) => c.role === role)?.numbers.map((n) => n.numberId) ?? [];
  if (pool > 0) config.numbers = { ...config.numbers, pool: { primary: numbersOf('primary'), secondary: numbersOf('secondary') } };
  writeFileSync(configFile, stringify(config));

  console.log(`round trip ${rttMs} ms on every exchange and callback${pool > 0 ? `, ${pool} shares' worth of numbers more in a pool` : ''}; config ${configFile}\n`);
  return { api, callbacks, reference };
}

let failed = 0;
const verdicts: string[] = [];
for (let i = 1; i <= runs; i++) {
  if (runs > 1) console.log(`\n==== run ${i} of ${runs}`);
  exchanges.length = 0;
  callbacksRelayed = 0;
  const { code, verdict } = await benchOnce(join(dir, `out-${i}`));
  verdicts.push(`${verdict ?? 'no report'} (exit ${code})`);
  if (code !== 0) failed++;
}
reference?.kill('SIGTERM');
api.close();
callbacks?.close();
await agent.close();
if (runs > 1) console.log(`\nverdicts of ${runs} runs: ${verdicts.map((v, i) => `${i + 1}: ${v}`).join('; ')}`);
process.exit(failed > 0 ? 1 : 0);

// ---- what the relay saw ----------------------------------------------------------------------

/** The longest chain of exchanges, each sent after the previous was answered (earliest answer first). */
function criticalChain(seen: readonly Seen[]): number {
  let chain = 0;
  let free = -Infinity;
  for (const e of [...seen].sort((a, b) => a.end - b.end)) {
    if (e.start >= free) {
      chain++;
      free = e.end;
    }
  }
  return chain;
}
/** Milliseconds during which at least one exchange was in flight, and the exchanges' summed time. */
function busy(seen: readonly Seen[]): { unionMs: number; sumMs: number } {
  let unionMs = 0;
  let sumMs = 0;
  let [from, to] = [-Infinity, -Infinity];
  for (const e of [...seen].sort((a, b) => a.start - b.start)) {
    sumMs += e.end - e.start;
    if (e.start > to) {
      if (to > from) unionMs += to - from;
      [from, to] = [e.start, e.end];
    } else to = Math.max(to, e.end);
  }
  if (to > from) unionMs += to - from;
  return { unionMs, sumMs };
}
/** One certification through the relays (bench/certify-time.ts prints where its time went), then what the API relay saw. */
async function benchOnce(out: string): Promise<{ code: number; verdict: string | null }> {
  // The relays live in this process: the bench runs beside them, so its blocking waits block nothing here.
  const bench = spawn(process.execPath, ['--import', 'tsx', 'bench/certify-time.ts', '--out', out, '--', '--config', configFile, ...positionals], { stdio: 'inherit' });
  const code = await new Promise<number>((resolve) => bench.once('exit', (c) => resolve(c ?? 1)));
  const done = exchanges.filter((e) => e.end > 0);
  const chain = criticalChain(done);
  const { unionMs, sumMs } = busy(done);
  const tooMany = done.filter((e) => e.status === 429).length;
  let waited = '';
  let verdict: string | null = null;
  try {
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    const limited = report.run.rateLimited;
    waited = limited ? `${limited.retries} retries, ${(limited.waitedMs / 1000).toFixed(1)} s waited (summed over workers)` : 'none';
    verdict = report.verdict ?? null;
    console.log(`\nverdict             ${verdict ?? '?'}`);
  } catch {
    // no report: certify's own message says why
  }
  const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  console.log(`\nthrough the API relay (round trip ${rttMs} ms):`);
  console.log(`exchanges           ${done.length}  (429 answers among them: ${tooMany})`);
  console.log(`critical path       ${chain} exchanges in a chain, each sent after the previous one's answer: at least ${sec(chain * rttMs)} of round trips`);
  console.log(`in flight           ${sec(unionMs)} with at least one exchange out, ${(sumMs / Math.max(1, unionMs)).toFixed(2)} out on average then`);
  console.log(`callbacks relayed   ${callbacksRelayed}`);
  console.log(`429s waited out     ${waited}`);
  return { code, verdict };
}
