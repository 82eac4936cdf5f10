// The paths a black-box client cannot bring about by itself — an upstream failure, an expired
// token, the client's own webhooks, inbound traffic, a failed delivery — reached the way the
// target declares (triggers in the target config: a request, a wait, a declaration, a
// loopback send, or the test-control plane). Tests ask for a capability and get what reaches
// it, whatever the kind; a capability the target does not declare makes the test not testable
// here, naming the field to set (harness/plan.ts, reasonFor), and one it does declare is
// recorded on the test as how its requirements were reached.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { acceptedMessageIds } from '../generators/send-port.ts';
import type { ApiClient, ApiResponse, ClientRole } from './api-client.ts';
import type { Capability, ClientCredentials, Target, Triggers } from './config.ts';
import type { ControlClient } from './control.ts';
import { runMark } from './interference.ts';
import { HarnessStop } from './judgement.ts';
import { canSendSms, type KnownNumbers, type NumberRecord } from './known-numbers.ts';
import { expect } from './matchers.ts';
import { reachedBy, reasonFor } from './plan.ts';
import { RecordedChannel, type ClientWebhookKind } from './run-receiver.ts';
import { notTestable } from './verdicts.ts';
import type { WebhookChannel } from './webhook-receiver.ts';
import type { RequirementLabel } from './requirement-ids.ts';

/**
 * A trigger's own credentials were refused: the sandbox client of triggers.expireToken (kind
 * wait) could not obtain a token. That client comes from the target config, not from the
 * interface, so this is the run's problem: the test that needed it is a harness error, never a
 * failure of the requirement it checks. The preflight checks the same credentials first.
 */
