import type { ReferenceContext } from '../context.ts';
import type { Arrival } from '../delivery/arrival.ts';
import { CoreError, coreErrorBody } from '../errors.ts';
import type { WireChoices } from '../options.ts';
import type { ClientRecord } from '../store/clients.ts';
import type { IdempotencyRecord } from '../store/idempotency.ts';
import { buildAcceptance, type Acceptance } from './accept.ts';
import { checkClientCapability, checkRecipients } from './checks.ts';
import { payloadFingerprint } from './fingerprint.ts';
import type { SendRequest } from './sendRequest.ts';

/** What the route sends back: a first answer, or the stored one replayed. */
export interface SendAnswer {
  statusCode: number;
  body: string;
  replayed: boolean;
}

/**
 * The idempotency record of a key answers before anything that depends on state: a safe retry
 * of an accepted send gets the earlier result (Idempotency-Key draft 2.6; IDEM-001, IDEM-101)
 * even if, say, the number lost its campaignregId since; a changed payload is 409 (profile
 * send.unsafeRetry; IDEM-002, IDEM-102, IDEM-201), or the draft's 422 by the send.unsafeRetry choice.
 */
function answerFromRecord(record: IdempotencyRecord, fingerprint: string, unsafeRetry: WireChoices['send.unsafeRetry']): SendAnswer {
  if (record.fingerprint !== fingerprint) {
    throw new CoreError(
      unsafeRetry === '422' ? 'UNPROCESSABLE_CONTENT' : 'CONFLICT',
      'This Idempotency-Key was used with a different payload; a changed payload needs a new key.',
      { header: 'Idempotency-Key' },
    );
  }
  return { statusCode: record.statusCode, body: record.body, replayed: true };
}

/**
 * POST /api/core/messages/send after authentication, the Idempotency-Key header and the body's
 * shape: the idempotency record, then the client's capability for the messageType (403), rules
 * 6 (sendFrom), 4 and 5, the number's capability (400), rule 6 (recipients), then acceptance,
 * with the inbound arrivals of recipients that are the service's own numbers (loopback.ts).
 *
 * One send per (client, key) is in the writer at a time. A request with the key of a send that
 * is still in the writer waits for it, then is answered from its record like any later retry
 * (so 100 concurrent requests with one key create one message: IDEM-003; profile send.inFlight, IDEM-204), or, by the
 * send.inFlight choice, is 409 CONFLICT at once (Idempotency-Key draft 2.7; IDEM-104). Were that send refused or
 * failed instead, the waiter starts over and may become the first itself. The writer's own
 * check-then-insert, in one transaction, would keep one message per key even without this.
 */
type Settle = (record: IdempotencyRecord | undefined) => void;

export class SendService {
  /** The (client, key) slots of the sends in the writer, each with the requests waiting for it (most have none). */
  private readonly inFlight = new Map<string, Settle[]>();

  constructor(private readonly ctx: ReferenceContext) {}

  async send(client: ClientRecord, idempotencyKey: string, request: SendRequest, requestId: string): Promise<SendAnswer> {
    const { stores, writes, options } = this.ctx;
    const unsafeRetry = options.wire['send.unsafeRetry'];
    const fingerprint = payloadFingerprint(request);
    // A header value cannot contain NUL, so the slot names one (client, key) pair.
    const slot = `${client.apiClientId}\u0000${idempotencyKey}`;

    for (;;) {
      const waiting = this.inFlight.get(slot);
      if (!waiting) break;
      if (options.wire['send.inFlight'] === '409') throw new CoreError('CONFLICT', 'A request with this Idempotency-Key is in progress; retry once it has been answered.', { header: 'Idempotency-Key' });
      const record = await new Promise<IdempotencyRecord | undefined>((resolve) => waiting.push(resolve));
      if (record) return answerFromRecord(record, fingerprint, unsafeRetry);
    }
    // The key's record decides before anything that depends on state (draft 2.6). The writer
    // looks it up in the transaction that would store this send, so the checks below are run
    // now but their refusal is reported only when the key has no record.
    const { behaviour } = this.ctx;
    const nowMs = Date.now();
    let acceptance: Acceptance | undefined;
    let arrivals: Arrival[] = [];
    let refusal: CoreError | undefined;
    try {
      checkClientCapability(request, client);
      const number = behaviour.send.resolveSendFrom(request, client, stores.numbers);
      behaviour.send.checkNumberCapability(request, number);
      checkRecipients(request, behaviour.schemas.e164);
      acceptance = buildAcceptance(behaviour.webhooks, client, number, request, fingerprint, nowMs, options.wire);
      arrivals = behaviour.send.loopbackArrivals(behaviour.webhooks, stores, number, request, acceptance.accepted, nowMs, options.wire['webhook.payload']);
    } catch (error) {
      if (!(error instanceof CoreError)) throw error;
      refusal = error;
    }

    // A refusal the profile does not store leaves the key free: the same send again is a first
    // attempt, never a conflict (IDEM-007, IDEM-203).
    // The send.rejections choice 'stored': the refusal claims the key like an acceptance, and a
    // retry gets it replayed (Idempotency-Key draft 2.6).
    const storedRefusal =
      refusal && options.wire['send.rejections'] === 'stored'
        ? { fingerprint, statusCode: refusal.status, body: JSON.stringify(coreErrorBody(refusal, requestId)) }
        : undefined;
    // A promise only for the requests that wait: the slot holds their resolvers.
    const waiting: Settle[] = [];
    const settle = (record: IdempotencyRecord | undefined) => {
      for (const resolve of waiting) resolve(record);
    };
    this.inFlight.set(slot, waiting);
    try {
      const result = await writes.run({
        op: 'acceptSend',
        apiClientId: client.apiClientId,
        idempotencyKey,
        nowMs,
        expiresAt: nowMs + options.idempotencyTtlSeconds * 1000,
        rows: acceptance
          ? {
              record: acceptance.record,
              content: acceptance.content,
              messages: acceptance.messages,
              events: arrivals.length === 0 ? acceptance.events : [...acceptance.events, ...arrivals.map(({ event }) => event)],
              inbound: arrivals.map(({ message }) => message),
            }
          : storedRefusal
            ? { record: storedRefusal, content: null, messages: [], events: [] }
            : null,
      });
      if (!result.stored && result.record) {
        settle(result.record);
        return answerFromRecord(result.record, fingerprint, unsafeRetry);
      }
      if (!acceptance) {
        settle(storedRefusal);
        throw refusal!;
      }
      settle(acceptance.record);
    } catch (error) {
      settle(undefined);
      throw error;
    } finally {
      this.inFlight.delete(slot);
    }

    // Committed: hand the messages to the carrier and the events to the dispatcher at once. A
    // refused send never gets here, so it queues nothing (SEND-015).
    this.ctx.carrier.take(acceptance.accepted);
    this.ctx.dispatcher.dispatch(arrivals.length === 0 ? acceptance.webhooks : [...acceptance.webhooks, ...arrivals.flatMap(({ webhook }) => (webhook ? [webhook] : []))]);
    return { statusCode: acceptance.record.statusCode, body: acceptance.record.body, replayed: false };
  }
}
