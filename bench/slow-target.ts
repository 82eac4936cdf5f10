// npx tsx bench/slow-target.ts [--send-ms 20] [--callback-ms 300] [-- certify flags…]
//
// Certification time against a slow server: the bundled reference behind two small relays, one
// that answers every send `--send-ms` later than the reference did, one that hands every
// callback to the harness's receiver `--callback-ms` after the reference made it (and gives the
// reference the receiver's own answer, or a dropped connection if nothing listens there). The
// reference is started the way a vendor would run it (no control plane, client webhooks set at
// start) and certified with examples/reference-triggers.yaml, its URLs pointed at the relays.
// Prints bench/certify-time.ts's breakdown of that run. Issue 15.6's target for it: 15 s wall.
//
// The relays pass requests and answers through byte for byte except the hop-by-hop headers, so
// the run judges the reference's own behaviour; only the timing changes. The callback relay is
// the run's `webhooks.publicUrl` (http://127.0.0.1:<relay>/p{port}): every URL the harness hands
// out names the port its receiver listens on, so a channel opened later (WH-104) is reached on its
// own port, and refused until it opens, as it would be without the relay.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { parse, stringify } from 'yaml';
import { freePort } from '../cli/free-port.ts';
import { compiledReference } from '../harness/embedded-reference.ts';

const { values, positionals } = parseArgs({
  options: { 'send-ms': { type: 'string', default: '20' }, 'callback-ms': { type: 'string', default: '300' } },
  allowPositionals: true,
});
const sendMs = Number(values['send-ms']);
const callbackMs = Number(values['callback-ms']);
if (!Number.isFinite(sendMs) || sendMs < 0 || !Number.isFinite(callbackMs) || callbackMs < 0) {
  console.error('--send-ms and --callback-ms take a number of milliseconds, 0 or more');
  process.exit(2);
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host', 'expect', 'content-length']);
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 });

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Forwards one request to `origin` + `path`, waits `delayMs` (before or after), answers with what came back. */
async function relay(req: IncomingMessage, res: ServerResponse, origin: string, path: string, delay: { before: number; after: number }): Promise<void> {
  const body = await readBody(req);
  const headers: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (!HOP_BY_HOP.has(req.rawHeaders[i]!.toLowerCase())) headers.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  if (delay.before > 0) await sleep(delay.before);
  let answer;
  try {
    answer = await request(origin + path, {
      method: req.method as 'GET',
      headers,
      ...(body.length > 0 || !['GET', 'HEAD'].includes(req.method ?? 'GET') ? { body } : {}),
      dispatcher: agent,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
  } catch {
    // nothing listens there (or it dropped the connection): so does the relay
    req.socket.destroy();
    return;
  }
  const answerBody = Buffer.from(await answer.body.arrayBuffer());
  if (delay.after > 0) await sleep(delay.after);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  res.writeHead(answer.statusCode, { ...out, 'content-length': String(answerBody.length) });
  res.end(answerBody);
}

function listen(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void): Promise<Server & { port: number }> {
  // A relay that fails (a request cut off half-way) drops the connection, as a broken server would.
  const server = createServer((req, res) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((error: unknown) => {
        console.error(error);
        req.socket.destroy();
      });
  });
  server.keepAliveTimeout = 10_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(Object.assign(server, { port: (server.address() as AddressInfo).port }))));
}

const dir = mkdtempSync(join(tmpdir(), 'bench-slow-'));
const [referencePort, receiverPort] = [await freePort(), await freePort()];
const referenceOrigin = `http://127.0.0.1:${referencePort}`;

const callbacks = await listen((req, res) => {
  const match = /^\/p(\d+)(\/.*)?$/.exec(req.url ?? '');
  if (!match) {
    res.writeHead(404).end();
    return;
  }
  return relay(req, res, `http://127.0.0.1:${match[1]}`, match[2] ?? '/', { before: callbackMs, after: 0 });
});
const api = await listen((req, res) => {
  const isSend = req.method === 'POST' && (req.url ?? '').split('?')[0] === '/api/core/messages/send';
  return relay(req, res, referenceOrigin, req.url ?? '/', { before: 0, after: isSend ? sendMs : 0 });
});

const receiverViaRelay = `http://127.0.0.1:${callbacks.port}/p${receiverPort}`;
const fixturesFile = join(dir, 'fixtures.json');
const reference = spawn(
  process.execPath,
  [
    ...compiledReference(),
    '--host', '127.0.0.1', '--port', String(referencePort), '--fresh', '--db', join(dir, 'ref.db'), '--log-level', 'warn',
    '--allow-webhook-host', '127.0.0.1', '--fixtures-out', fixturesFile,
    '--token-failures-per-source', '100000', '--token-failures-per-client', '100000', '--token-requests-per-minute', '100000',
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

const fixtures = JSON.parse(readFileSync(fixturesFile, 'utf8')) as { clients: Array<{ role: string; webhookSecret?: string }> };
const config = parse(readFileSync('examples/reference-triggers.yaml', 'utf8')) as Record<string, any>;
config.label = `reference behind relays (sends +${sendMs} ms, callbacks +${callbackMs} ms)`;
config.baseUrl = `http://127.0.0.1:${api.port}`;
config.webhooks.listenPort = receiverPort;
config.webhooks.publicUrl = `http://127.0.0.1:${callbacks.port}/p{port}`;
const secret = fixtures.clients.find((c) => c.role === 'primary')?.webhookSecret;
if (secret) config.webhooks.secret = secret;
const configFile = join(dir, 'slow-target.yaml');
writeFileSync(configFile, stringify(config));

console.log(`sends answered ${sendMs} ms late, callbacks delivered ${callbackMs} ms late; config ${configFile}\n`);
// The relays live in this process: the bench runs beside them, not blocking the event loop.
const bench = spawn(process.execPath, ['--import', 'tsx', 'bench/certify-time.ts', '--', '--config', configFile, ...positionals], { stdio: 'inherit' });
const code = await new Promise<number>((resolve) => bench.once('exit', (c) => resolve(c ?? 1)));
reference.kill('SIGTERM');
api.close();
callbacks.close();
await agent.close();
process.exit(code);