export class TriggerError extends HarnessStop {
  override name = 'TriggerError';
  // Only the tests that need this trigger stop; the others still judge the server.
  override readonly stopsRun = false;
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** Statuses the control plane's upstream is made to answer: several, so a fixed providerStatus is caught. */
// Every kind of answer that is not a success: server errors, a rate limit, client errors (a
// server that passes an upstream 4xx through as its own is right on 5xx), and 300, the first
// status that is not a 2xx.
const CONTROL_UPSTREAM_STATUSES = [503, 500, 429, 404, 400, 300] as const;

/**
 * How long past a token's expires_in it may still be accepted before it is used as expired
 * anyway (expires_in is whole seconds, RFC 6749 5.1, and the server counts from the moment it
 * issued the token, which is a little before the answer arrived), and how often whoami asks
 * meanwhile: the wait ends as soon as the token is refused. Before expires_in is out whoami
 * asks less often: a refusal then says the token did not live as long as it was said to.
 */
// Long enough past expires_in to see a token still taken later than LIFETIME_TOLERANCE_MS after it (AUTH-003).
const EXPIRY_MARGIN_MS = 2_000;
const EXPIRY_POLL_MS = 50;
const LIFETIME_POLL_MS = 500;

/** One way to make the search's upstream fail, and what details.providerStatus must then carry. */
export interface UpstreamFailure {
  /** Names the failure in assertion messages. */
  label: string;
  /** The upstream status to expect in details.providerStatus; undefined: it must be present. */
  providerStatus?: number | string;
  /** Search with `body` (a body the target accepts) while the upstream fails, as the primary client or `as`. */
  search(api: ApiClient, body: Record<string, unknown>, as?: ClientRole): Promise<ApiResponse>;
}

/** A token that has expired, and how it was answered while it was fresh. */
export interface ExpiredToken {
  token: string;
  /** whoami's status with the token before it expired (the precondition that the 401 is the expiry's doing). */
  acceptedBefore: number;
  /**
   * Tokens of the same client issued with `token` and expired with it, none of them presented
   * since it expired (UNSEEN_EXPIRED_TOKENS), each with whoami's status before: `token` was
   * watched until refused, and a server that forgets a token the first time it refuses it as
   * expired answers every later request with it as an unknown token, right for the wrong reason.
   * Each route's AUTH-003 test takes one of its own.
   */
  unseen: Array<{ token: string; acceptedBefore: number }>;
}

/** How many unseen expired tokens (ExpiredToken.unseen) are issued: one for each /api/core route's AUTH-003 test (suites/bearer). */
export const UNSEEN_EXPIRED_TOKENS = 5;

/**
 * What waiting out a short-lived token (triggers.expireToken, kind wait) showed of its lifetime:
 * how long its token response said it lives, and when, if ever while the harness watched, the
 * server refused it.
 */
export interface ObservedLifetime {
  /** The client of triggers.expireToken. */
  clientId: string;
  /** expires_in of its token response, in seconds. */
  reportedSeconds: number;
  /** whoami's status with the token right after it was issued. */
  acceptedBefore: number;
  /** Milliseconds from sending the token request to its answer: the token's expires_in runs from then at the latest. */
  answeredMs: number;
  /** Milliseconds from sending the token request to the first answer that refused the token; null when none did while the harness watched. */
  refusedAfterMs: number | null;
  /**
   * Milliseconds from sending the token request to sending the last request the token was
   * accepted on (2xx); null when it never was. With refusedAfterMs it bounds when the token
   * stopped working: a worker that first asks after the token should have expired has seen
   * nothing of its lifetime between the two.
   */
  lastAcceptedMs: number | null;
  /** Milliseconds from sending the token request to the last answer the harness waited for. */
  watchedMs: number;
}

/**
 * What a worker keeps of the expired token it obtained once: the token, or why there is none;
 * for kind wait, what the wait showed of the token's lifetime either way.
 */
export type ExpiredTokenOutcome = (ExpiredToken | { unreachable: string }) & { lifetime?: ObservedLifetime };

/**
 * A token of triggers.expireToken's client (kind wait) obtained before the tests: the preflight
 * obtains one to check the client's credentials, and keeps it, so that the token's lifetime runs
 * beside the run's start instead of from the first test that needs it. The global setup writes
 * it under the run's folder, where every worker reads it.
 */
export interface TokenIssuedEarly {
  clientId: string;
  token: string;
  /** expires_in of the token response, as it came. */
  expiresIn: unknown;
  /** When the token request was sent and its answer came (ms since the epoch). */
  requestedAt: number;
  receivedAt: number;
  /** whoami's status with the token right after it was issued. */
  acceptedBefore: number;
  /** The tokens issued right after it (ExpiredToken.unseen), and when the last of them came. */
  unseen: Array<{ token: string; acceptedBefore: number }>;
  unseenReceivedAt: number;
}

/** The primary client's first token of the run, obtained by the preflight (TOKEN-011's oldest token). */
export interface PrimaryIssuedEarly {
  token: string;
  /** expires_in of the token response, as it came. */
  expiresIn: unknown;
  /** When the token request was sent (ms since the epoch). */
  requestedAt: number;
}

const ISSUED_EARLY_FILE = 'expire-token.json';
const PRIMARY_EARLY_FILE = 'primary-token.json';

/** A token the global setup keeps under the run's folder for the workers: readable by this user only. */
function keepToken(runDir: string, file: string, value: object): void {
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, file), JSON.stringify(value), { mode: 0o600 });
}

function keptToken<T>(runDir: string, file: string): T | null {
  const path = join(runDir, file);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : null;
}

export const savePrimaryIssuedEarly = (runDir: string, issued: PrimaryIssuedEarly): void => keepToken(runDir, PRIMARY_EARLY_FILE, issued);
export const loadPrimaryIssuedEarly = (runDir: string): PrimaryIssuedEarly | null => keptToken(runDir, PRIMARY_EARLY_FILE);
export const saveTokenIssuedEarly = (runDir: string, issued: TokenIssuedEarly): void => keepToken(runDir, ISSUED_EARLY_FILE, issued);
export const loadTokenIssuedEarly = (runDir: string): TokenIssuedEarly | null => keptToken(runDir, ISSUED_EARLY_FILE);

