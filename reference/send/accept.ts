import { outcomeFor } from '../delivery/outcome.ts';
import { newId } from '../ids.ts';
import type { ClientRecord } from '../store/clients.ts';
import type { Stores } from '../store/index.ts';
import type { NumberRecord } from '../store/numbers.ts';
import type { DueWebhook } from '../store/outbox.ts';
import { deliveryEvent } from '../webhooks/events.ts';
import type { SendRequest } from './sendRequest.ts';

export interface SendCommand {
  client: ClientRecord;
  number: NumberRecord;
  idempotencyKey: string;
  fingerprint: string;
  request: SendRequest;
  nowMs: number;
  retentionMs: number;
}

export type SendDecision =
  | { kind: 'replay'; statusCode: number; body: string }
  | { kind: 'conflict' }
  | { kind: 'accepted'; statusCode: 202; body: string; accepted: Array<{ messageId: string; to: string }>; webhooks: DueWebhook[] };

/**
 * The durable part of a send, run inside a group-commit transaction: consult the idempotency
 * record, and if the key is new, store one message per distinct recipient, its delivery event
 * and the idempotency record. Because writes run one after another, of any number of
 * concurrent requests with one key exactly one finds the key free.
 */
export function decideSend(stores: Stores, command: SendCommand): SendDecision {
  const { client, number, request, nowMs } = command;
  const previous = stores.idempotency.find(client.apiClientId, command.idempotencyKey, nowMs);
  if (previous) {
    return previous.fingerprint === command.fingerprint ? { kind: 'replay', statusCode: previous.statusCode, body: previous.body } : { kind: 'conflict' };
  }

  // The event goes where the number says, else where the client says (section 6).
  const target = number.webhookDeliveryOverride ?? client.deliveryWebhookUrl;
  const results: Array<{ to: string; messageId: string; status: 'QUEUED' }> = [];
  const errors: Array<{ to: string; code: string; message: string }> = [];
  const accepted: Array<{ messageId: string; to: string }> = [];
  const webhooks: DueWebhook[] = [];
  const seen = new Set<string>();

  for (const to of request.to) {
    if (seen.has(to)) {
      errors.push({ to, code: 'DUPLICATE_RECIPIENT', message: 'This recipient is repeated in `to`; it was accepted once.' });
      continue;
    }
    seen.add(to);
    const messageId = newId('msg');
    stores.messages.insertOutbound({
      messageId,
      apiClientId: client.apiClientId,
      numberId: number.numberId,
      to,
      messageType: request.messageType,
      text: request.text ?? null,
      media: request.media ? JSON.stringify(request.media) : null,
      externalReference: request.externalReference,
      createdAt: nowMs,
    });
    // The simulated carrier's outcome depends on the recipient only, so the final event is
    // known (and made durable) at acceptance.
    const outcome = outcomeFor(to);
    const payload = deliveryEvent(
      {
        messageId,
        status: outcome.status,
        to,
        sendFrom: number.numberId,
        externalReference: request.externalReference,
        ...(outcome.errorCode ? { errorCode: outcome.errorCode } : {}),
      },
      nowMs,
    );
    const webhookId = newId('evt');
    const state = stores.outbox.insert({ webhookId, apiClientId: client.apiClientId, kind: 'message.delivery', messageId, targetUrl: target, payload, createdAt: nowMs });
    if (state === 'pending' && target) {
      webhooks.push({ webhookId, targetUrl: target, payload, webhookSecret: client.webhookSecret, attempts: 0, nextAttemptAt: nowMs });
    }
    results.push({ to, messageId, status: 'QUEUED' });
    accepted.push({ messageId, to });
  }

  const body = JSON.stringify({ results, errors });
  stores.idempotency.insert(client.apiClientId, command.idempotencyKey, { fingerprint: command.fingerprint, statusCode: 202, body }, nowMs + command.retentionMs);
  return { kind: 'accepted', statusCode: 202, body, accepted, webhooks };
}
