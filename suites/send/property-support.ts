import type { HttpRequest } from '../../generators/http-request.ts';
import { SEND_PATH } from '../../generators/send-payload.ts';

/**
 * The send property suite's own helpers. What it shares with the other areas' properties (the
 * generators' constraints for a target, the send port, recordRun, check) is in ../support/properties.ts.
 */

/** A send body as the request a failure report shows for replay (with a fresh key, as it was sent). */
export function asRequest(body: unknown): HttpRequest {
  return { method: 'POST', path: SEND_PATH, headers: { 'Idempotency-Key': '<a fresh key>' }, body };
}
