// Triggers (harness/triggers.ts) and the run's receiver for declared client webhooks
// (harness/run-receiver.ts): each kind reaches its capability as declared, and a capability
// the target does not declare names the config field that would reach it.
import { expect, test } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiClient, ApiResponse } from '../../harness/api-client.ts';
import { resolveTarget, type Target } from '../../harness/config.ts';
import { ControlClient, ControlPlaneError } from '../../harness/control.ts';
import { HarnessStop } from '../../harness/judgement.ts';
import { reasonFor, suppliedBy } from '../../harness/plan.ts';
import { clientWebhookUrl, RecordedChannel, startRunReceiver } from '../../harness/run-receiver.ts';
import { acceptedPastLifetimeMs, loadTokenIssuedEarly, obtainExpiredToken, saveTokenIssuedEarly, TriggerError, TriggerSet, UNSEEN_EXPIRED_TOKENS, watchTokenWays, type TriggerContext } from '../../harness/triggers.ts';

const primary = { clientId: 'p', clientSecret: 'ps' };
const minimal = { baseUrl: 'https://api.example.com', clients: { primary } };

function targetWith(triggers: object, extra: object = {}): Target {
  return resolveTarget({ ...minimal, ...extra, triggers }, 'inline', {});
}

/** A response as the validating client gives one, enough for the triggers. */
function answer(status: number, body: unknown): ApiResponse {
  return { status, body, text: JSON.stringify(body), describe: () => `${status}` } as unknown as ApiResponse;
}

