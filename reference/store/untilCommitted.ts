import type { Logger } from 'pino';

export interface RetryOptions {
  logger: Logger;
  /** What the write records, for the log. */
  what: string;
  /** True once the write no longer matters (the server is closing; the next start resumes the work). */
  stopped: () => boolean;
  /** Ends a wait between attempts early (a server that closes does not wait out a backoff). */
  signal?: AbortSignal;
  baseMs?: number;
  capMs?: number;
}

/**
 * Runs a write of background work (a message outcome, a webhook's bookkeeping) until it commits.
 * A store error there is usually transient (the disk full, an I/O error, the database busy); were
 * it only logged, the work would stay undone until the next start. So it is retried, the delay
 * doubling from baseMs up to capMs. The writes retried this way are idempotent.
 */
export async function untilCommitted<T>(write: () => Promise<T>, { logger, what, stopped, signal, baseMs = 100, capMs = 30_000 }: RetryOptions): Promise<T | undefined> {
  for (let failures = 1; ; failures += 1) {
    try {
      return await write();
    } catch (error) {
      if (stopped()) return undefined;
      const delayMs = Math.min(capMs, baseMs * 2 ** (failures - 1));
      logger.error({ err: error, failures, retryInMs: delayMs }, `${what} failed; retrying`);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, delayMs);
        timer.unref();
        signal?.addEventListener('abort', done);
      });
      if (stopped()) return undefined;
    }
  }
}
