import { test as playwrightTest, type Fixtures } from '@playwright/test';
import { randomUUID } from 'node:crypto';
import { ApiClient, type ClientRole } from './api-client.ts';
import { CAPABILITIES, type Target } from './config.ts';
import { ControlClient } from './control.ts';
import { EvidenceLog } from './evidence.ts';
import { ResponseValidator } from './response-validator.ts';
import { SendGuard } from './send-guard.ts';
import { TokenManager } from './token-manager.ts';
import { undiciTransport, type Transport } from './transport.ts';
import { WebhookReceiver, type WebhookChannel } from './webhook-receiver.ts';
import { notTestable } from './verdicts.ts';
import { SettingsGuard } from './settings-guard.ts';
import { discoverNumbers, readNumbers, type KnownNumbers } from './known-numbers.ts';
import { loadRunTarget, ownFixtures, runSettings, type RunSettings } from './settings.ts';
import { HARNESS_STOP, LOCKS, LOCKS_VALUES, RATE_LIMITED, REACHED_BY, RUN_STOPPED, RUN_STOPPED_ON, SENDS } from './annotations.ts';
import { InterferenceError, interferenceSeen, interferenceWatch } from './interference.ts';
import { auditCallbacks, CallbackAuditFailed } from './callback-audit.ts';
import { controlTokenActions, EarlyTokenRefusals, recordControlTokenAction, refusalsNotCaused } from './token-refusals.ts';
import { rateLimited, RequestPacer, type RateLimitTally } from './rate-limit.ts';
import { judge, recordError, startRecording, type Judged, type Judgement } from './judgement.ts';
import { RunState } from './run-state.ts';
import { EVERYTHING, RunLock, type Need } from './run-lock.ts';
import { RunMessages } from './run-messages.ts';
import { sharedCause, STOP_AFTER, stopReason } from './stop-rule.ts';
import { reasonFor } from './plan.ts';
import { LIFETIME_TOLERANCE_MS, loadTokenIssuedEarly, obtainExpiredToken, TriggerSet, watchTokenWays, type ExpiredTokenOutcome, type Inbound, type WatchedToken } from './triggers.ts';
import { basicCredentials } from './basic-auth.ts';
import { workerReceiverPort } from './run-receiver.ts';
import { loadCatalogue } from './catalogue.ts';

/** The cap of a run whose config sets none and whose settings carry no plan (a hand-made settings object). */
const DEFAULT_SEND_CAP = 2000;

export { expect } from './matchers.ts';
export { notTestable, profileOnly } from './verdicts.ts';

interface WorkerOptions {
  /** Every setting of the run (harness/settings.ts); playwright.config.ts sets it with `use`. */
  runSettings: RunSettings;
}

/**
 * A test that reads or changes every number of every client and compares whole lists holds
 * everything (`{ tag: [...], ...HOLDS_EVERYTHING }`): the run lock's `*`, exclusively, and
 * Playwright's own test lock of that name, so that Playwright never gives two of them to two
 * workers at once (one would wait for the other, idle) and hands a free worker other tests instead.
 */
export const HOLDS_EVERYTHING = { annotation: { type: LOCKS, description: 'everything' }, lock: 'everything' } as const;
/** A test whose checks read values of every number (a change of its own, through the settings fixture, then holds everything): `{ tag: [...], ...HOLDS_EVERY_NUMBER }`. */
export const HOLDS_EVERY_NUMBER = { annotation: { type: LOCKS, description: 'every number' } } as const;

/** The resource of one number's settings (and so of where its callbacks go), for the run lock. */
export function numberResource(role: 'primary' | 'secondary', numberId: string): string {
  return `number:${role}:${numberId}`;
}

/** Whether the run's target reaches a capability through the control plane (read once per process). */
const controlByRun = new Map<string, boolean>();
function usesControl(settings: RunSettings): boolean {
  let control = controlByRun.get(settings.runDir);
  if (control === undefined) {
    const target = loadRunTarget(settings);
    controlByRun.set(settings.runDir, (control = CAPABILITIES.some((name) => target.triggers[name]?.kind === 'control')));
  }
  return control;
}

