import { createHmac, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Buckets, HOLD_429_MS } from '../buckets.ts';
import { OAuthError } from '../errors.ts';
import type { ClientRecord } from '../store/clients.ts';
import { hashSecret, verifySecret } from './secretHash.ts';

// The token endpoint takes unauthenticated requests, and each verification of a secret is a
// deliberate ~35 ms of scrypt (OWASP API2 and API4: bound the cost and rate of failed attempts).
// Four defenses, each documented in reference/README.md (Limits and defenses):
// - rate limits per source address (all requests, and failed authentications) and per client id
//   (failed authentications, from anywhere), answered 429 with Retry-After. Over its client id's
//   limit a request is still heard from a source address that has not failed for that id lately:
//   failures strangers send for an id must not refuse the id's own client its right secret (an
//   earlier version refused everyone: a lockout by a stranger), and what the strangers' failures
//   cost stays bounded, one verification per address and FAILED_LATELY_MS;
// - an unknown client id costs no scrypt: its answer waits as long as a verification takes, so
//   the time of the answer does not tell which ids exist, and a flood of made-up ids costs no CPU;
// - a credential verified in the last minutes is recognised without scrypt (by an HMAC with a key
//   that lives only in this process), so legitimate clients asking for tokens often cost little,
//   and are still served from an address whose own failures have reached a limit.

export interface TokenLimits {
  /** Token requests per minute from one source address (burst as large). */
  requestsPerSourcePerMinute: number;
  /** Failed client authentications per minute from one source address. */
  failuresPerSourcePerMinute: number;
  /** Failed client authentications per minute for one client id, from anywhere; beyond, only sources that have not failed for it lately are heard. */
  failuresPerClientPerMinute: number;
}

/** How long a source address that failed to authenticate as a client id is not heard for that id while the id is over its limit. */
const FAILED_LATELY_MS = 10 * 60_000;
/** At most this many (source, client id) failures are remembered; the oldest go first. */
const FAILED_ENTRIES = 10_000;
/** How long a verified credential is recognised without scrypt. */
const VERIFIED_TTL_MS = 10 * 60_000;
const VERIFIED_ENTRIES = 1_000;
/** Verification times kept to draw an unknown id's wait from. */
const RECENT_DURATIONS = 32;

/**
 * 429 with Retry-After in whole seconds, in the token endpoint's OAuth body, sent after up to a
 * second: a client told to wait loses nothing by it, and a flood that sends its next request as
 * soon as the last is answered is slowed to one request per connection per second instead of
 * thousands of cheap ones (each still costs parsing and an answer).
 */
async function tooManyRequests(waitMs: number): Promise<never> {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  await sleep(Math.min(waitMs, HOLD_429_MS));
  throw new OAuthError('temporarily_unavailable', `Too many token requests; retry after ${seconds} s.`, 429, { 'retry-after': String(seconds) });
}

export class TokenGuard {
  private readonly requests: Buckets;
  private readonly sourceFailures: Buckets;
  private readonly clientFailures: Buckets;
  private readonly verified = new Map<string, { apiClientId: string; secretHash: string; until: number }>();
  /** When each (source, client id) last failed, oldest first. */
  private readonly failedLately = new Map<string, number>();
  private readonly key = randomBytes(32);
  /** How long the last verifications took; an unknown id's answer waits one of these, drawn at random. */
  private readonly durations: number[] = [];
  private readonly calibrated: Promise<void>;

  constructor(limits: TokenLimits) {
    this.requests = Buckets.perMinute(limits.requestsPerSourcePerMinute);
    this.sourceFailures = Buckets.perMinute(limits.failuresPerSourcePerMinute);
    this.clientFailures = Buckets.perMinute(limits.failuresPerClientPerMinute);
    // The wait of an unknown id is measured on a real derivation at start, so that it holds from
    // the first request on (a derivation in the thread pool: the event loop does not wait).
    this.calibrated = (async () => {
      const started = performance.now();
      await hashSecret('calibration');
      if (this.durations.length === 0) this.durations.push(performance.now() - started);
    })();
  }

  /** Every token request, first: over the source's rate it is 429 before its body is read. */
  async admit(source: string, nowMs = Date.now()): Promise<void> {
    const wait = this.requests.waitMs(source, nowMs);
    if (wait > 0) await tooManyRequests(wait);
    this.requests.take(source, nowMs);
  }

  /**
   * Authenticates a client: the client when `secret` is its secret, undefined otherwise, or a
   * 429 when the source has had too many failures lately, or the client id has and so has this
   * source for it. `source` is the request's source address (reference/http/sources.ts).
   */
  async authenticate(source: string, clientId: string, secret: string, client: ClientRecord | undefined, nowMs = Date.now()): Promise<ClientRecord | undefined> {
    const credential = createHmac('sha256', this.key).update(clientId).update('\u0000').update(secret).digest('base64url');
    const known = this.verified.get(credential);
    if (known && known.until > nowMs && client && client.apiClientId === known.apiClientId && client.secretHash === known.secretHash) return client;

    // A header value cannot hold NUL, nor can an address: the key names one (source, id) pair.
    const pair = `${source}\u0000${clientId}`;
    const idWait = this.clientFailures.waitMs(clientId, nowMs);
    // Over the id's limit, only a source that failed for it lately waits: any other, its own
    // client's among them, is heard (one verification, which marks it if it fails too).
    const wait = Math.max(this.sourceFailures.waitMs(source, nowMs), idWait > 0 && this.failedRecently(pair, nowMs) ? idWait : 0);
    if (wait > 0) await tooManyRequests(wait);

    const valid = client ? await this.verify(secret, client.secretHash) : await this.likeAVerification();
    if (!valid) {
      const failedAt = Date.now();
      this.sourceFailures.take(source, failedAt);
      this.clientFailures.take(clientId, failedAt);
      this.failedLately.delete(pair);
      this.failedLately.set(pair, failedAt);
      if (this.failedLately.size > FAILED_ENTRIES) this.failedLately.delete(this.failedLately.keys().next().value!);
      return undefined;
    }
    this.verified.delete(credential);
    this.verified.set(credential, { apiClientId: client!.apiClientId, secretHash: client!.secretHash, until: Date.now() + VERIFIED_TTL_MS });
    if (this.verified.size > VERIFIED_ENTRIES) this.verified.delete(this.verified.keys().next().value!);
    return client;
  }

  /** Forgets every limit and verified credential (the control plane's reset). */
  reset(): void {
    this.requests.clear();
    this.sourceFailures.clear();
    this.clientFailures.clear();
    this.failedLately.clear();
    this.verified.clear();
  }

  private failedRecently(pair: string, nowMs: number): boolean {
    const at = this.failedLately.get(pair);
    return at !== undefined && nowMs - at < FAILED_LATELY_MS;
  }

  private async verify(secret: string, secretHash: string): Promise<boolean> {
    const started = performance.now();
    const valid = await verifySecret(secret, secretHash);
    this.durations.push(performance.now() - started);
    if (this.durations.length > RECENT_DURATIONS) this.durations.shift();
    return valid;
  }

  /** As long as a verification takes, spread as recent ones were (so load shows in both alike), and no scrypt. */
  private async likeAVerification(): Promise<false> {
    if (this.durations.length === 0) await this.calibrated;
    await sleep(this.durations[Math.floor(Math.random() * this.durations.length)]!);
    return false;
  }
}
