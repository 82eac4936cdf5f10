// Rate limits end to end: a proxy in front of the bundled reference answers 429 with
// Retry-After where told; the run waits them out and counts them, or stops on the harness's
// side when they never end; --rate-limit spaces the run's requests.
import { expect, test } from '@playwright/test';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../reports/run-fixture.ts';
import { referenceConfig, referenceForFile, runCli } from './helpers.ts';
import { USER_AGENT } from '../../harness/transport.ts';

const shared = referenceForFile('rate-limit-');

/** A proxy to `upstream` that answers 429 (Retry-After: 1) to the requests `limit` picks; it records when each request came. */
async function limitingProxy(upstream: string, limit: (req: IncomingMessage, n: number) => boolean) {
  const arrivals: Array<{ at: number; method: string; url: string; status: number; agent: string; key: string; body: string }> = [];
  const server = createServer(async (req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const n = arrivals.length;
    if (limit(req, n)) {
      arrivals.push({ at, method: req.method!, url: req.url!, status: 429, agent: req.headers['user-agent'] ?? '', key: String(req.headers['idempotency-key'] ?? ''), body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"error":{"code":"RATE_LIMITED","message":"slow down"}}');
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
    const answer = await fetch(upstream + req.url, { method: req.method, headers, ...(chunks.length > 0 && { body: Buffer.concat(chunks) }) });
    arrivals.push({ at, method: req.method!, url: req.url!, status: answer.status, agent: req.headers['user-agent'] ?? '', key: String(req.headers['idempotency-key'] ?? ''), body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([k]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)))).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

const isSend = (req: IncomingMessage) => req.method === 'POST' && req.url!.endsWith('/messages/send');

test('a 429 with Retry-After is waited out: the requirement passes and the report counts the retry', async () => {
  test.setTimeout(180_000);
  let limitedOnce = false;
  // The first send of a test (the preflight's round trip waits out a 429 too, but its wait is not a test's).
  const proxy = await limitingProxy(shared.reference.baseUrl, (req) => isSend(req) && req.headers['user-agent'] === USER_AGENT && !limitedOnce && (limitedOnce = true));
  try {
    const config = referenceConfig(shared.dir, 'limited-once', { ...shared.reference.fixtures, baseUrl: proxy.url });
    const out = join(tempDir(), 'out');
    const run = await runCli('cli/certify.ts', ['--config', config, '--grep', '@SEND-004', '--out', out], { out });
    expect(run.code, run.stdout.slice(-2000) + run.stderr).toBe(0);
    expect(run.report?.requirements.find((r) => r.id === 'SEND-004')?.verdict).toBe('pass');
    expect(run.report?.run.rateLimited).toEqual({ retries: 1, waitedMs: 1000 });
    expect(run.summary).toContain('rate-limited: 1 retry, 1.0 s waited');
    // the retry is the same request (key and payload), a second later: one 429, then the send
    // it stood for went through (other sends of the test may go meanwhile: property cases run several at a time)
    const sends = proxy.arrivals.filter((a) => a.url.endsWith('/messages/send'));
    const limited = sends.find((a) => a.status === 429)!;
    const again = sends.filter((a) => a !== limited && a.key === limited.key);
    expect(again).toHaveLength(1);
    expect(again[0]!.body).toBe(limited.body);
    expect(again[0]!.status).not.toBe(429);
    expect(again[0]!.at - limited.at).toBeGreaterThanOrEqual(1000);
  } finally {
    await proxy.close();
  }
});

test('a target that keeps answering 429 stops the run on the harness side (exit 2), not as a failure of the target', async () => {
  test.setTimeout(180_000);
  const proxy = await limitingProxy(shared.reference.baseUrl, isSend);
  try {
    const config = referenceConfig(shared.dir, 'limited-always', { ...shared.reference.fixtures, baseUrl: proxy.url });
    const out = join(tempDir(), 'out');
    const run = await runCli('cli/certify.ts', ['--config', config, '--grep', '@SEND-004', '--out', out], { out });
    expect(run.code, run.stdout.slice(-2000) + run.stderr).toBe(2);
    expect(run.summary).toMatch(/^HARNESS ERROR /);
    expect(run.report?.run.errors.join('\n')).toContain('RateLimitStop: rate limited: POST');
    expect(run.report?.run.errors.join('\n')).toContain('answered 429 4 times in a row');
    // SEND-004's tests checked nothing: no verdict is held against the target
    expect(run.report?.requirements.filter((r) => r.verdict === 'fail').map((r) => r.id)).toEqual([]);
    expect(run.report?.requirements.find((r) => r.id === 'SEND-004')?.verdict).toBe('not run');
  } finally {
    await proxy.close();
  }
});

test('--rate-limit spaces the run\'s requests: at 4 per second they come 250 ms apart', async () => {
  test.setTimeout(180_000);
  const proxy = await limitingProxy(shared.reference.baseUrl, () => false);
  try {
    const config = referenceConfig(shared.dir, 'paced', { ...shared.reference.fixtures, baseUrl: proxy.url });
    const out = join(tempDir(), 'out');
    const run = await runCli('cli/certify.ts', ['--config', config, '--grep', '@CTX-001', '--rate-limit', '4', '--out', out], { out });
    expect(run.code, run.stdout.slice(-2000) + run.stderr).toBe(0);
    // the preflight's own requests (no user agent) are not paced; the tests' (the harness's transport) are
    const fromTests = proxy.arrivals.filter((a) => a.agent === USER_AGENT).map((a) => a.at).sort((a, b) => a - b);
    expect(fromTests.length).toBeGreaterThan(3);
    const gaps = fromTests.slice(1).map((t, i) => t - fromTests[i]!);
    // Paced when sent; an arrival can lag its sending (the first request opens the connection,
    // a loaded machine delays one), so the span and the typical gap are judged, not each gap.
    // Unpaced, the same requests come a few milliseconds apart.
    const median = [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)]!;
    expect(median, `gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(225);
    expect(fromTests.at(-1)! - fromTests[0]!, `gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(gaps.length * 250 - 200);
  } finally {
    await proxy.close();
  }
});
