import type { Db } from './open.ts';

export type Outcome = { ok: true; value: unknown } | { ok: false; error: { message: string; code?: string } };

/**
 * Group commit: writes queued since the last commit are applied in one transaction, so one
 * fsync covers the whole batch. `deliver` is called only after the batch is committed, so a
 * caller that answers from it answers only what is durable.
 *
 * Writes run one after another inside the batch, so a write sees everything queued before it
 * (which is what makes the idempotency check-then-insert atomic). Should one write throw, the
 * whole batch is rolled back and each write is run again in a transaction of its own, so a
 * failing write fails alone (this costs nothing on the common path, unlike a savepoint each).
 *
 * While a commit is running (it is synchronous), newly arriving writes wait in the event loop;
 * they all form the next batch.
 */
export class WriteQueue<T> {
  private pending: T[] = [];
  private scheduled = false;
  private readonly runBatch: (batch: T[]) => unknown[];
  private readonly runOne: (item: T) => unknown;

  /** `applyAll` applies writes in their order and returns their results in that order. */
  constructor(
    db: Db,
    applyAll: (items: T[]) => unknown[],
    private readonly deliver: (batch: T[], outcomes: Outcome[]) => void,
  ) {
    this.runOne = db.transaction((item: T) => applyAll([item])[0]);
    this.runBatch = db.transaction((batch: T[]) => applyAll(batch));
  }

  add(item: T): void {
    this.pending.push(item);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Commits everything queued so far. */
  flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    let outcomes: Outcome[];
    try {
      outcomes = this.runBatch(batch).map((value) => ({ ok: true, value }));
    } catch {
      outcomes = batch.map((item) => this.runAlone(item));
    }
    this.deliver(batch, outcomes);
  }

  private runAlone(item: T): Outcome {
    try {
      return { ok: true, value: this.runOne(item) };
    } catch (error) {
      const { message, code } = error as Error & { code?: unknown };
      return { ok: false, error: { message, ...(typeof code === 'string' ? { code } : {}) } };
    }
  }
}
