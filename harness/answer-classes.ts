/**
 * How a client that follows sections 7.2 and 7.3 reads the status of a refusal, so a check can
 * ask for an answer the client acts on correctly rather than for any 4xx. Section 7.2 pairs
 * each status with one code; section 7.3 gives each class its own action:
 * - request defect: do not retry unchanged (fix the request);
 * - authentication (401): refresh the token once and retry once (section 5.5);
 * - authorization/ownership (403, and 404, which RFC 9110 15.5.4 lets a server use to hide
 *   another client's resource): check the client context and numbers;
 * - transient (5xx, and 408/429, which invite a later retry): bounded retry, same key and payload;
 * - conflict (409 CONFLICT): the key clashes with another request (one in flight, or the
 *   same key with another payload under rule 8).
 * A request defect answered 401 sends the client to refresh a valid token, 403 or 404 to
 * check numbers that are fine, 408, 429 or 5xx to retry a request that can never succeed, and
 * 409 to look for a clash of keys; only the other 4xx (400 INVALID_REQUEST, or a status the
 * table does not list, such as 413, 415 or 422) lead it to fix the request.
 */
export type AnswerClass = 'success' | 'request-defect' | 'authentication' | 'ownership' | 'conflict' | 'transient' | 'other';

export function answerClass(status: number): AnswerClass {
  if (status >= 200 && status < 300) return 'success';
  if (status === 401) return 'authentication';
  if (status === 403 || status === 404) return 'ownership';
  if (status === 409) return 'conflict';
  if (status === 408 || status === 429 || status >= 500) return 'transient';
  if (status >= 400 && status < 500) return 'request-defect';
  return 'other';
}

/** Whether a client following section 7.3 reads this status as "the request is defective: do not retry it unchanged". */
export function isRequestDefectAnswer(status: number): boolean {
  return answerClass(status) === 'request-defect';
}
