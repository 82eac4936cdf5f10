// Token buckets keyed by a string: the rate limits of the token endpoint (auth/tokenGuard.ts)
// and of sends (send/rateLimit.ts).

/**
 * The longest a 429 is held before it is sent: a client told to wait loses nothing by it, and a
 * flood that sends its next request as soon as the last is answered is slowed to one request per
 * connection per second instead of thousands of cheap ones (each still costs parsing and an answer).
 */
export const HOLD_429_MS = 1_000;

/** At most this many keys are tracked; the least recently seen go first. */
const TRACKED_KEYS = 10_000;

/**
 * A token bucket per key: `capacity` tokens, refilled evenly at `perSecond`. Keys are kept in
 * order of last use, so the oldest are dropped first when there are too many (a dropped key
 * starts again with a full bucket, as a key not seen for a while would have).
 */
export class Buckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
  ) {}

  /** `perMinute` tokens a minute, as many at once. */
  static perMinute(perMinute: number): Buckets {
    return new Buckets(perMinute, perMinute / 60);
  }

  private current(key: string, nowMs: number): { tokens: number; at: number } {
    const bucket = this.buckets.get(key);
    const refilled = bucket ? Math.min(this.capacity, bucket.tokens + ((nowMs - bucket.at) * this.perSecond) / 1000) : this.capacity;
    const next = { tokens: refilled, at: nowMs };
    this.buckets.delete(key);
    this.buckets.set(key, next);
    if (this.buckets.size > TRACKED_KEYS) this.buckets.delete(this.buckets.keys().next().value!);
    return next;
  }

  /** Milliseconds until `key` has `cost` tokens; 0 when it has them now. */
  waitMs(key: string, nowMs: number, cost = 1): number {
    const { tokens } = this.current(key, nowMs);
    return tokens >= cost ? 0 : Math.ceil(((cost - tokens) * 1000) / this.perSecond);
  }

  /** Takes `cost` tokens from `key` when it has them, and says 0; else takes none and says how many milliseconds until it has them. */
  tryTake(key: string, nowMs: number, cost = 1): number {
    const bucket = this.current(key, nowMs);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return 0;
    }
    return Math.ceil(((cost - bucket.tokens) * 1000) / this.perSecond);
  }

  /** Takes `cost` tokens from `key` (it may go below zero: the next request then waits). */
  take(key: string, nowMs: number, cost = 1): void {
    this.current(key, nowMs).tokens -= cost;
  }

  clear(): void {
    this.buckets.clear();
  }
}
