import type { Logger } from 'pino';
import type { MessageStore } from '../store/messages.ts';
import { untilCommitted } from '../store/untilCommitted.ts';
import type { Writes } from '../store/writes.ts';
import { outcomeFor } from './outcome.ts';

/**
 * The simulated carrier. Accepted messages are QUEUED; the carrier takes them (SENT) and
 * reports the final outcome (DELIVERED or FAILED, decided by the recipient's test range) right
 * after the acceptance is committed. Messages still QUEUED or SENT at start are taken again,
 * which is how a restart completes what a crash interrupted.
 */
export class SimulatedCarrier {
  // Messages taken during one event-loop turn are recorded by one write, not one write each.
  private taken: Array<{ messageId: string; to: string }> = [];
  private closed = false;

  constructor(
    private readonly writes: Writes,
    private readonly messages: MessageStore,
    private readonly logger: Logger,
  ) {}

  take(accepted: ReadonlyArray<{ messageId: string; to: string }>): void {
    // After close the messages stay QUEUED in the database; the next start takes them.
    if (accepted.length === 0 || this.closed) return;
    if (this.taken.length === 0) setImmediate(() => this.flush());
    this.taken.push(...accepted);
  }

  /** Records what was taken so far and takes nothing more (before the writer closes). */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private flush(): void {
    const taken = this.taken;
    if (taken.length === 0) return;
    this.taken = [];
    const outcomes = taken.map(({ messageId, to }) => ({ messageId, ...outcomeFor(to) }));
    // Retried until it commits: after a store error (a full disk) the messages would otherwise
    // stay QUEUED until the next start.
    void untilCommitted(() => this.writes.run({ op: 'completeMessages', outcomes, nowMs: Date.now() }), {
      logger: this.logger,
      what: 'recording message outcomes',
      stopped: () => this.closed,
    });
  }

  resume(): void {
    this.take(this.messages.inProgress());
  }
}
