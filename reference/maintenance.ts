import type { Logger } from 'pino';
import type { WriteQueue } from './db/writeQueue.ts';
import type { Stores } from './store/index.ts';

const SWEEP_INTERVAL_IN_MS = 60_000;

/**
 * Removes expired tokens and idempotency records (profile send.idempotencyRetention). Expired
 * rows are already ignored by every lookup; sweeping only keeps the tables small.
 */
export function startSweeper(writes: WriteQueue, stores: Stores, logger: Logger): () => void {
  const sweep = () =>
    writes
      .run(() => {
        const now = Date.now();
        return { tokens: stores.tokens.purgeExpired(now), idempotencyRecords: stores.idempotency.purgeExpired(now) };
      })
      .then((removed) => logger.debug(removed, 'expired rows removed'))
      .catch((error: unknown) => logger.error({ err: error }, 'sweeping expired rows failed'));
  void sweep();
  const timer = setInterval(sweep, SWEEP_INTERVAL_IN_MS);
  timer.unref();
  return () => clearInterval(timer);
}
