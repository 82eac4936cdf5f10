import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CoreError } from './errors.ts';
import type { FaultName } from './faults/index.ts';
import type { Acceptance } from './send/accept.ts';
import { checkRecipients, resolveSendFrom } from './send/checks.ts';
import { payloadFingerprint } from './send/fingerprint.ts';
import { requireIdempotencyKey } from './send/idempotencyKey.ts';
import type { SendRequest } from './send/sendRequest.ts';
import type { ClientRecord } from './store/clients.ts';
import type { IdempotencyStore } from './store/idempotency.ts';
import type { NumberRecord, NumberStore } from './store/numbers.ts';

// How the send path turns on the kill-matrix faults of reference/faults.ts. The send code calls
// each of these at one place; with no fault active every one of them is the identity (or the
// ordinary check), so the faults stay out of the send logic itself.

type Faults = ReadonlySet<FaultName>;
type Schema = Record<string, unknown>;

/** Idempotency-Key check for the onRequest hook; send.missing-key-accepted makes a key up. */
export function idempotencyKeyHook(faults: Faults): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  if (!faults.has('send.missing-key-accepted')) return requireIdempotencyKey;
  return async (request, reply) => {
    if (request.headers['idempotency-key'] === undefined) {
      request.idempotencyKey = `made-up-${randomUUID()}`;
      return;
    }
    return requireIdempotencyKey(request, reply);
  };
}

/**
 * The send request schema, loosened by send.empty-to-accepted, send.text-type-accepted,
 * send.missing-external-reference-accepted and send.missing-type-accepted, narrowed by send.mms-refused.
 */
export function sendSchema(schema: Schema, faults: Faults): Schema {
  const properties = { ...(schema.properties as Record<string, Schema>) };
  let required = schema.required as string[];
  if (faults.has('send.empty-to-accepted')) properties.to = { ...properties.to, minItems: 0 };
  if (faults.has('send.text-type-accepted')) properties.messageType = { ...properties.messageType, enum: ['SMS', 'MMS', 'TEXT'] };
  if (faults.has('send.missing-external-reference-accepted')) required = required.filter((name) => name !== 'externalReference');
  if (faults.has('send.missing-type-accepted')) required = required.filter((name) => name !== 'messageType');
  if (faults.has('send.mms-refused')) properties.messageType = { ...properties.messageType, enum: ['SMS'] };
  return { ...schema, properties, required };
}

/**
 * The body as the send path sees it: send.missing-external-reference-accepted fills in an empty
 * reference, send.missing-type-accepted a messageType of SMS.
 */
export function sendRequest(body: SendRequest, faults: Faults): SendRequest {
  if (faults.has('send.missing-external-reference-accepted') && body.externalReference === undefined) return { ...body, externalReference: '' };
  if (faults.has('send.missing-type-accepted') && body.messageType === undefined) return { ...body, messageType: 'SMS' };
  return body;
}

/** Whether the media rule (4.6 rules 2 and 3) is waived for this request. */
export function mediaRuleWaived(body: SendRequest, faults: Faults): boolean {
  return (
    (body.messageType === 'SMS' && faults.has('send.sms-with-media-accepted')) || (body.messageType === 'MMS' && faults.has('send.mms-without-media-accepted'))
  );
}

/**
 * resolveSendFrom (4.6 rules 6, 4, 5) with send.e164-send-from-accepted, send.foreign-send-from-accepted,
 * send.no-campaign-accepted, errors.forbidden-as-not-found and numbers.sms-only-number-refused.
 */
export function resolveSendFromWithFaults(request: SendRequest, client: ClientRecord, numbers: NumberStore, faults: Faults): NumberRecord {
  const number = resolveSendFromWithOtherFaults(request, client, numbers, faults);
  if (faults.has('numbers.sms-only-number-refused') && !number.mmsEnabled) throw new CoreError('FORBIDDEN', 'This sendFrom number is not assigned to this API client.');
  return number;
}

function resolveSendFromWithOtherFaults(request: SendRequest, client: ClientRecord, numbers: NumberStore, faults: Faults): NumberRecord {
  if (faults.has('send.e164-send-from-accepted')) {
    const own = numbers.byPhoneNumber(request.sendFrom);
    if (own?.apiClientId === client.apiClientId) return resolveSendFrom({ ...request, sendFrom: own.numberId }, client, numbers);
  }
  if (faults.has('send.foreign-send-from-accepted')) {
    const any = numbers.byId(request.sendFrom);
    if (any && any.apiClientId !== client.apiClientId) return any;
  }
  if (faults.has('send.no-campaign-accepted')) {
    const own = numbers.findOwned(client.apiClientId, request.sendFrom);
    if (own) return own;
  }
  try {
    return resolveSendFrom(request, client, numbers);
  } catch (error) {
    if (faults.has('errors.forbidden-as-not-found') && error instanceof CoreError && error.code === 'FORBIDDEN' && !numbers.byId(request.sendFrom)) {
      // The status stays 403 while the code says NOT_FOUND: the pair section 7.2 rules out.
      const mislabelled = new CoreError('NOT_FOUND', 'No number has this numberId.', error.details);
      Object.defineProperty(mislabelled, 'status', { value: 403 });
      throw mislabelled;
    }
    throw error;
  }
}

