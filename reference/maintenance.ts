import type { Logger } from 'pino';
import type { Writes } from './store/writes.ts';

const SWEEP_INTERVAL_IN_MS = 60_000;

/**
 * Removes expired tokens and idempotency records (profile send.idempotencyRetention). Expired
 * rows are already ignored by every lookup; sweeping only keeps the tables small.
 */
export function startSweeper(writes: Writes, logger: Logger): () => void {
  const sweep = () =>
    writes
      .run({ op: 'purgeExpired', nowMs: Date.now() })
      .then((removed) => logger.debug(removed, 'expired rows removed'))
      .catch((error: unknown) => logger.error({ err: error }, 'sweeping expired rows failed'));
  void sweep();
  const timer = setInterval(sweep, SWEEP_INTERVAL_IN_MS);
  timer.unref();
  return () => clearInterval(timer);
}