/** The resource of the target's control plane: every test holds it shared when a trigger uses it, the tests that use it exclusively. */
export const CONTROL_RESOURCE = 'control';


interface WorkerFixtures {
  target: Target;
  /** What the run's worker processes share: sends against the cap, recent failures, a stop. */
  runState: RunState;
  /** The run's lock on named resources when it has several workers (harness/run-lock.ts), else null. */
  runLock: RunLock | null;
  validator: ResponseValidator;
  guard: SendGuard;
  /** The worker's connection pool to the target (harness/transport.ts). */
  transport: Transport;
  tokens: Partial<Record<ClientRole, TokenManager>>;
  receiver: WebhookReceiver;
  /** The worker's numbers: its share of numbers.pool, or the whole list (harness/known-numbers.ts). */
  workerNumbers: KnownNumbers;
  /** The worker's expired token (triggers.expireToken), obtained and waited out once, when a test first asks, with what the wait showed of its lifetime. */
  expiredTokenOnce: (options?: { fresh?: boolean }) => Promise<ExpiredTokenOutcome>;
  /**
   * Tokens of triggers.expireToken's client (kind wait) asked for by form fields and by HTTP
   * Basic, each watched through its lifetime (watchTokenWays), started with the first worker,
   * with the exchanges of the watch; undefined for another kind of trigger or none.
   */
  tokenWaysWatch: () => Promise<{ watched: WatchedToken[]; evidence: EvidenceLog } | undefined>;
  /** Every message the run's accepted sends reported (harness/run-messages.ts). */
  runMessages: RunMessages;
  /** The worker's share of the run's request rate, and the 429s it waited out (the tally needs no target: the automatic judgement reads it). */
  rateLimit: { pacer: RequestPacer; tally: RateLimitTally };
  rateLimitTally: RateLimitTally;
}

/** A transport that keeps to the run's rate and waits out 429s with Retry-After (harness/rate-limit.ts). */
const limited = (transport: Transport, { pacer, tally }: WorkerFixtures['rateLimit'], retryable = () => true): Transport => rateLimited(transport, { pacer, tally, retryable });

interface TestFixtures {
  /**
   * Automatic: the test's hold on the run lock (harness/run-lock.ts), from its start to its end:
   * what its `locks` annotation declares (harness/annotations.ts), the control plane shared when a trigger uses it, and what fixtures add
   * before the test body runs (`need`: the hold is traded for the larger one).
   */
  lockHold: { need(needs: readonly Need[]): Promise<void> };
  /** The worker's numbers, held shared for the test: it sends from them and relies on their settings. */
  knownNumbers: KnownNumbers;
  /** Inbound traffic to the number triggers.inbound names (harness/triggers.ts), that number held exclusively. */
  inbound: Inbound;
  /** Automatic: records what each failed check judged, as annotations the reporter reads. */
  judgement: void;
  evidence: EvidenceLog;
  /** The validating client: every answer is checked against the OpenAPI document. */
  api: ApiClient;
  /**
   * The target's control plane, through which triggers of kind control act. It also knows when
   * the test has made the search's upstream fail, during which a 429 is judged, never retried.
   */
  control: ControlClient;
  /** The declared triggers (harness/triggers.ts); a capability the target lacks makes the test not testable. */
  triggers: TriggerSet;
  /** A fresh webhook channel on the worker's receiver. */
  webhooks: { channel(label?: string, options?: { query?: string }): WebhookChannel; unreachable(label?: string): ReturnType<WebhookReceiver['unreachableChannel']> };
  /** Changes number settings and restores them after the test, pass or fail. */
  settings: SettingsGuard;
  /** A new Idempotency-Key (UUID, as the draft recommends). */
  newKey: () => string;
  /** The secondary client's credentials, or the test is reported not testable. */
  secondClient: NonNullable<Target['clients']['secondary']>;
}

