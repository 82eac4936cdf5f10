import type { Db } from './open.ts';

type WriteOp<T> = (db: Db) => T;

interface Pending {
  op: WriteOp<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the writes of concurrent requests are queued and flushed in one transaction per
 * event-loop turn, so one fsync covers the whole batch. Each caller's promise settles only after
 * its batch is committed, so "answered" always implies "durable".
 *
 * Writes run one after another inside the batch, so a write sees everything queued before it
 * (which is what makes the idempotency check-then-insert atomic). Should one write throw, the
 * whole batch is rolled back and each write is run again in a transaction of its own, so a
 * failing write rejects alone (this costs nothing on the common path, unlike a savepoint each).
 */
export class WriteQueue {
  private pending: Pending[] = [];
  private scheduled = false;
  private closed = false;
  private readonly runBatch: (batch: Pending[]) => unknown[];
  private readonly runOne: (op: WriteOp<unknown>) => unknown;

  constructor(db: Db) {
    this.runOne = db.transaction((op: WriteOp<unknown>) => op(db));
    this.runBatch = db.transaction((batch: Pending[]) => batch.map((item) => item.op(db)));
  }

  run<T>(op: WriteOp<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ op, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits everything queued so far. */
  flush(): void {
    this.scheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    let values: unknown[];
    try {
      values = this.runBatch(batch);
    } catch {
      this.runEachAlone(batch);
      return;
    }
    batch.forEach((item, index) => item.resolve(values[index]));
  }

  private runEachAlone(batch: Pending[]): void {
    for (const item of batch) {
      try {
        item.resolve(this.runOne(item.op));
      } catch (error) {
        item.reject(error);
      }
    }
  }

  /** Commits what is queued and refuses further writes. */
  close(): void {
    this.flush();
    this.closed = true;
  }
}
