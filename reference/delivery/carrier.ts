import type { Logger } from 'pino';
import type { WriteQueue } from '../db/writeQueue.ts';
import type { MessageStore } from '../store/messages.ts';
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

  constructor(
    private readonly writes: WriteQueue,
    private readonly messages: MessageStore,
    private readonly logger: Logger,
  ) {}

  take(accepted: ReadonlyArray<{ messageId: string; to: string }>): void {
    if (accepted.length === 0) return;
    if (this.taken.length === 0) setImmediate(() => this.record());
    this.taken.push(...accepted);
  }

  private record(): void {
    const taken = this.taken;
    this.taken = [];
    this.writes
      .run(() => {
        const now = Date.now();
        for (const { messageId, to } of taken) {
          const outcome = outcomeFor(to);
          this.messages.complete(messageId, outcome.status, outcome.errorCode, now);
        }
      })
      .catch((error: unknown) => this.logger.error({ err: error }, 'recording message outcomes failed'));
  }

  resume(): void {
    this.take(this.messages.inProgress());
  }
}