/**
 * Playwright's test without the two browser fixtures it sets up around every test, whatever the
 * test uses: trace and screenshot recording, and browser-context defaults. No test here opens a
 * browser or a Playwright request context, and each of them costs two recorded steps (a
 * captured, source-mapped stack trace each) per test: about 3 s of a certification run's worker
 * CPU (bench/certify-time.ts). The names are Playwright's own (1.65, pinned): should a later
 * version rename them, these two become unused no-ops and runs only get slower again.
 */
const base = playwrightTest.extend({
  _setupArtifacts: [async ({}, use: (r: void) => Promise<void>) => use(), { auto: 'all-hooks-included', box: 'self', timeout: 0 }],
  _setupContextOptions: [async ({}, use: (r: void) => Promise<void>) => use(), { auto: 'all-hooks-included', box: 'self' }],
} as Fixtures);

/**
 * A configured client's credentials, in a JSON body, refused by the token endpoint during a test:
 * the server failed TOKEN-001 (valid credentials get a token) and TOKEN-003 (in a JSON body),
 * whatever the test was for. The preflight obtained a token for them before the run, or the
 * harness wrote them itself (the bundled reference, preflight.ts stopOrNote).
 */
class TokenNotIssued extends Error implements Judged {
  override name = 'TokenNotIssued';
  readonly judgement: Judgement = { kind: 'requirements', ids: ['TOKEN-001', 'TOKEN-003'] };
  constructor(message: string) {
    super(message);
    recordError(this);
  }
}

