// How a run keeps to a target's rate limits (section 8: "Rate limits: not shown", an open
// choice). Requests are spaced to the configured rate, and a 429 that says when to come back
// (Retry-After, RFC 9110 10.2.3; RFC 6585 4) is waited out and the very same request sent
// again — a send keeps its Idempotency-Key and payload, as section 7's transient class asks.
// Retries are counted for the report, never judged. A target that keeps answering 429 stops
// the run on the harness's side (exit 2): a run it throttles checks nothing.
import { HarnessStop } from './judgement.ts';
import type { Transport } from './transport.ts';

/** Retries of one request answered 429 before the run stops. */
export const RATE_LIMIT_RETRIES = 3;
/** A Retry-After longer than this is not waited out: the run stops instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

export class RateLimitStop extends HarnessStop {
  override name = 'RateLimitStop';
}

/** Retries and waiting one worker (or one test, as a difference) spent on 429 answers. */
export interface RateLimitTally {
  retries: number;
  waitedMs: number;
  /** Told of each wait as it starts: the running test adds it to its timeout, since the time is the target's, not the test's. */
  onWait?: ((ms: number) => void) | undefined;
}

/** Milliseconds a Retry-After value asks for (delta-seconds or an HTTP-date), or null when it is absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return /[a-z]/i.test(text) && !Number.isNaN(date) ? Math.max(0, date - now) : null;
}

/** Spaces the requests of one worker so that they keep to `requestsPerSecond` (null: no cap). */
export class RequestPacer {
  private next = 0;
  constructor(
    readonly requestsPerSecond: number | null,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Resolves when the next request may go out. */
  async turn(): Promise<void> {
    if (this.requestsPerSecond === null) return;
    const at = Math.max(this.now(), this.next);
    this.next = at + 1000 / this.requestsPerSecond;
    const wait = at - this.now();
    if (wait > 0) await this.sleep(wait);
  }
}

export interface RateLimitOptions {
  pacer: RequestPacer;
  tally: RateLimitTally;
  /**
   * Whether a 429 may be waited out now. Not while the harness has made the target's upstream
   * fail: a 429 then is the target's answer to that failure, which its requirement judges
   * (SEARCH-002 expects 502 for an upstream 429), so a retry would hide a failure.
   */
  retryable: () => boolean;
  sleep?: (ms: number) => Promise<void>;
}

/** `transport`, paced, with 429 answers that carry a Retry-After waited out and retried. */
export function rateLimited(transport: Transport, options: RateLimitOptions): Transport {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  return async (request, timeoutMs) => {
    for (let retries = 0; ; retries++) {
      await options.pacer.turn();
      const response = await transport(request, timeoutMs);
      // A 429 without Retry-After, or one the harness provoked, is an answer like any other: judged.
      if (response.status !== 429 || !options.retryable()) return response;
      const wait = retryAfterMs(response.headers['retry-after']);
      if (wait === null) return response;
      if (retries >= RATE_LIMIT_RETRIES || wait > MAX_RETRY_AFTER_MS) {
        const why = retries >= RATE_LIMIT_RETRIES ? `${retries + 1} times in a row` : `with Retry-After ${response.headers['retry-after']}, longer than the ${MAX_RETRY_AFTER_MS / 1000} s the harness waits`;
        throw new RateLimitStop(
          `rate limited: ${request.method} ${request.url} was answered 429 ${why}; the target keeps limiting this run, so it stopped: lower the run's rate (--rate-limit, or rateLimit.requestsPerSecond in the target config) or raise the target's limit, and run again`,
        );
      }
      options.tally.retries++;
      options.tally.waitedMs += wait;
      options.tally.onWait?.(wait);
      await sleep(wait);
    }
  };
}