function triggerSet(target: Target, recorded: string[] = [], extra: Partial<TriggerContext> = {}): TriggerSet {
  return new TriggerSet({
    target,
    control: new ControlClient(target),
    api: {} as ApiClient,
    channel: () => {
      throw new Error('no channel in this test');
    },
    runDir: mkdtempSync(join(tmpdir(), 'triggers-')),
    expiredToken: async () => ({ unreachable: 'not in this test' }),
    record: (r) => recorded.push(r),
    allow: () => undefined,
    ...extra,
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

// (An undeclared capability skips the test that asks, as notTestable does: the suites' runs
// check that; here, the reason it gives.)
test('the reason a capability is out of reach names the field and the kinds that reach it', () => {
  expect(reasonFor('expireToken')).toMatch(/set triggers\.expireToken \(kind wait: a client whose tokens live briefly; or control\)/);
  expect(reasonFor('upstreamStall')).toMatch(/triggers\.upstreamFailure to kind control/);
  expect(reasonFor('tokenLifetime')).toMatch(/set triggers\.expireToken to kind wait/);
  expect([...suppliedBy(targetWith({ expireToken: { kind: 'control' } }, { hooks: { controlUrl: 'http://x.invalid' } }))]).not.toContain('tokenLifetime');
  expect([...suppliedBy(targetWith({ expireToken: { kind: 'wait', client: { clientId: 'brief', clientSecret: 'bs' } } }))]).toContain('tokenLifetime');
  expect([...suppliedBy(targetWith({}))]).not.toContain('expireToken');
});

test('a declared capability is supplied to the plan, and a stall only by the control plane', () => {
  const byRequest = targetWith({ upstreamFailure: { kind: 'request', requests: [{}] } });
  expect([...suppliedBy(byRequest)]).toContain('upstreamFailure');
  expect([...suppliedBy(byRequest)]).not.toContain('upstreamStall');
  const byControl = targetWith({ upstreamFailure: { kind: 'control' } }, { hooks: { controlUrl: 'http://x.invalid' } });
  expect([...suppliedBy(byControl)]).toEqual(expect.arrayContaining(['upstreamFailure', 'upstreamStall']));
});

test('upstream failures by request merge the declared body into the accepted one, add the headers, and expect the declared status', async () => {
  const recorded: string[] = [];
  const target = targetWith({ upstreamFailure: { kind: 'request', requests: [{ body: { rateCenter: 'UPSTREAM-503' }, providerStatus: 503 }, { headers: { 'x-fail': '1' } }] } });
  const failures = triggerSet(target, recorded).upstreamFailures();
  const calls: unknown[] = [];
  const api = { call: async (op: string, options: unknown) => (calls.push([op, options]), answer(502, {})) } as unknown as ApiClient;
  for (const f of failures) await f.search(api, { npa: '202' });
  expect(calls).toEqual([
    ['search', { json: { npa: '202', rateCenter: 'UPSTREAM-503' } }],
    ['search', { json: { npa: '202' }, headers: { 'x-fail': '1' } }],
  ]);
  expect(failures.map((f) => f.providerStatus)).toEqual([503, undefined]);
  expect(recorded).toEqual(['upstreamFailure: request']);
});

test('expireToken by wait waits out expires_in once the token was accepted, and a token that lives too long is out of reach with the reason', async () => {
  const brief = { clientId: 'brief', clientSecret: 'bs' };
  const issued: string[] = [];
  // The first token of each call is the watched one; the unseen ones that follow are numbered.
  const issue = (lifetime: number) => {
    let n = 0;
    return async (clientId: string) => (issued.push(clientId), answer(200, { access_token: n++ === 0 ? `tok-${clientId}` : `tok-${clientId}-${n - 1}`, token_type: 'bearer', expires_in: lifetime }));
  };
  const whoami = async () => answer(200, {});
  const unseen = Array.from({ length: UNSEEN_EXPIRED_TOKENS }, (_, i) => ({ token: `tok-brief-${i + 1}`, acceptedBefore: 200 }));
  const target = targetWith({ expireToken: { kind: 'wait', client: brief, maxWaitSeconds: 5 } });
  const started = Date.now();
  const outcome = await obtainExpiredToken(target, new ControlClient(target), issue(0), whoami);
  expect(outcome).toEqual({ token: 'tok-brief', acceptedBefore: 200, unseen, lifetime: { clientId: 'brief', reportedSeconds: 0, acceptedBefore: 200, answeredMs: expect.any(Number), refusedAfterMs: null, lastAcceptedMs: expect.any(Number), watchedMs: expect.any(Number) } });
  // A token still accepted is used as expired only once the margin past expires_in is out.
  expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  // The watched token and the unseen ones, issued together.
  expect(issued).toEqual(Array(1 + UNSEEN_EXPIRED_TOKENS).fill('brief'));
  // A token the server refuses past its expires_in is used as soon as whoami sees the refusal;
  // the unseen tokens are asked about once each, right after their issue, never again.
  let asked = 0;
  const unseenAsked: string[] = [];
  const refusedOnThirdAsk = async (token: string) => (token === 'tok-brief' ? answer(++asked <= 3 ? 200 : 401, {}) : (unseenAsked.push(token), answer(200, {})));
  const quick = Date.now();
  const refused = await obtainExpiredToken(target, new ControlClient(target), issue(0), refusedOnThirdAsk);
  expect(refused).toEqual({ token: 'tok-brief', acceptedBefore: 200, unseen, lifetime: expect.objectContaining({ reportedSeconds: 0, refusedAfterMs: expect.any(Number) }) });
  expect(asked).toBe(4);
  expect(unseenAsked.sort()).toEqual(unseen.map((u) => u.token).sort());
  expect(Date.now() - quick).toBeLessThan(1_000);
  // Rate limiting and timeouts say nothing of the token: only a refusal ends the wait.
  asked = 0;
  const limitedThenRefused = async (token: string) => (token === 'tok-brief' ? answer([200, 429, 408, 503][++asked - 1] ?? 401, {}) : answer(200, {}));
  expect((await obtainExpiredToken(target, new ControlClient(target), issue(0), limitedThenRefused)).lifetime?.refusedAfterMs).not.toBeNull();
  expect(asked).toBe(5);
  const short = targetWith({ expireToken: { kind: 'wait', client: brief, maxWaitSeconds: 1 } });
  const waited = Date.now();
  const tooLong = await obtainExpiredToken(short, new ControlClient(short), issue(3600), whoami);
  expect(tooLong).toEqual({
    unreachable: expect.stringMatching(/reports expires_in 3600 s and was still accepted after 1 s, the longest triggers\.expireToken\.maxWaitSeconds lets the harness wait: raise maxWaitSeconds to at least 3600/),
    lifetime: expect.objectContaining({ reportedSeconds: 3600, refusedAfterMs: null }),
  });
  // maxWaitSeconds and the margin, not the token's hour
  expect(Date.now() - waited).toBeGreaterThanOrEqual(2_000);
  expect(Date.now() - waited).toBeLessThan(3_500);
});

// A server that answers a token request some time after it issued the token: the watched token
// may be refused before the moment its answer's expires_in points at (counted from the answer),
// and the unseen tokens, issued after it, may not be handed out as expired before they are. Their
// latest expiry is bounded from the watched token's request, not from its answer.
test('the unseen tokens are expired when the watch ends, even when the watched token is refused before its answer plus expires_in', async () => {
  const brief = { clientId: 'brief', clientSecret: 'bs' };
  const target = targetWith({ expireToken: { kind: 'wait', client: brief, maxWaitSeconds: 5 } });
  const runDir = mkdtempSync(join(tmpdir(), 'unseen-'));
  // The server's clock: the watched token issued at t0 and answered 400 ms later; the unseen one
  // issued at t0 + 600 ms and answered by t0 + 700 ms. Each lives a second from its issue.
  const t0 = Date.now();
  const issuedAt: Record<string, number> = { 'tok-early': t0, 'tok-early-1': t0 + 600 };
  saveTokenIssuedEarly(runDir, { clientId: 'brief', token: 'tok-early', expiresIn: 1, requestedAt: t0, receivedAt: t0 + 400, acceptedBefore: 200, unseen: [{ token: 'tok-early-1', acceptedBefore: 200 }], unseenReceivedAt: t0 + 700 });
  const whoami = async (token: string) => answer(Date.now() >= issuedAt[token]! + 1_000 ? 401 : 200, {});
  // The watch starts at t0 + 650 ms and asks every 500 ms: at t0 + 1150 ms, inside the window
  // between the token's expiry (t0 + 1000) and its answer plus expires_in (t0 + 1400).
  await new Promise((resolve) => setTimeout(resolve, t0 + 650 - Date.now()));
  const outcome = await obtainExpiredToken(target, new ControlClient(target), async () => answer(500, {}), whoami, loadTokenIssuedEarly(runDir));
  const ended = Date.now();
  expect(outcome).toEqual(expect.objectContaining({ token: 'tok-early', lifetime: expect.objectContaining({ refusedAfterMs: expect.any(Number) }) }));
  expect((outcome as { lifetime: { refusedAfterMs: number } }).lifetime.refusedAfterMs).toBeLessThan(1_400);
  expect(ended, 'the unseen token had not expired when the watch handed it out').toBeGreaterThanOrEqual(issuedAt['tok-early-1']! + 1_000);
});

test('a token refused long before the expires_in it reported is still the expired token, and the wait says when it was refused', async () => {
  const brief = { clientId: 'brief', clientSecret: 'bs' };
  const target = targetWith({ expireToken: { kind: 'wait', client: brief, maxWaitSeconds: 5 } });
  // expires_in in milliseconds: 2000 for a token that lives about a second
  const issue = async () => answer(200, { access_token: 'tok-ms', token_type: 'bearer', expires_in: 2000 });
  const started = Date.now();
  const whoami = async () => answer(Date.now() - started < 1_000 ? 200 : 401, {});
  const outcome = await obtainExpiredToken(target, new ControlClient(target), issue, whoami);
  expect(outcome).toMatchObject({ token: 'tok-ms', acceptedBefore: 200, lifetime: { clientId: 'brief', reportedSeconds: 2000, acceptedBefore: 200 } });
  const refusedAfterMs = outcome.lifetime!.refusedAfterMs!;
  expect(refusedAfterMs).toBeGreaterThanOrEqual(1_000);
  // the last request it was taken on came before the first that refused it
  expect(outcome.lifetime!.lastAcceptedMs).toBeLessThan(refusedAfterMs);
  expect(outcome.lifetime!.lastAcceptedMs).toBeGreaterThanOrEqual(0);
  // asked every half second while expires_in was not out
  expect(refusedAfterMs).toBeLessThan(1_800);
  expect(Date.now() - started).toBeLessThan(2_000);
});

test('the lifetime of a token is asked for only of a wait: through the control plane, or with no trigger, there is none (the test that asks is then not testable: the reason names triggers.expireToken)', async () => {
  const recorded: string[] = [];
  const lifetime = { clientId: 'brief', reportedSeconds: 2, acceptedBefore: 200, answeredMs: 20, refusedAfterMs: 2_100, lastAcceptedMs: 1_900, watchedMs: 2_100 };
  const byWait = targetWith({ expireToken: { kind: 'wait', client: { clientId: 'brief', clientSecret: 'bs' }, maxWaitSeconds: 5 } });
  const allowed: number[] = [];
  const set = triggerSet(byWait, recorded, { expiredToken: async () => ({ token: 't', acceptedBefore: 200, unseen: [], lifetime }), allow: (ms) => allowed.push(ms) });
  expect(await set.tokenLifetime()).toEqual(lifetime);
  expect(recorded).toEqual(['expireToken: wait']);
  expect(allowed).toEqual([14_000]);
  // The worker's token was seen only right after its issue and once refused (the preflight's,
  // reached after its lifetime): a fresh token is watched, and its lifetime is the one given.
  const ten = { ...lifetime, reportedSeconds: 10, lastAcceptedMs: 9_600, refusedAfterMs: 10_100 };
  const blind = { ...ten, lastAcceptedMs: 20, refusedAfterMs: 30_000 };
  const freshly: Array<boolean | undefined> = [];
  const rewatched = triggerSet(byWait, [], { expiredToken: async (options) => (freshly.push(options?.fresh), { token: 't', acceptedBefore: 200, unseen: [], lifetime: options?.fresh ? ten : blind }) });
  expect(await rewatched.tokenLifetime()).toEqual(ten);
  expect(freshly).toEqual([undefined, true]);
  // A watch that saw the token refused too soon is judged as it is: no second token.
  const tooSoon = { ...ten, lastAcceptedMs: 20, refusedAfterMs: 500 };
  const judged: Array<boolean | undefined> = [];
  expect(await triggerSet(byWait, [], { expiredToken: async (options) => (judged.push(options?.fresh), { token: 't', acceptedBefore: 200, unseen: [], lifetime: tooSoon }) }).tokenLifetime()).toEqual(tooSoon);
  expect(judged).toEqual([undefined]);
  // still accepted after maxWaitSeconds: out of reach for AUTH-003, yet the lifetime watched is there
  const unreachable = triggerSet(byWait, [], { expiredToken: async () => ({ unreachable: 'too long', lifetime: { ...lifetime, refusedAfterMs: null } }) });
  expect((await unreachable.tokenLifetime())?.refusedAfterMs).toBeNull();
  const asked: string[] = [];
  const byControl = targetWith({ expireToken: { kind: 'control' } }, { hooks: { controlUrl: 'http://127.0.0.1:9' } });
  for (const target of [byControl, targetWith({})]) {
    const none = triggerSet(target, asked, { expiredToken: async () => (asked.push('expired token'), { unreachable: 'not asked' }) });
    expect(await none.tokenLifetime()).toBeUndefined();
  }
  expect(asked).toEqual([]);
});

test("the expireToken trigger's own client refused is the run's problem, not a failure of the requirement that waits for its token", async () => {
  const target = targetWith({ expireToken: { kind: 'wait', client: { clientId: 'brief', clientSecret: 'wrong' }, maxWaitSeconds: 5 } });
  const refused = async () => answer(401, { error: 'invalid_client' });
  const error = await obtainExpiredToken(target, new ControlClient(target), refused, async () => answer(200, {})).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(TriggerError);
  expect(error).toBeInstanceOf(HarnessStop);
  expect((error as TriggerError).judgement).toEqual({ kind: 'harness', reason: expect.stringMatching(/^TriggerError: the expireToken trigger: the client brief could not obtain a token/), stopsRun: false });
  expect((error as Error).message).toContain('check:  triggers.expireToken.client (clientId and clientSecret) in the target config');
  // Through the control plane the primary client's token is the server's to issue: a refusal stays a failure of the test.
  const byControl = targetWith({ expireToken: { kind: 'control' } }, { hooks: { controlUrl: 'http://127.0.0.1:9' } });
  const primaryRefused = await obtainExpiredToken(byControl, new ControlClient(byControl), refused, async () => answer(200, {})).then(() => undefined, (e: unknown) => e);
  expect(primaryRefused).not.toBeInstanceOf(HarnessStop);
});

test('a control plane that refuses, fails or cannot be reached is the run\'s problem, naming hooks.controlToken and hooks.controlUrl', async () => {
  const server = await new Promise<Server>((resolve) => {
    const s = createHttpServer((req, res) => {
      const authorized = req.headers.authorization === 'Bearer right';
      res.writeHead(authorized ? (req.url === '/_control/tokens/expire' ? 200 : 404) : 401, { 'content-type': 'application/json' }).end(authorized && req.url === '/_control/tokens/expire' ? '{"expired":1}' : '{"error":{"code":"UNAUTHORIZED"}}');
    });
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
  const controlUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/_control`;
  const plane = (controlToken: string | undefined, url = controlUrl) => new ControlClient(targetWith({}, { hooks: { controlUrl: url, ...(controlToken && { controlToken }) } }));
  try {
    expect(await plane('right').expireTokens('p')).toEqual({ expired: 1 });
    const failures = [
      await plane('wrong').expireTokens('p').catch((e: unknown) => e),
      await plane('right').upstream('fail', 503).catch((e: unknown) => e),
      await plane('right', `http://127.0.0.1:${await freePort()}/_control`).expireTokens('p').catch((e: unknown) => e),
    ];
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(ControlPlaneError);
      expect((failure as ControlPlaneError).judgement).toMatchObject({ kind: 'harness', stopsRun: false });
      expect((failure as Error).message).toContain('check:  hooks.controlUrl and hooks.controlToken in the target config');
    }
    expect((failures[0] as Error).message).toMatch(/POST http:\/\/127\.0\.0\.1:\d+\/_control\/tokens\/expire was not done\n  answer: 401 /);
    expect((failures[1] as Error).message).toMatch(/\/_control\/upstream was not done\n  answer: 404 /);
    expect((failures[2] as Error).message).toMatch(/got no answer\n  answer: ECONNREFUSED/);
  } finally {
    server.close();
  }
});

test("the preflight's token of the expireToken client is used, its lifetime counted from when the preflight asked for it", async () => {
  const brief = { clientId: 'brief', clientSecret: 'bs' };
  const target = targetWith({ expireToken: { kind: 'wait', client: brief, maxWaitSeconds: 5 } });
  let issued = 0;
  const issue = async () => (issued++, answer(200, { access_token: 'tok-new', token_type: 'bearer', expires_in: 2 }));
  const refused = async () => answer(401, {});
  const runDir = mkdtempSync(join(tmpdir(), 'issued-early-'));
  // Issued 2.5 s ago with a lifetime of 2 s: already refused, so nothing is waited.
  const requestedAt = Date.now() - 2_500;
  const unseen = [{ token: 'tok-early-1', acceptedBefore: 200 }];
  saveTokenIssuedEarly(runDir, { clientId: 'brief', token: 'tok-early', expiresIn: 2, requestedAt, receivedAt: requestedAt + 20, acceptedBefore: 200, unseen, unseenReceivedAt: requestedAt + 40 });
  const started = Date.now();
  const outcome = await obtainExpiredToken(target, new ControlClient(target), issue, refused, loadTokenIssuedEarly(runDir));
  expect(Date.now() - started).toBeLessThan(500);
  expect(issued).toBe(0);
  expect(outcome).toEqual({ token: 'tok-early', acceptedBefore: 200, unseen, lifetime: expect.objectContaining({ reportedSeconds: 2, acceptedBefore: 200, refusedAfterMs: expect.any(Number) }) });
  expect(outcome.lifetime!.refusedAfterMs!).toBeGreaterThanOrEqual(2_500);
  // accepted only right after the preflight issued it: nothing is known of it from then until 2.5 s
  expect(outcome.lifetime!.lastAcceptedMs).toBe(20);
  // Another client's token, or none kept, and the token is asked for as before.
  expect(await obtainExpiredToken(target, new ControlClient(target), issue, refused, { ...loadTokenIssuedEarly(runDir)!, clientId: 'someone-else' })).toMatchObject({ token: 'tok-new' });
  expect(loadTokenIssuedEarly(mkdtempSync(join(tmpdir(), 'issued-early-')))).toBeNull();
});

test('the run receiver records declared client webhooks for the tests of every worker, and refuses other paths', async () => {
  const port = await freePort();
  const target = targetWith({ clientWebhooks: { kind: 'declared' } }, { webhooks: { listenHost: '127.0.0.1', listenPort: port } });
  const runDir = mkdtempSync(join(tmpdir(), 'run-receiver-'));
  const stop = await startRunReceiver(target, runDir);
  try {
    expect(clientWebhookUrl(target, 'primary', 'delivery')).toBe(`http://127.0.0.1:${port}/clients/primary/delivery`);
    const channel = new RecordedChannel(target, runDir, 'primary', 'delivery');
    const other = new RecordedChannel(target, runDir, 'primary', 'inbound');
    const post = (path: string, body: string) => fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect((await post('/clients/primary/delivery', '{"messageId":"m-other"}')).status).toBe(200);
    const waiting = channel.waitFor('m-1', (c) => c.text.includes('m-1'), { timeoutMs: 5_000 });
    expect((await post('/clients/primary/delivery', '{"messageId":"m-1"}')).status).toBe(200);
    const [callback] = await waiting;
    expect(callback!.json).toEqual({ messageId: 'm-1' });
    expect(channel.unique().map((c) => c.json.messageId)).toEqual(['m-other', 'm-1']);
    expect(other.unique()).toEqual([]);
    // A callback recorded after the last wait is seen by received too, not only by waitFor and
    // unique: a test's check that nothing stray came reads received after a quiet period.
    expect((await post('/clients/primary/delivery', '{"messageId":"m-late"}')).status).toBe(200);
    expect(channel.received.map((c) => c.json.messageId)).toEqual(['m-other', 'm-1', 'm-late']);
    expect((await post('/hooks/anything', '{}')).status).toBe(404);
  } finally {
    await stop();
  }
});

test('a token still taken later than its expires_in, past the tolerance, is counted from the token response: a sliding lifetime shows, a whole-second one does not', () => {
  const base = { clientId: 'brief', reportedSeconds: 5, acceptedBefore: 200, answeredMs: 100, refusedAfterMs: null, watchedMs: 8_000 };
  // Taken 1.4 s past its lifetime: a server that rounds expiry up to the next whole second.
  expect(acceptedPastLifetimeMs({ ...base, lastAcceptedMs: 100 + 5_000 + 1_400 })).toBe(0);
  // Taken 2 s past it: 500 ms beyond the tolerance.
  expect(acceptedPastLifetimeMs({ ...base, lastAcceptedMs: 100 + 5_000 + 2_000 })).toBe(500);
  expect(acceptedPastLifetimeMs({ ...base, lastAcceptedMs: null })).toBe(0);
});

// TOKEN-011 and AUTH-003 on the tokens of the other ways of asking: watched through their
// lifetime, then presented once more when it and the margin are out.
test('the token-ways watch records a token refused early and one still accepted once its lifetime is out, and leaves a token that expires as it says alone', async () => {
  const issuedAt = new Map<string, number>();
  const lives: Record<string, number> = { early: 100, honest: 2_000, immortal: Number.POSITIVE_INFINITY };
  const issue = (token: string) => async () => {
    issuedAt.set(token, Date.now());
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: 2 } } as unknown as ApiResponse;
  };
  const whoami = async (token: string) => ({ status: Date.now() - issuedAt.get(token)! < lives[token]! ? 200 : 401 }) as unknown as ApiResponse;
  // One way per watch, at once: several ways in one watch are asked for STAGGER_MS apart.
  const [early, honest, immortal] = (
    await Promise.all((['early', 'honest', 'immortal'] as const).map((token) => watchTokenWays([[`the way whose token is ${token}`, issue(token)]], whoami, 3)))
  ).map(([watched]) => watched);
  expect(early!.refusedAfterMs, 'refused before its lifetime less the tolerance').toBeDefined();
  expect(early!.acceptedAfterMs).toBeUndefined();
  expect(honest!.refusedAfterMs).toBeUndefined();
  expect(honest!.acceptedAfterMs, 'refused once its lifetime and the margin were out').toBeUndefined();
  expect(immortal!.refusedAfterMs).toBeUndefined();
  expect(immortal!.acceptedAfterMs, 'still accepted past its lifetime and the margin').toBeGreaterThan(2_000);
});
