import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { applyBatch, packCommand, type PackedCommand, type WriteCommand } from '../store/commands.ts';
import type { Stores } from '../store/index.ts';
import type { OpenOptions } from './open.ts';
import { WriteQueue, type Outcome } from './writeQueue.ts';

/** Applies write commands durably: a promise settles only after the command is committed. */
export interface Writer {
  run(command: WriteCommand): Promise<unknown>;
  /** Commits what is queued, then refuses further writes. */
  close(): Promise<void>;
}

export type WriterThreadOptions = Pick<OpenOptions, 'path' | 'synchronous'>;
// Batches cross the thread boundary as JSON text: V8 copies one flat string much faster than
// it structured-clones the many small objects of a batch. A batch is a JSON array of packed
// commands (store/commands.ts); the thread commits each batch as one transaction and answers
// with a JSON array of their outcomes, in the same order.
export type ToWriter = { kind: 'write'; json: string } | { kind: 'close' };
export type FromWriter = { kind: 'ready' } | { kind: 'committed'; json: string };

interface Waiter {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

function failure(outcome: Extract<Outcome, { ok: false }>): Error {
  return Object.assign(new Error(outcome.error.message), outcome.error.code === undefined ? {} : { code: outcome.error.code });
}

const closedError = () => new Error('the database is closed');

/**
 * The writer for a database file: a worker thread with its own connection (see writerThread.ts).
 * One batch is in the thread at a time. Commands issued while it is being committed gather here
 * and are posted together as the next batch as soon as the thread reports the commit, so a
 * message crosses threads per commit rather than per request.
 */
export class ThreadWriter implements Writer {
  /** The commands gathering for the next batch, and their callers. */
  private outgoing: PackedCommand[] = [];
  private outgoingWaiters: Waiter[] = [];
  /** The callers of the batch in the thread, in its order; null when none is. */
  private inThread: Waiter[] | null = null;
  private scheduled = false;
  private broken: Error | undefined;
  private closing: Promise<void> | undefined;
  private drained: (() => void) | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly logger: Logger,
  ) {
    worker.on('message', (message: FromWriter) => {
      if (message.kind !== 'committed') return;
      const waiters = this.inThread ?? [];
      this.inThread = null;
      this.settle(waiters, JSON.parse(message.json) as Outcome[]);
      this.post();
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (!this.closing) this.fail(new Error(`the writer thread stopped with exit code ${code}`));
    });
  }

  /** Starts the thread and waits until its connection is open. */
  static async start(options: WriterThreadOptions, logger: Logger): Promise<ThreadWriter> {
    // The thread runs as the rest of the server does. Compiled into one module (a run's reference:
    // harness/embedded-reference.ts writes main.mjs beside writerThread.mjs), it imports its sibling.
    // From the TypeScript sources, tsx's loader is registered inside the thread first (a loader
    // given on the command line does not reach worker threads on Node 20).
    const bootstrap = import.meta.url.endsWith('.mjs')
      ? `import(${JSON.stringify(new URL('./writerThread.mjs', import.meta.url).href)});`
      : `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./writerThread.ts', import.meta.url).href)}); });`;
    const worker = new Worker(bootstrap, { eval: true, workerData: options satisfies WriterThreadOptions, name: 'reference-writer' });
    try {
      await new Promise<void>((resolve, reject) => {
        const onMessage = (message: FromWriter) => {
          if (message.kind !== 'ready') return;
          worker.off('message', onMessage);
          worker.off('error', reject);
          resolve();
        };
        worker.on('message', onMessage);
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`the writer thread stopped with exit code ${code} while starting`)));
      });
    } catch (error) {
      await worker.terminate();
      throw error;
    }
    return new ThreadWriter(worker, logger);
  }

  run(command: WriteCommand): Promise<unknown> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.closing) return Promise.reject(closedError());
    const packed = packCommand(command);
    return new Promise((resolve, reject) => {
      this.outgoingWaiters.push({ resolve, reject });
      this.outgoing.push(packed);
      // Wait for the rest of this event-loop turn: requests parsed together go together.
      if (!this.scheduled && !this.inThread) {
        this.scheduled = true;
        setImmediate(() => this.post());
      }
    });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.post();
      if (this.pendingCount() > 0 && !this.broken) await new Promise<void>((resolve) => (this.drained = resolve));
      if (this.broken) return;
      const exited = once(this.worker, 'exit');
      this.worker.postMessage({ kind: 'close' } satisfies ToWriter);
      await exited;
    })();
    return this.closing;
  }

  private pendingCount(): number {
    return this.outgoingWaiters.length + (this.inThread?.length ?? 0);
  }

  private post(): void {
    this.scheduled = false;
    if (this.outgoing.length === 0 || this.broken || this.inThread) return;
    const json = JSON.stringify(this.outgoing);
    this.inThread = this.outgoingWaiters;
    this.outgoing = [];
    this.outgoingWaiters = [];
    this.worker.postMessage({ kind: 'write', json } satisfies ToWriter);
  }

  private settle(waiters: Waiter[], outcomes: Outcome[]): void {
    waiters.forEach((waiter, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) waiter.resolve(outcome.value);
      else waiter.reject(failure(outcome));
    });
    if (this.pendingCount() === 0) this.drained?.();
  }

  private fail(error: Error): void {
    if (this.broken) return;
    this.broken = error;
    this.logger.error({ err: error }, 'the writer thread failed; writes are refused from now on');
    for (const waiter of [...(this.inThread ?? []), ...this.outgoingWaiters]) waiter.reject(error);
    this.inThread = null;
    this.outgoing = [];
    this.outgoingWaiters = [];
    this.drained?.();
  }
}

interface InlineItem extends Waiter {
  packed: PackedCommand;
}

/**
 * The writer for an in-memory database, which a second thread cannot open: the same group
 * commit on the one connection, in the main thread.
 */
export class InlineWriter implements Writer {
  private readonly queue: WriteQueue<InlineItem>;
  private closed = false;

  constructor(stores: Stores) {
    this.queue = new WriteQueue<InlineItem>(
      stores.db,
      (items) => applyBatch(stores, items.map((item) => item.packed)),
      (batch, outcomes) =>
        batch.forEach((item, index) => {
          const outcome = outcomes[index]!;
          if (outcome.ok) item.resolve(outcome.value);
          else item.reject(failure(outcome));
        }),
    );
  }

  run(command: WriteCommand): Promise<unknown> {
    if (this.closed) return Promise.reject(closedError());
    // Packed as for the thread, so both writers apply the same form.
    const packed = packCommand(command);
    return new Promise((resolve, reject) => this.queue.add({ packed, resolve, reject }));
  }

  async close(): Promise<void> {
    this.queue.flush();
    this.closed = true;
  }
}

export function startWriter(options: WriterThreadOptions, stores: Stores, logger: Logger): Promise<Writer> {
  return options.path === ':memory:' ? Promise.resolve(new InlineWriter(stores)) : ThreadWriter.start(options, logger);
}
