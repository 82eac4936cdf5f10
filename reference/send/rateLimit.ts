import { setTimeout as sleep } from 'node:timers/promises';
import { Buckets, HOLD_429_MS } from '../buckets.ts';
import { CoreError } from '../errors.ts';
import { LIMITS } from '../spec/requestSchemas.ts';

// Profile send.rateLimit (reference/README.md, Limits and defenses; OWASP API4): each API client
// may send so many messages a second, a message per recipient, with bursts up to two seconds'
// worth. Beyond, the send is 429 TOO_MANY_REQUESTS with Retry-After, before its idempotency
// record or anything else is looked at, and nothing is stored: the client sends it again, with
// the same Idempotency-Key, once Retry-After has passed. Without it one tenant sending as fast as
// it could raised every other tenant's send latency elevenfold and wrote 60 MiB/s to disk.

export class SendRateLimit {
  private readonly buckets: Buckets;

  constructor(private readonly messagesPerSecond: number) {
    // A burst of two seconds, and never less than the largest send, which must always fit.
    this.buckets = new Buckets(Math.max(2 * messagesPerSecond, LIMITS.recipients), messagesPerSecond);
  }

  /**
   * Takes the send's messages from its client's allowance: undefined when the client may send
   * them now (no promise: every send asks), else a promise that, held up to a second, rejects
   * with the 429 that says when to come back.
   */
  admit(apiClientId: string, messages: number, nowMs = Date.now()): Promise<never> | undefined {
    const wait = this.buckets.tryTake(apiClientId, nowMs, messages);
    return wait === 0 ? undefined : this.refuse(wait);
  }

  private async refuse(wait: number): Promise<never> {
    const seconds = Math.max(1, Math.ceil(wait / 1000));
    // Held as long as Retry-After says, up to a second, though the allowance may refill sooner:
    // a client that does not wait gets one 429 a second per connection, not one every few ms.
    await sleep(Math.min(seconds * 1000, HOLD_429_MS));
    throw new CoreError(
      'TOO_MANY_REQUESTS',
      `This API client is over its send rate of ${this.messagesPerSecond} messages a second (one per recipient); send again after ${seconds} s, with the same Idempotency-Key.`,
      { limit: this.messagesPerSecond, per: 'API client', unit: 'messages per second' },
      { 'retry-after': String(seconds) },
    );
  }

  /** Forgets every client's use (the control plane's reset). */
  reset(): void {
    this.buckets.clear();
  }
}
