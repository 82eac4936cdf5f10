/**
 * The one operation the idempotency model needs from a target: send a body under a key.
 * The harness implements it over HTTP (adding the bearer token); unit tests implement it
 * in memory. Keeping it this small is what lets the model run against both.
 */
export interface SendAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface SendPort {
  /** POST /api/core/messages/send with `Idempotency-Key: key` and `body` as JSON. */
  send(key: string, body: unknown): Promise<SendAnswer>;
  /**
   * How many messages the target has created so far (one per messageId it hands out).
   * Optional: a target can only offer it through a test hook. With it, the model also sees
   * a duplicate that an answer hides, such as a replay answered from the store while a
   * second message went out anyway.
   */
  createdMessages?(): Promise<number>;
}

/** True for a 2xx status: the only answers that may have created something. */
export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * The messageIds an answer hands out, sorted: `messageId` of each item of `results`
 * (section 2, send response; the item fields are otherwise not shown).
 */
export function acceptedMessageIds(body: unknown): string[] {
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return [];
  return results
    .map((item) => (item as { messageId?: unknown } | null)?.messageId)
    .filter((id): id is string => typeof id === 'string' && id.length > 0)
    .sort();
}

/**
 * Whether a send answer reports QUEUED (section 3, rule 7). The document shows neither the field
 * that carries the status nor where it sits ("Fields of the result items: not shown"): a
 * property of the answer whose value is QUEUED, or one on every result item that carries a
 * messageId, is read as QUEUED, whatever its name (`status`, `state`, …).
 */
export function reportsQueued(body: unknown): boolean {
  if (carriesQueued(body)) return true;
  const results = (body as { results?: unknown } | null)?.results;
  const accepted = Array.isArray(results) ? results.filter((r) => typeof (r as { messageId?: unknown } | null)?.messageId === 'string') : [];
  return accepted.length > 0 && accepted.every(carriesQueued);
}

const carriesQueued = (value: unknown): boolean => value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).includes('QUEUED');