// Test-scoped fixtures are boxed as 'self': Playwright records no step for their setup and
// teardown. A step captures and source-maps a 50-frame stack trace, and every test sets up
// several of these; the report's evidence already says what each test sent and received.
export const test = base.extend<TestFixtures, WorkerOptions & WorkerFixtures>({
  // An option fixture: the config's `use: { runSettings }` sets it; the default is this process's.
  runSettings: [async ({}, use) => use(runSettings()), { scope: 'worker', option: true }],
  target: [async ({ runSettings }, use) => use(loadRunTarget(runSettings)), { scope: 'worker' }],
  validator: [async ({}, use) => use(new ResponseValidator()), { scope: 'worker' }],
  rateLimitTally: [async ({}, use) => use({ retries: 0, waitedMs: 0 }), { scope: 'worker' }],
  rateLimit: [
    async ({ runSettings, target, rateLimitTally }, use, workerInfo) => {
      const perRun = runSettings.rateLimit ?? target.rateLimit.requestsPerSecond;
      await use({ pacer: new RequestPacer(perRun === null ? null : perRun / workerInfo.config.workers), tally: rateLimitTally });
    },
    { scope: 'worker' },
  ],
  runState: [
    async ({ runSettings }, use, workerInfo) => {
      const state = new RunState(runSettings.runDir, workerInfo.parallelIndex, workerInfo.config.workers);
      await use(state);
      state.flush();
    },
    { scope: 'worker' },
  ],
  runMessages: [async ({ runSettings }, use, workerInfo) => use(new RunMessages(runSettings.runDir, workerInfo.parallelIndex)), { scope: 'worker' }],
  runLock: [async ({ runSettings }, use, workerInfo) => use(RunLock.forRun(runSettings.runDir, workerInfo.config.workers)), { scope: 'worker' }],
  guard: [
    async ({ target, runSettings, runState }, use) => {
      const cap = target.sendCap ?? runSettings.sendBudget ?? DEFAULT_SEND_CAP;
      const where = target.sendCap !== null ? (runSettings.target.source.kind === 'config' ? `sendCap in ${runSettings.target.source.path}` : 'the bundled reference\'s sendCap') : 'what the plan said the run needs';
      const describe = `${cap} sends for the run (${where}): the run needed more than planned; raise sendCap`;
      await use(new SendGuard(target.recipients.allowPattern, { sends: cap, describe }, runState));
    },
    { scope: 'worker' },
  ],
  transport: [
    async ({}, use) => {
      const transport = undiciTransport();
      await use(transport);
      await transport.close();
    },
    { scope: 'worker' },
  ],
  tokens: [
    async ({ target, validator, guard, transport, rateLimit }, use) => {
      // Tokens outlive a test, so they are fetched through a client whose evidence is not a test's.
      const fetcher = new ApiClient({ target, transport: limited(transport, rateLimit), validator, guard, evidence: new EvidenceLog(), tokens: {} });
      const managers: Partial<Record<ClientRole, TokenManager>> = {};
      for (const role of ['primary', 'secondary', 'special'] as const) {
        const creds = target.clients[role];
        if (!creds) continue;
        managers[role] = new TokenManager({
          obtain: async () => {
            // The lifetime counts from the request: a token can only have been issued after it went out.
            const requestedAt = Date.now();
            const res = await fetcher.call('token', {
              json: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret },
            });
            if (res.status !== 200 && res.status !== 201) throw new TokenNotIssued(`TOKEN-001, TOKEN-003: the ${role} client's configured credentials, in a JSON body, got no token: ${res.describe()} ${res.text.slice(0, 300)}`);
            return { accessToken: res.body.access_token, expiresAt: requestedAt + Number(res.body.expires_in) * 1000 };
          },
          earlyToleranceMs: LIFETIME_TOLERANCE_MS,
        });
      }
      await use(managers);
    },
    { scope: 'worker' },
  ],
  receiver: [
    async ({ target, runSettings }, use, workerInfo) => {
      const { listenHost, publicUrl } = target.webhooks;
      const receiver = await WebhookReceiver.start({
        host: listenHost,
        port: workerReceiverPort(target, workerInfo.parallelIndex),
        ...(publicUrl && { publicUrl }),
        watch: interferenceWatch(runSettings.runDir),
      });
      await use(receiver);
      await receiver.close();
    },
    { scope: 'worker' },
  ],
  expiredTokenOnce: [
    async ({ target, validator, guard, transport, tokens, rateLimit, runSettings }, use) => {
      // Paced like the tests' requests: watching a token expire asks whoami every half second.
      const fetcher = new ApiClient({ target, transport: limited(transport, rateLimit), validator, guard, evidence: new EvidenceLog(), tokens });
      const stop = new AbortController();
      let outcome: Promise<ExpiredTokenOutcome> | undefined;
      const obtain = (early: ReturnType<typeof loadTokenIssuedEarly>) =>
        obtainExpiredToken(
          target,
          new ControlClient(target, (clientId, action) => recordControlTokenAction(runSettings.runDir, { clientId, action, at: Date.now() })),
          (clientId, clientSecret) => fetcher.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } }),
          (token) => fetcher.call('whoami', { as: 'none', headers: { authorization: `Bearer ${token}` } }),
          early,
          stop.signal,
        ).finally(() => {
          // The control plane expires every token of the client, the worker's managed one too.
          if (target.triggers.expireToken?.kind === 'control') tokens.primary?.invalidate();
        });
      // The preflight's token for the client, whose lifetime has run since the run started; fresh: one asked for now.
      const once = () => (outcome ??= obtain(loadTokenIssuedEarly(runSettings.runDir)));
      // A short-lived token (kind wait) is watched from the worker's first test (the api fixture sets
      // this up), beside the tests, so those that need it expired (AUTH-003) or its lifetime seen
      // (TOKEN-011) rarely wait for it.
      // A test that asks later takes what the watch saw; one that asks first waits for the rest.
      if (target.triggers.expireToken?.kind === 'wait') once().catch(() => {});
      await use((options) => (options?.fresh ? obtain(null) : once()));
      // A run whose tests ended first does not wait for the watch.
      stop.abort();
    },
    { scope: 'worker' },
  ],
  tokenWaysWatch: [
    async ({ target, validator, guard, transport, tokens, rateLimit }, use, workerInfo) => {
      const trigger = target.triggers.expireToken;
      const log = new EvidenceLog();
      const fetcher = new ApiClient({ target, transport: limited(transport, rateLimit), validator, guard, evidence: log, tokens });
      const stop = new AbortController();
      let watch: Promise<WatchedToken[]> | undefined;
      const start = () => {
        if (trigger?.kind !== 'wait') return undefined;
        const { clientId, clientSecret } = trigger.client;
        return (watch ??= watchTokenWays(
          [
            ['form fields', () => fetcher.call('token', { form: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } })],
            ['HTTP Basic', () => fetcher.call('token', { form: { grant_type: 'client_credentials' }, headers: { authorization: basicCredentials(clientId, clientSecret) } })],
          ],
          (token) => fetcher.call('whoami', { as: 'none', headers: { authorization: `Bearer ${token}` } }),
          trigger.maxWaitSeconds,
          stop.signal,
        ));
      };
      // The first worker starts the watch with its first test (one test needs it, and it is the
      // first worker's unless the run has several); another worker starts it when its test asks.
      if (workerInfo.parallelIndex === 0) start()?.catch(() => {});
      await use(async () => {
        const watched = await start();
        return watched && { watched, evidence: log };
      });
      stop.abort();
    },
    { scope: 'worker' },
  ],
  workerNumbers: [
    async ({ target, validator, guard, transport, tokens, rateLimit, runLock }, use, workerInfo) => {
      const client = new ApiClient({ target, transport: limited(transport, rateLimit), validator, guard, evidence: new EvidenceLog(), tokens });
      // What each number offers (a campaignregId or none, SMS, MMS) is read while no test changes
      // any number: a worker started, or restarted after a failure, while another worker's test
      // has cleared a campaignregId for a moment would take that number for one without. The
      // first test's own hold is traded for this one and taken again by knownNumbers after.
      await runLock?.acquire([{ resource: EVERYTHING, mode: 'shared' }]);
      const numbers = await discoverNumbers(client, target, workerInfo.parallelIndex, workerInfo.config.workers).finally(() => runLock?.release());
      await use(numbers);
    },
    { scope: 'worker' },
  ],

  lockHold: [
    async ({ runLock, runSettings }, use, testInfo) => {
      const held: Need[] = [];
      const declared = testInfo.annotations.filter((a) => a.type === LOCKS).map((a) => a.description);
      const unknown = declared.filter((d) => !(LOCKS_VALUES as readonly (string | undefined)[]).includes(d));
      if (unknown.length > 0) throw new Error(`the test declares ${LOCKS} ${unknown.join(', ')}; it takes ${LOCKS_VALUES.join(' or ')}`);
      const hold = async (needs: readonly Need[]) => {
        held.push(...needs);
        if (runLock !== null) testInfo.setTimeout(testInfo.timeout + (await runLock.acquire(held)));
      };
      // The control plane changes what every test sees (the upstream, every token of a client, the client webhooks).
      // The target is read here only when there is a lock to take: a run of one worker needs no target for its hold.
      const control = runLock !== null && usesControl(runSettings);
      await hold([
        ...(control ? [{ resource: CONTROL_RESOURCE, mode: 'shared' as const }] : []),
        ...(declared.includes('everything') ? [{ resource: EVERYTHING, mode: 'exclusive' as const }] : declared.includes('every number') ? [{ resource: EVERYTHING, mode: 'shared' as const }] : []),
      ]);
      await use({ need: hold });
      runLock?.release();
    },
    { auto: true, box: 'self' },
  ],
  knownNumbers: [
    async ({ lockHold, workerNumbers }, use) => {
      await lockHold.need(workerNumbers.share.map(({ role, numberId }) => ({ resource: numberResource(role, numberId), mode: 'shared' })));
      await use(workerNumbers);
    },
    { box: 'self' },
  ],
  inbound: [
    async ({ lockHold, triggers, knownNumbers, target }, use) => {
      const inbound = triggers.inbound(knownNumbers);
      // Where inbound traffic to the number goes is the number's: no other test may point it elsewhere, or send to it, meanwhile.
      if (target.triggers.inbound?.kind === 'loopback') await lockHold.need([{ resource: numberResource('primary', inbound.numberId), mode: 'exclusive' }]);
      await use(inbound);
    },
    { box: 'self' },
  ],
  judgement: [
    async ({ runState, rateLimitTally: tally, runSettings }, use, testInfo) => {
      // A stopped run starts no more tests: each would fail the same way and check nothing.
      const stopped = runState.stopped();
      if (stopped !== null) {
        testInfo.annotations.push({ type: RUN_STOPPED, description: stopped.reason });
        if (stopped.failedOn.length > 0) testInfo.annotations.push({ type: RUN_STOPPED_ON, description: stopped.failedOn.join(', ') });
        testInfo.skip(true, `not run: ${stopped.reason}`);
      }
      startRecording();
      const sendsBefore = runState.sends;
      const { retries, waitedMs } = tally;
      // Waiting out the target's 429s is not the test's time (a deep run's many failed token
      // requests can make the target limit it for minutes): its timeout grows by each wait.
      tally.onWait = (ms) => testInfo.setTimeout(testInfo.timeout + ms);
      await use();
      tally.onWait = undefined;
      if (runState.sends > sendsBefore) {
        testInfo.annotations.push({ type: SENDS, description: String(runState.sends - sendsBefore) });
        runState.flush();
      }
      if (tally.retries > retries) {
        testInfo.annotations.push({ type: RATE_LIMITED, description: JSON.stringify({ retries: tally.retries - retries, waitedMs: tally.waitedMs - waitedMs }) });
      }
      // Another client on the target may have caused a failure: what the receivers saw of it, and
      // the lists read after a failed test (the api fixture), count (harness/interference.ts). Then
      // the test checked nothing of the server's, and the run stops on the harness's side.
      const interference = interferenceSeen(runSettings.runDir);
      if (interference.length > 0) {
        const stop = new InterferenceError(interference);
        testInfo.annotations.push({ type: HARNESS_STOP, description: (stop.judgement as { reason: string }).reason });
        if (testInfo.status !== 'skipped') runState.stop((stop.judgement as { reason: string }).reason);
        return;
      }
      const { judgements, annotations } = judge(testInfo.errors);
      testInfo.annotations.push(...annotations);
      if (testInfo.status === 'skipped' || testInfo.status === 'interrupted') return;
      const runStop = judgements.find((j) => j.kind === 'harness' && j.stopsRun);
      if (runStop?.kind === 'harness') return runState.stop(runStop.reason);
      const failed = testInfo.status === 'failed' || testInfo.status === 'timedOut';
      const ids = judgements.flatMap((j) => (j.kind === 'requirements' ? j.ids : []));
      const failsRun = (id: string) => runSettings.strict || loadCatalogue().requirements.find((r) => r.id === id)?.level !== 'standard';
      const stop = stopReason(runState.remember(sharedCause(failed, testInfo.tags, ids, testInfo.errors[0]?.message, failsRun), STOP_AFTER));
      if (stop !== null) runState.stop(stop.reason, stop.failedOn);
    },
    { auto: true, box: 'self' },
  ],
  evidence: [
    async ({}, use, testInfo) => {
      const log = new EvidenceLog();
      await use(log);
      if (log.exchanges.length > 0) {
        // Pushed rather than attach()ed: attach() records a step with a source-mapped stack
        // trace, about a quarter of a millisecond per test, for a step nobody reads.
        testInfo.attachments.push({ name: 'evidence', body: Buffer.from(JSON.stringify(log.toJSON())), contentType: 'application/json' });
      }
    },
    { box: 'self' },
  ],
  api: [
    async ({ target, validator, guard, transport, tokens, evidence, rateLimit, control, runMessages, runSettings, expiredTokenOnce, tokenWaysWatch }, use, testInfo) => {
      // The worker's short-lived token watches start with its first test that talks to the
      // target (they are set up once per worker, and run beside the tests from then on).
      void expiredTokenOnce;
      void tokenWaysWatch;
      const roles = (['primary', 'secondary', 'special'] as const).filter((role) => tokens[role]);
      const refusedBefore = new Map(roles.map((role) => [role, tokens[role]!.refusals.length]));
      await use(new ApiClient({ target, transport: limited(transport, rateLimit, () => !control.upstreamFaulted), validator, guard, evidence, tokens, messages: runMessages }));
      // The held tokens this test's requests found refused before their lifetime was out (TOKEN-011), but those the control plane ended.
      // The run's control-plane actions are read only when a refusal came (nearly never).
      const early = roles.flatMap((role) => {
        const met = tokens[role]!.refusals.slice(refusedBefore.get(role));
        if (met.length === 0) return [];
        const clientId = target.clients[role]!.clientId;
        return refusalsNotCaused(met, controlTokenActions(runSettings.runDir, clientId)).map((refusal) => ({ role, clientId, refusal }));
      });
      // After a failed test, the lists are read for another run's marks: a setting another client
      // changed under the test (the judgement fixture then stops the run instead of failing it).
      if ((testInfo.status === 'failed' || testInfo.status === 'timedOut') && interferenceSeen(runSettings.runDir).length === 0) {
        const watch = interferenceWatch(runSettings.runDir);
        const reader = new ApiClient({ target, transport: limited(transport, rateLimit), validator, guard, evidence: new EvidenceLog(), tokens });
        for (const role of ['primary', 'secondary'] as const) {
          if (target.clients[role]) watch.check(await readNumbers(reader, role).catch(() => []), `the ${role} client's numbers list`);
        }
      }
      if (early.length > 0) throw new EarlyTokenRefusals(early);
    },
    { box: 'self' },
  ],
  control: [
    async ({ target, runSettings }, use) => {
      await use(new ControlClient(target, (clientId, action) => recordControlTokenAction(runSettings.runDir, { clientId, action, at: Date.now() })));
    },
    { box: 'self' },
  ],
  triggers: [
    async ({ lockHold, target, api, control, webhooks, runSettings, expiredTokenOnce }, use, testInfo) => {
      // A trigger of kind control changes what every test sees: the test has the control plane to itself.
      if (CAPABILITIES.some((name) => target.triggers[name]?.kind === 'control')) await lockHold.need([{ resource: CONTROL_RESOURCE, mode: 'exclusive' }]);
      await use(
        new TriggerSet({
          target,
          control,
          api,
          channel: (label) => webhooks.channel(label),
          runDir: runSettings.runDir,
          expiredToken: expiredTokenOnce,
          record: (reached) => {
            if (!testInfo.annotations.some((a) => a.type === REACHED_BY && a.description === reached)) testInfo.annotations.push({ type: REACHED_BY, description: reached });
          },
          allow: (ms) => testInfo.setTimeout(testInfo.timeout + ms),
        }),
      );
    },
    { box: 'self' },
  ],
  // Each test's channels are its own (a unique path on the worker's receiver): nothing to lock.
  // After the test, every callback they received is checked for its signature, its timestamp
  // and its webhook-id (WH-101, WH-102, WH-109: harness/callback-audit.ts), whatever the test
  // itself looked at.
  webhooks: [
    async ({ receiver, target }, use) => {
      const channels: WebhookChannel[] = [];
      const kept = <C extends WebhookChannel>(channel: C): C => (channels.push(channel), channel);
      await use({ channel: (label, options) => kept(receiver.channel(label, options)), unreachable: async (label) => kept(await receiver.unreachableChannel(label)) });
      const findings = auditCallbacks(channels.flatMap((c) => c.received), target);
      await receiver.reset();
      if (findings.length > 0) throw new CallbackAuditFailed(findings);
    },
    { box: 'self' },
  ],
  // The test changes settings of its worker's numbers: it holds them exclusively.
  settings: [
    async ({ lockHold, workerNumbers, api, runSettings }, use) => {
      await lockHold.need(workerNumbers.share.map(({ role, numberId }) => ({ resource: numberResource(role, numberId), mode: 'exclusive' })));
      const guard = new SettingsGuard(api, workerNumbers.share, ownFixtures(runSettings.target.source));
      await use(guard);
      await guard.restore();
    },
    { box: 'self' },
  ],
  newKey: [
    async ({}, use) => {
      await use(() => randomUUID());
    },
    { box: 'self' },
  ],
  secondClient: [
    async ({ target }, use) => {
      if (!target.clients.secondary) notTestable(reasonFor('secondClient'));
      await use(target.clients.secondary!);
    },
    { box: 'self' },
  ],
});