/** A refusal of a bearer token: a 4xx other than 408 and 429, which say nothing of the token. */
function refuses(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/** An answer that took the token. */
function accepts(status: number): boolean {
  return status >= 200 && status < 300;
}

/** Inbound traffic to one of the primary client's numbers. */
export interface Inbound {
  /** The number the traffic arrives at. */
  numberId: string;
  /** The primary number a loopback send goes from (kind loopback); undefined for the control plane's traffic, which no send of the client's makes. */
  sender?: string;
  /**
   * Make `text` arrive at numberId; `from` is the sender's phone number when the harness knows it,
   * `sent` the messageIds a loopback send's answer named (its own delivery events report them).
   * `besides`: other recipients the loopback send names before the number (the control plane
   * delivers to the number alone). `mms`: a loopback MMS, with the config's media sample, from
   * an MMS-enabled number (not testable without one).
   */
  deliver(text: string, id: RequirementLabel, options?: { besides?: readonly string[]; mms?: boolean }): Promise<{ messageId?: string; from?: string; sent?: string[] }>;
}

export interface TriggerContext {
  target: Target;
  control: ControlClient;
  api: ApiClient;
  /** A fresh channel on the worker's receiver. */
  channel(label: string): WebhookChannel;
  runDir: string;
  /** The worker's expired token, obtained once per worker (fixtures.ts); `fresh`: a new token watched now, not the worker's. */
  expiredToken: (options?: { fresh?: boolean }) => Promise<ExpiredTokenOutcome>;
  /** Record on the test how a capability was reached. */
  record(reached: string): void;
  /** Lengthen the test's time limit by this much (a wait for a token to expire). */
  allow(ms: number): void;
}

export class TriggerSet {
  constructor(private readonly ctx: TriggerContext) {}

  /** The declared trigger, recorded on the test; without one the test is not testable here. */
  require<C extends Capability>(capability: C): NonNullable<Triggers[C]> {
    const trigger = this.ctx.target.triggers[capability];
    if (!trigger) notTestable(reasonFor(capability));
    this.ctx.record(reachedBy(capability, trigger!.kind));
    return trigger!;
  }

  /** Every declared way to make the search's upstream fail. */
  upstreamFailures(): UpstreamFailure[] {
    const trigger = this.require('upstreamFailure');
    const control = this.ctx.control;
    if (trigger.kind === 'request') {
      return trigger.requests.map((r, i) => ({
        label: `the search of triggers.upstreamFailure.requests[${i}]`,
        ...(r.providerStatus !== undefined && { providerStatus: r.providerStatus }),
        search: async (api, body, as) => {
          // The failure is provoked: a 429 answer is judged as SEARCH-002's answer, never waited out.
          control.upstreamFaulted = true;
          try {
            return await api.call('search', { json: { ...body, ...r.body }, ...(r.headers && { headers: r.headers }), ...(as && { as }) });
          } finally {
            control.upstreamFaulted = false;
          }
        },
      }));
    }
    return CONTROL_UPSTREAM_STATUSES.map((status) => ({
      label: `a search while the control plane's upstream answers ${status}`,
      providerStatus: status,
      search: async (api, body, as) => {
        await control.upstream('fail', status);
        try {
          return await api.call('search', { json: body, ...(as && { as }) });
        } finally {
          await control.upstream('ok');
        }
      },
    }));
  }

  /** The control plane, for a test whose check differs by kind once require() said it is kind control. */
  get control(): ControlClient {
    return this.ctx.control;
  }

  /** A search while the upstream stalls: only the control plane can make it stall. */
  upstreamStall(): (api: ApiClient, body: Record<string, unknown>) => Promise<ApiResponse> {
    const trigger = this.ctx.target.triggers.upstreamFailure;
    if (trigger?.kind !== 'control') notTestable(reasonFor('upstreamStall'));
    this.ctx.record(reachedBy('upstreamFailure', 'control'));
    const control = this.ctx.control;
    return async (api, body) => {
      await control.upstream('stall');
      try {
        return await api.call('search', { json: body });
      } finally {
        await control.upstream('ok');
      }
    };
  }

  /** An expired token of the client the trigger names (the worker's, obtained once). */
  async expiredToken(): Promise<ExpiredToken> {
    const trigger = this.require('expireToken');
    if (trigger.kind === 'wait') this.ctx.allow(trigger.maxWaitSeconds * 1000 + EXPIRY_MARGIN_MS);
    const outcome = await this.ctx.expiredToken();
    if ('unreachable' in outcome) notTestable(outcome.unreachable);
    return outcome as ExpiredToken;
  }

  /**
   * What waiting out the token of triggers.expireToken showed of its lifetime (the worker's
   * token, obtained and waited out once, as for expiredToken): for kind wait only. A target that
   * reaches expired tokens otherwise, or not at all, had nothing waited out: undefined, and the
   * test that asks says why it is not testable (reasonFor('tokenLifetime')).
   */
  /**
   * The same, for a check that uses it only where there is one (AUTH-003 on a token the watch
   * saw taken past its lifetime): it reaches the expireToken trigger, and its absence (kind
   * control) makes no test not testable.
   */
  async watchedLifetime(): Promise<ObservedLifetime | undefined> {
    return this.tokenLifetime();
  }

  async tokenLifetime(): Promise<ObservedLifetime | undefined> {
    const trigger = this.ctx.target.triggers.expireToken;
    if (trigger?.kind !== 'wait') return undefined;
    this.ctx.record(reachedBy('expireToken', 'wait'));
    this.ctx.allow(2 * (trigger.maxWaitSeconds * 1000 + EXPIRY_MARGIN_MS));
    const observed = (await this.ctx.expiredToken()).lifetime;
    // The worker's token is the preflight's when it can be: a run that reaches it after its
    // lifetime has asked nothing in between, and nothing shows when it stopped working. Then a
    // fresh token is watched through its lifetime, so TOKEN-011 is judged on every run.
    if (observed && !showsLifetime(observed)) return (await this.ctx.expiredToken({ fresh: true })).lifetime ?? observed;
    return observed;
  }

  /**
   * Run `fn` with the callbacks of the primary client's own `kind` webhook: the declared one,
   * or, through the control plane, a fresh channel the webhook points at for the duration.
   */
  async withClientWebhook(kind: ClientWebhookKind, id: RequirementLabel, fn: (channel: WebhookChannel) => Promise<void>): Promise<void> {
    const trigger = this.require('clientWebhooks');
    if (trigger.kind === 'declared') return fn(new RecordedChannel(this.ctx.target, this.ctx.runDir, 'primary', kind));
    const { api, control, target } = this.ctx;
    const channel = this.ctx.channel(`client-${kind}`);
    // The interface shows only whether a client webhook is configured (whoami), not where,
    // so only a client that had none can be put back exactly: one that has is left alone.
    const before = await api.call('whoami');
    expect(before).toSucceed(`${id}: precondition: reading the client context`);
    if (before.body?.[`${kind}WebhookConfigured`] === true) {
      notTestable(`the client already has a ${kind} webhook, which the interface gives no way to read back and restore`);
    }
    const clientId = target.clients.primary.clientId;
    await control.clientWebhooks(clientId, { [kind]: channel.url });
    try {
      await fn(channel);
    } finally {
      await control.clientWebhooks(clientId, { [kind]: null });
    }
  }

  /**
   * The primary client's webhooks as channels, for a test that uses those it can see and does
   * without the rest (the stateful model): declared ones as the run receiver records them; through
   * the control plane, a fresh channel for each kind the client has none of, pointed back at
   * nothing by `release`. Unlike withClientWebhook, it never makes the test not testable: an
   * undeclared capability, or a client webhook already configured, only leaves that kind out.
   */
  async clientWebhookChannels(id: RequirementLabel): Promise<{ channels: Partial<Record<ClientWebhookKind, WebhookChannel>>; release(): Promise<void> }> {
    const trigger = this.ctx.target.triggers.clientWebhooks;
    if (!trigger) return { channels: {}, release: async () => {} };
    this.ctx.record(reachedBy('clientWebhooks', trigger.kind));
    if (trigger.kind === 'declared') {
      const { target, runDir } = this.ctx;
      return { channels: { delivery: new RecordedChannel(target, runDir, 'primary', 'delivery'), inbound: new RecordedChannel(target, runDir, 'primary', 'inbound') }, release: async () => {} };
    }
    const { api, control, target } = this.ctx;
    const before = await api.call('whoami');
    expect(before).toSucceed(`${id}: precondition: reading the client context`);
    const channels: Partial<Record<ClientWebhookKind, WebhookChannel>> = {};
    for (const kind of ['delivery', 'inbound'] as const) if (before.body?.[`${kind}WebhookConfigured`] !== true) channels[kind] = this.ctx.channel(`client-${kind}`);
    const clientId = target.clients.primary.clientId;
    const set = (value: (kind: ClientWebhookKind) => string | null) => control.clientWebhooks(clientId, Object.fromEntries(Object.keys(channels).map((k) => [k, value(k as ClientWebhookKind)])));
    if (Object.keys(channels).length > 0) await set((kind) => channels[kind]!.url);
    return { channels, release: async () => void (Object.keys(channels).length > 0 && (await set(() => null))) };
  }

  /**
   * Run `fn` while the secondary client is suspended (triggers.clientStatus, kind control), and
   * make it ACTIVE again after, whatever `fn` did. The secondary, so that the primary client's
   * tokens, which the worker keeps using, are never refused on the way.
   */
  async whileSuspended(fn: (client: ClientCredentials) => Promise<void>): Promise<void> {
    this.require('clientStatus');
    const client = this.ctx.target.clients.secondary;
    if (!client) notTestable(reasonFor('secondClient'));
    await this.ctx.control.clientStatus(client!.clientId, 'SUSPENDED');
    try {
      await fn(client!);
    } finally {
      await this.ctx.control.clientStatus(client!.clientId, 'ACTIVE');
    }
  }

  /** Inbound traffic to a primary number: the control plane's, or a loopback send. */
  inbound(known: KnownNumbers): Inbound {
    const trigger = this.require('inbound');
    const { api, control, target } = this.ctx;
    if (trigger.kind === 'control') {
      if (!known.sms) notTestable('needs a primary number with a campaignregId that can send SMS (numbers.sms in the target config)');
      const numberId = known.sms!;
      const from = target.recipients.delivered[0]!;
      return { numberId, deliver: async (text) => ({ ...(await control.inbound({ numberId, from, text })), from }) };
    }
    const { phoneNumber } = trigger.to;
    const numberId = trigger.to.numberId ?? known.all.find((n) => carries(n, phoneNumber))?.numberId;
    if (!numberId) notTestable(`no number in the primary client's numbers list carries ${phoneNumber} (triggers.inbound.to.phoneNumber; set to.numberId if the list does not show it)`);
    const sender = [known.sms, ...known.primary.filter(canSendSms).map((n) => n.numberId)].find((id) => id !== undefined && id !== numberId);
    if (!sender) notTestable(`needs a second primary number with a campaignregId that can send SMS, to send to ${phoneNumber} (triggers.inbound)`);
    return {
      numberId: numberId!,
      sender: sender!,
      deliver: async (text, id, options) => {
        const from = options?.mms ? known.mms : sender;
        if (from === undefined || from === numberId) notTestable(`needs a primary number other than ${numberId} with a campaignregId and MMS enabled, to send an MMS to ${phoneNumber} (triggers.inbound)`);
        const json = {
          sendFrom: from,
          to: [...(options?.besides ?? []), phoneNumber],
          messageType: options?.mms ? 'MMS' : 'SMS',
          text,
          ...(options?.mms && { media: target.mediaSample }),
          externalReference: `conformance-${runMark(this.ctx.runDir)}-loopback-${randomUUID().slice(0, 8)}`,
        };
        const res = await api.call('send', { headers: { 'idempotency-key': randomUUID() }, json });
        expect(res).toSucceed(`${id}: precondition: the loopback ${json.messageType} from ${from} to ${phoneNumber} (triggers.inbound) is accepted`);
        const sent = acceptedMessageIds(res.body);
        const fromRecord = known.primary.find((n) => n.numberId === from);
        const fromPhone = typeof fromRecord?.phoneNumber === 'string' ? fromRecord.phoneNumber : undefined;
        return { sent, ...(fromPhone !== undefined && { from: fromPhone }) };
      },
    };
  }

  /** Recipients whose messages end FAILED. */
  failingRecipients(): string[] {
    return this.require('failedDelivery').recipients;
  }
}

/** A numbers-list record that carries `phoneNumber` in any field (the document shows no phone field). */
function carries(record: NumberRecord, phoneNumber: string): boolean {
  return Object.values(record).some((v) => v === phoneNumber);
}


/**
 * How much sooner than its expires_in a token may stop working and still have lived as long as
 * it said. The watch counts from the moment the token was asked for, before the server made it,
 * so the round trip only makes a token look longer-lived; what can end one early is a server
 * that keeps expiry in whole seconds (up to 1 s), and half a second more for its own work. With
 * 2 s, a 4 s token that lived 2 s passed.
 */
export const LIFETIME_TOLERANCE_MS = 1_500;

/**
 * How long after its expires_in was out (counted from the token response) a watch saw the token
 * still taken, beyond the same tolerance the other way (a server that keeps expiry in whole
 * seconds, rounded up, and its own work): 0 when it was not.
 */
export function acceptedPastLifetimeMs(l: ObservedLifetime): number {
  if (l.lastAcceptedMs === null) return 0;
  return Math.max(0, l.lastAcceptedMs - l.answeredMs - l.reportedSeconds * 1000 - LIFETIME_TOLERANCE_MS);
}

/** Whether a watch saw when a token stopped working: refused too soon, or still taken until its lifetime (less the tolerance) was out. */
export function showsLifetime(l: ObservedLifetime): boolean {
  const mustLiveMs = l.reportedSeconds * 1000 - LIFETIME_TOLERANCE_MS;
  return (l.refusedAfterMs !== null && l.refusedAfterMs < mustLiveMs) || (l.lastAcceptedMs ?? -1) >= mustLiveMs;
}

/**
 * The worker's expired token, reached as declared: watch a short-lived token until the server
 * refuses it, or until its expires_in and a margin are out (but no longer than
 * maxWaitSeconds), or expire a fresh token through the control plane. `issue` obtains a token
 * for a client and `whoami` reads the context with a token, both through the validating client.
 * For kind wait the outcome also says what the watch saw of the token's lifetime, refused or
 * not: a token refused well before its expires_in was out is the check of TOKEN-011, and is
 * used as expired all the same.
 */
export async function obtainExpiredToken(
  target: Target,
  control: ControlClient,
  issue: (clientId: string, clientSecret: string) => Promise<ApiResponse>,
  whoami: (token: string) => Promise<ApiResponse>,
  issuedEarly: TokenIssuedEarly | null = null,
  signal?: AbortSignal,
): Promise<ExpiredTokenOutcome> {
  const trigger = target.triggers.expireToken;
  if (!trigger) return { unreachable: reasonFor('expireToken') };
  const client = trigger.kind === 'wait' ? trigger.client : target.clients.primary;
  const early = trigger.kind === 'wait' && issuedEarly?.clientId === client.clientId ? issuedEarly : null;
  let token: string;
  let requested: number;
  let received: number;
  let acceptedBefore: number;
  let expiresIn: unknown;
  let unseen: ExpiredToken['unseen'];
  let unseenReceived: number;
  // Issued by the preflight when the run started (its answer was not a test's, so it is not validated here).
  if (early) {
    ({ token, requestedAt: requested, receivedAt: received, acceptedBefore, expiresIn, unseen, unseenReceivedAt: unseenReceived } = early);
  } else {
    requested = Date.now();
    const issued = await issue(client.clientId, client.clientSecret);
    const accessToken: unknown = issued.body?.access_token;
    if (issued.status >= 300 || typeof accessToken !== 'string') {
      const what = `the expireToken trigger: the client ${client.clientId} could not obtain a token: ${issued.describe()} ${issued.text.slice(0, 200)}`;
      // The sandbox client is the config's; the primary client (kind control) obtained tokens in the preflight, so a refusal now is the server's.
      if (trigger.kind === 'wait') throw new TriggerError(`${what}\n  check:  triggers.expireToken.client (clientId and clientSecret) in the target config`);
      throw new Error(what);
    }
    token = accessToken;
    received = Date.now();
    expiresIn = issued.body.expires_in;
    acceptedBefore = (await whoami(token)).status;
    unseen = await issueUnseen(() => issue(client.clientId, client.clientSecret).then((r) => (typeof r.body?.access_token === 'string' && r.status < 300 ? r.body.access_token : null)), whoami);
    unseenReceived = Date.now();
  }
  if (trigger.kind === 'control') {
    await control.expireTokens(client.clientId);
    return { token, acceptedBefore, unseen };
  }
  const reportedSeconds = Number(expiresIn);
  if (!Number.isFinite(reportedSeconds) || reportedSeconds < 0) return { unreachable: `the token of ${client.clientId} reports no usable expires_in (${JSON.stringify(expiresIn)}), so the harness cannot tell when it expires (triggers.expireToken, kind wait)` };
  const maxWaitMs = trigger.maxWaitSeconds * 1000;
  // Until its expires_in is out, or the longest the config lets the harness wait, and the margin.
  const expiresAt = received + reportedSeconds * 1000;
  const giveUp = received + Math.min(reportedSeconds * 1000, maxWaitMs) + EXPIRY_MARGIN_MS;
  // whoami was asked right after the token came.
  let refusedAfterMs: number | null = refuses(acceptedBefore) ? received - requested : null;
  let lastAcceptedMs: number | null = accepts(acceptedBefore) ? received - requested : null;
  while (refusedAfterMs === null && Date.now() < giveUp && !signal?.aborted) {
    // Coarsely while the token should live, never past the moment it should expire, then finely.
    const now = Date.now();
    await sleep(Math.max(0, Math.min(now < expiresAt ? Math.min(LIFETIME_POLL_MS, expiresAt - now) : EXPIRY_POLL_MS, giveUp - now)));
    const asked = Date.now() - requested;
    const status = (await whoami(token)).status;
    if (refuses(status)) refusedAfterMs = Date.now() - requested;
    else if (accepts(status)) lastAcceptedMs = asked;
  }
  const lifetime: ObservedLifetime = { clientId: client.clientId, reportedSeconds, acceptedBefore, answeredMs: received - requested, refusedAfterMs, lastAcceptedMs, watchedMs: Date.now() - requested };
  // Still accepted after the longest wait, short of its expires_in: nothing to judge AUTH-003 with.
  if (refusedAfterMs === null && reportedSeconds * 1000 > maxWaitMs) {
    return {
      unreachable: `the token of ${client.clientId} reports expires_in ${reportedSeconds} s and was still accepted after ${trigger.maxWaitSeconds} s, the longest triggers.expireToken.maxWaitSeconds lets the harness wait: raise maxWaitSeconds to at least ${reportedSeconds}, or name a client whose tokens live at most ${trigger.maxWaitSeconds} s`,
      lifetime,
    };
  }
  // The unseen tokens came by unseenReceived and live as long as the watched one, which lived at
  // most refusedAfterMs from its request: by unseenReceived + refusedAfterMs they have expired.
  // (Counted from the request, not the answer: a watch that sees the refusal the moment it comes
  // would otherwise present an unseen token up to one answer's latency too soon.)
  if (refusedAfterMs !== null) await sleep(Math.max(0, unseenReceived + refusedAfterMs - Date.now()));
  // Used once refused, or once the margin is out: the test judges the routes' answers either way.
  return { token, acceptedBefore, unseen, lifetime };
}

/**
 * How long after the first token of watchTokenWays the next is asked for: more than the lifetime
 * tolerance (LIFETIME_TOLERANCE_MS) and the watch's fine poll (WATCH_FINE_POLL_MS), or a token
 * handed out again with a full expires_in would still pass. A server that hands the same token
 * out again only within a shorter window is not seen. Two answers that hand out one token cannot
 * be judged from the answers alone: a server may move a token's expiry when it hands it out
 * again, and then both answers were true; only watching the token shows whether it lived as long
 * as the later said.
 */
export const STAGGER_MS = LIFETIME_TOLERANCE_MS + 500;

/**
 * How often a watched token is presented: coarsely while more than WATCH_FINE_SPAN_MS of what it
 * must live is left, then finely, so a refusal shortly before it may happen is seen before then.
 * A refusal earlier is seen at most WATCH_COARSE_POLL_MS late, still well before the moment.
 */
const WATCH_COARSE_POLL_MS = 1_000;
const WATCH_FINE_POLL_MS = 200;
const WATCH_FINE_SPAN_MS = 2_000;

/** One token of a client obtained one way and watched until the lifetime it reported, less the tolerance, was out. */
export interface WatchedToken {
  /** The way it was asked for, as a check's message names it. */
  how: string;
  /** The token response. */
  issued: ApiResponse;
  /** When the token request was sent (ms since the epoch). */
  requestedAt: number;
  /** expires_in as reported (NaN when it reports none). */
  seconds: number;
  /** Milliseconds from the request to the first 401 before the lifetime less the tolerance was out; undefined when none came. */
  refusedAfterMs?: number;
  /**
   * Milliseconds from the request to the moment the token was still accepted (2xx), presented
   * once more when its reported lifetime and EXPIRY_MARGIN_MS were out; undefined when it was
   * refused then, or its lifetime is past the wait (maxWaitSeconds) and it was not presented.
   */
  acceptedAfterMs?: number;
}

/**
 * Tokens of one client asked for in each of `ways`, STAGGER_MS apart, each presented to whoami
 * until its reported lifetime less LIFETIME_TOLERANCE_MS is out (at most `maxWaitSeconds`):
 * a token that reports a longer life than the others and is refused within that wait did not
 * live as long as it said. The mechanics of TOKEN-011's watch of the other ways of asking; the
 * test judges what it returns. A token response that is no success, or reports no usable
 * expires_in, is returned unwatched. The worker starts it when the run starts (harness/fixtures.ts,
 * tokenWaysWatch), so the lifetimes run out beside the other tests.
 */
export async function watchTokenWays(
  ways: ReadonlyArray<readonly [string, () => Promise<ApiResponse>]>,
  whoami: (token: string) => Promise<ApiResponse>,
  maxWaitSeconds: number,
  signal?: AbortSignal,
): Promise<WatchedToken[]> {
  const watched: WatchedToken[] = [];
  for (const [how, issue] of ways) {
    if (watched.length > 0) await sleep(STAGGER_MS);
    const requestedAt = Date.now();
    const issued = await issue();
    watched.push({ how, issued, requestedAt, seconds: Number(issued.body?.expires_in) });
  }
  const mustLiveMs = (w: WatchedToken) => w.seconds * 1000 - LIFETIME_TOLERANCE_MS;
  const watchMs = (w: WatchedToken) => Math.min(mustLiveMs(w), maxWaitSeconds * 1000);
  const usable = watched.filter((w) => w.issued.status >= 200 && w.issued.status < 300 && typeof w.issued.body?.access_token === 'string' && Number.isFinite(mustLiveMs(w)));
  while (!signal?.aborted) {
    const live = usable.filter((w) => w.refusedAfterMs === undefined && Date.now() - w.requestedAt < watchMs(w));
    if (live.length === 0) break;
    for (const w of live) {
      const res = await whoami(String(w.issued.body.access_token));
      const after = Date.now() - w.requestedAt;
      if (res.status === 401 && after < mustLiveMs(w)) w.refusedAfterMs = after;
    }
    const left = Math.min(...live.map((w) => watchMs(w) - (Date.now() - w.requestedAt)));
    await sleep(Math.max(0, Math.min(left > WATCH_FINE_SPAN_MS ? WATCH_COARSE_POLL_MS : WATCH_FINE_POLL_MS, left)));
  }
  // The other end of the lifetime (AUTH-003): each token still taken up to the end of its watch
  // is presented once more when what it reported, and EXPIRY_MARGIN_MS, are out. A server that
  // expires the tokens of one way of asking and not another's is right on the worker's token.
  const due = (w: WatchedToken) => w.requestedAt + w.seconds * 1000 + EXPIRY_MARGIN_MS;
  for (const w of usable.filter((w) => w.refusedAfterMs === undefined && w.seconds <= maxWaitSeconds).sort((a, b) => due(a) - due(b))) {
    if (signal?.aborted) break;
    await sleep(Math.max(0, due(w) - Date.now()));
    const res = await whoami(String(w.issued.body.access_token));
    if (res.status >= 200 && res.status < 300) w.acceptedAfterMs = Date.now() - w.requestedAt;
  }
  return watched;
}

/**
 * UNSEEN_EXPIRED_TOKENS more tokens of a client, issued at once, each with whoami's status (the
 * precondition that it worked before it expired); a token request that failed leaves its place out.
 */
export async function issueUnseen(issue: () => Promise<string | null>, whoami: (token: string) => Promise<{ status?: number | undefined }>): Promise<ExpiredToken['unseen']> {
  const issued = await Promise.all(
    Array.from({ length: UNSEEN_EXPIRED_TOKENS }, async () => {
      const token = await issue();
      return token === null ? null : { token, acceptedBefore: (await whoami(token)).status ?? 0 };
    }),
  );
  return issued.filter((t): t is { token: string; acceptedBefore: number } => t !== null);
}
