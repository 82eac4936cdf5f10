import fc from 'fast-check';
import type { ApiClient } from '../../harness/api-client.ts';
import type { OperationId, Target } from '../../harness/config.ts';
import type { KnownNumbers } from '../../harness/known-numbers.ts';
import { test } from '../../harness/fixtures.ts';
import type { PropertyRun } from '../../harness/property.ts';
import { TEST_AREA_CODES, TEST_OUTCOME_LINES } from '../../generators/nanp-test-number.ts';
import type { HttpRequest } from '../../generators/http-request.ts';
import type { SendPort } from '../../generators/send-port.ts';
import type { ValidSendPayloadConstraints } from '../../generators/valid-send-payload.ts';

/**
 * What the property suites of several areas (send, idempotency) share: the generators'
 * constraints for this target, the send route as the generators' SendPort, and the record of
 * how a property ran.
 */

/**
 * Recipients a property may send to: the configured delivered recipients and every fictional
 * NANP number of the delivered range that the target's allowPattern admits. Real numbers from
 * the numbering plans are never sent to (the send guard would refuse them anyway).
 */
export function testRecipient(target: Target): fc.Arbitrary<string> {
  return fc.constantFrom(...testRecipients(target));
}

/** The recipients of testRecipient, the configured delivered ones first. */
export function testRecipients(target: Target): string[] {
  const allowed = new RegExp(target.recipients.allowPattern);
  const { min, max } = TEST_OUTCOME_LINES.DELIVERED;
  const fictional = TEST_AREA_CODES.flatMap((npa) =>
    Array.from({ length: max - min + 1 }, (_, i) => `+1${npa}555${String(min + i).padStart(4, '0')}`),
  ).filter((n) => allowed.test(n));
  return [...new Set([...target.recipients.delivered, ...fictional])];
}

/**
 * Valid-payload constraints for this target. MMS media and long texts follow the reference
 * profile's shape and limits, which the document leaves open, so they are drawn only for a
 * target that declares the profile; any other target gets SMS with texts of one segment.
 */
export function payloadConstraints(target: Target, known: KnownNumbers, sms: string): ValidSendPayloadConstraints {
  const profile = target.profile === 'reference';
  return {
    numberIds: [sms],
    mmsNumberIds: profile && known.mms ? [known.mms] : [],
    recipient: testRecipient(target),
    maxRecipients: 3,
    ...(profile ? {} : { text: { maxLength: 160, longBodies: false } }),
  };
}

/** The send route as the generators' SendPort: key and body in, status, body and headers out. */
export function apiSendPort(api: ApiClient): SendPort {
  return {
    async send(key, body) {
      const res = await api.call('send', { headers: { 'idempotency-key': key }, json: body });
      return { status: res.status, body: res.body, headers: res.headers };
    },
  };
}

/** Record how a passing property ran, so a run with a random seed can be repeated. */
export function recordRun(run: PropertyRun): void {
  test.info().annotations.push({ type: 'property', description: `seed ${run.seed}, ${run.numRuns} runs (replay with --seed ${run.seed})` });
}

/**
 * A request to the target's route for `operation`, as a property failure shows it for replay:
 * the method and path from the target config, path parameters filled in.
 */
export function routeRequest(target: Target, operation: OperationId, body: unknown, params: Readonly<Record<string, string>> = {}, headers: Record<string, string> = {}): HttpRequest {
  const { method, path } = target.routes[operation];
  const filled = Object.entries(params).reduce((p, [name, value]) => p.replace(`{${name}}`, encodeURIComponent(value)), path);
  return { method, path: filled, headers, body };
}

/** A failure inside a property: thrown, so fast-check shrinks it; the message starts with the ID. */
export function check(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}