/** The E.164 pattern recipients are checked against, widened by the three SEND-007 faults. */
export function recipientPattern(e164: RegExp, faults: Faults): RegExp {
  const padded = faults.has('send.padded-recipient-accepted');
  const doubleZero = faults.has('send.00-prefix-recipient-accepted');
  const long = faults.has('send.long-recipient-accepted');
  if (!padded && !doubleZero && !long) return e164;
  const space = padded ? '\\s*' : '';
  return new RegExp(`^${space}${doubleZero ? '(?:\\+|00)' : '\\+'}[1-9]\\d{1,${long ? '' : '14'}}${space}$`);
}

/**
 * checkRecipients (4.6 rule 6) with send.rejected-still-queued: a send refused for its
 * recipients still has `queue` hand its delivery callbacks to the dispatcher.
 */
export function checkRecipientsWithFaults(request: SendRequest, pattern: RegExp, faults: Faults, queue: () => void): void {
  try {
    checkRecipients(request, pattern);
  } catch (error) {
    if (faults.has('send.rejected-still-queued') && error instanceof CoreError) queue();
    throw error;
  }
}

/**
 * An accepted send's delivery events as the webhook faults change them: webhooks.override-never-sent
 * hands them over only when the client has a delivery webhook, webhooks.wrong-target sends them
 * to the client's webhook over the number's override, webhooks.message-id-missing names the
 * message by a URL instead of its messageId, webhooks.client-delivery-ignored sends none to the
 * client's webhook when the number has no override.
 */
export function acceptanceWithFaults(acceptance: Acceptance, client: ClientRecord, number: NumberRecord, faults: Faults): Acceptance {
  let { events, webhooks } = acceptance;
  if (faults.has('webhooks.wrong-target') && client.deliveryWebhookUrl !== null) {
    const target = client.deliveryWebhookUrl;
    events = events.map((event) => ({ ...event, targetUrl: target }));
    webhooks = webhooks.map((webhook) => ({ ...webhook, targetUrl: target }));
  }
  if (faults.has('webhooks.message-id-missing')) {
    const withoutId = (payload: string): string => {
      const event = JSON.parse(payload) as { data: Record<string, unknown> };
      const { messageId, ...data } = event.data;
      return JSON.stringify({ ...event, data: { messageUrl: `/api/core/messages/${String(messageId)}`, ...data } });
    };
    events = events.map((event) => ({ ...event, payload: withoutId(event.payload) }));
    webhooks = webhooks.map((webhook) => ({ ...webhook, payload: withoutId(webhook.payload) }));
  }
  if (faults.has('webhooks.override-never-sent') && client.deliveryWebhookUrl === null) webhooks = [];
  if (faults.has('webhooks.client-delivery-ignored') && client.deliveryWebhookUrl !== null && number.webhookDeliveryOverride === null) {
    events = events.map((event) => ({ ...event, targetUrl: null }));
    webhooks = [];
  }
  return { ...acceptance, events, webhooks };
}

/** The answer body as send.status-not-queued and send.errors-array-missing spoil it. */
export function answerBody(body: string, faults: Faults): string {
  const statusNotQueued = faults.has('send.status-not-queued');
  const errorsMissing = faults.has('send.errors-array-missing');
  if (!statusNotQueued && !errorsMissing) return body;
  const answer = JSON.parse(body) as { results?: Array<{ status?: string }>; errors?: unknown[] };
  if (statusNotQueued) for (const result of answer.results ?? []) result.status = 'SENT';
  if (errorsMissing && answer.errors?.length === 0) delete answer.errors;
  return JSON.stringify(answer);
}

// How long the first of several concurrent sends with one key holds it under
// idempotency.concurrent-duplicates: long enough for a burst to arrive meanwhile.
const RACE_WINDOW_MS = 100;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs a send under the key the idempotency faults choose. idempotency.replay-creates-new and
 * idempotency.changed-payload-accepted send a replay or a changed payload under a fresh key, so
 * it is queued as a new operation; idempotency.concurrent-duplicates gives every request that
 * arrives while another with its key is in flight a fresh key of its own (the lookup and the
 * record are separated by an await, and nothing serialises them).
 */
export class IdempotencyFaults {
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly faults: Faults,
    private readonly records: IdempotencyStore,
  ) {}

  async run<T>(client: ClientRecord, key: string, request: SendRequest, send: (key: string) => Promise<T>): Promise<T> {
    const fresh = () => `${key}#${randomUUID()}`;
    if (this.faults.has('idempotency.replay-creates-new') || this.faults.has('idempotency.changed-payload-accepted')) {
      const stored = this.records.find(client.apiClientId, key, Date.now());
      if (stored) {
        const same = stored.fingerprint === payloadFingerprint(request);
        if ((same && this.faults.has('idempotency.replay-creates-new')) || (!same && this.faults.has('idempotency.changed-payload-accepted'))) return send(fresh());
      }
    }
    if (!this.faults.has('idempotency.concurrent-duplicates')) return send(key);
    const slot = `${client.apiClientId}\u0000${key}`;
    if (this.inFlight.has(slot)) return send(fresh());
    this.inFlight.add(slot);
    try {
      await sleep(RACE_WINDOW_MS);
      return await send(key);
    } finally {
      this.inFlight.delete(slot);
    }
  }
}
