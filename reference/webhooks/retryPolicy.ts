// Profile webhook.retry: only 2xx is success; exponential backoff with jitter (WH-108), 0.5 s base (the
// operator's --webhook-retry-base; a certification run of the bundled reference takes 0.1 s),
// doubling, capped at 60 s, 8 attempts in all; 410 stops; Retry-After is honoured (within the cap).
// A non-2xx answer (WH-103) or an unreachable receiver (WH-104) is retried with the same webhook-id.
export const WEBHOOK_MAX_ATTEMPTS = 8;
export const WEBHOOK_BACKOFF_BASE_IN_MS = 500;
export const WEBHOOK_BACKOFF_CAP_IN_MS = 60_000;
export const WEBHOOK_TIMEOUT_IN_MS = 10_000;

/**
 * Delay before the attempt that follows failed attempt number `attempt` (1-based). "Equal jitter":
 * half the exponential delay is fixed, the other half random, so receivers that failed together
 * do not all come back in the same instant.
 */
export function retryDelayMs(attempt: number, retryAfterSeconds?: number, random: () => number = Math.random, baseMs: number = WEBHOOK_BACKOFF_BASE_IN_MS): number {
  const exponential = Math.min(WEBHOOK_BACKOFF_CAP_IN_MS, baseMs * 2 ** (attempt - 1));
  const jittered = exponential / 2 + random() * (exponential / 2);
  if (retryAfterSeconds === undefined) return Math.round(jittered);
  return Math.round(Math.min(WEBHOOK_BACKOFF_CAP_IN_MS, Math.max(jittered, retryAfterSeconds * 1000)));
}

/** Retry-After in delta-seconds or as an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - nowMs) / 1000);
}
