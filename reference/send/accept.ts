import { outcomeFor } from '../delivery/outcome.ts';
import { newId } from '../ids.ts';
import type { ClientRecord } from '../store/clients.ts';
import type { IdempotencyRecord } from '../store/idempotency.ts';
import type { MessageContent, OutboundMessage } from '../store/messages.ts';
import type { NumberRecord } from '../store/numbers.ts';
import type { DueWebhook, OutboxEntry } from '../store/outbox.ts';
import type { WebhookPolicy } from '../webhooks/policy.ts';
import type { SendRequest } from './sendRequest.ts';
import { PROFILE_WIRE_CHOICES, type WireChoices } from '../options.ts';

/** Everything an accepted send stores, built before it is handed to the writer. */
export interface Acceptance {
  record: IdempotencyRecord;
  /** The text and media, once for every message of the send. */
  content: MessageContent;
  messages: OutboundMessage[];
  events: OutboxEntry[];
  /** For the carrier, once committed. */
  accepted: Array<{ messageId: string; to: string }>;
  /** For the dispatcher, once committed: the events that have a target. */
  webhooks: DueWebhook[];
}

/** One accepted recipient as the send.results choice reports it (rule 7: QUEUED on the item or on the body). */
function resultItem(shape: WireChoices['send.results'], to: string, messageId: string): Record<string, string> {
  if (shape === 'ids-only') return { messageId, status: 'QUEUED' };
  if (shape === 'status-on-body') return { messageId, recipient: to };
  return { to, messageId, status: 'QUEUED' };
}

/**
 * The rows of an accepted send: one message per distinct recipient, its delivery event, and the
 * idempotency record holding the exact answer: 202 (SEND-201), or the status of the
 * send.successStatus choice, with results (shaped by the send.results choice), each QUEUED with its
 * messageId (SEND-008), and errors, empty when nothing failed (SEND-009); profile send.items
 * (SEND-202): repeats of a recipient are reported as DUPLICATE_RECIPIENT.
 */
export function buildAcceptance(
  policy: Pick<WebhookPolicy, 'deliveryTarget' | 'deliveryEvent'>,
  client: ClientRecord,
  number: NumberRecord,
  request: SendRequest,
  fingerprint: string,
  nowMs: number,
  wire: Pick<WireChoices, 'send.successStatus' | 'send.results' | 'webhook.payload'> = PROFILE_WIRE_CHOICES,
): Acceptance {
  const results: Array<Record<string, string>> = [];
  const errors: Array<{ to: string; code: string; message: string }> = [];
  const messages: OutboundMessage[] = [];
  const events: OutboxEntry[] = [];
  const accepted: Array<{ messageId: string; to: string }> = [];
  const webhooks: DueWebhook[] = [];
  const content: MessageContent = { contentId: newId('cnt'), text: request.text ?? null, media: request.media ? JSON.stringify(request.media) : null };
  const seen = new Set<string>();

  for (const to of request.to) {
    if (seen.has(to)) {
      errors.push({ to, code: 'DUPLICATE_RECIPIENT', message: 'This recipient is repeated in `to`; it was accepted once.' });
      continue;
    }
    seen.add(to);
    const messageId = newId('msg');
    messages.push({
      messageId,
      apiClientId: client.apiClientId,
      numberId: number.numberId,
      to,
      messageType: request.messageType,
      contentId: content.contentId,
      externalReference: request.externalReference,
      createdAt: nowMs,
    });
    // The simulated carrier's outcome depends on the recipient only, so the final event is
    // known (and made durable) at acceptance.
    const outcome = outcomeFor(to);
    const payload = policy.deliveryEvent(
      {
        messageId,
        status: outcome.status,
        to,
        sendFrom: number.numberId,
        externalReference: request.externalReference,
        ...(outcome.errorCode ? { errorCode: outcome.errorCode } : {}),
      },
      nowMs,
      wire['webhook.payload'],
    );
    const target = policy.deliveryTarget(client, number, to);
    // One webhook-id per event, kept across its retries (WH-109, WH-103).
    const webhookId = newId('evt');
    events.push({ webhookId, apiClientId: client.apiClientId, kind: 'message.delivery', messageId, targetUrl: target, payload, createdAt: nowMs });
    if (target) webhooks.push({ webhookId, kind: 'message.delivery', targetUrl: target, payload, webhookSecret: client.webhookSecret, attempts: 0, nextAttemptAt: nowMs });
    results.push(resultItem(wire['send.results'], to, messageId));
    accepted.push({ messageId, to });
  }

  const body = wire['send.results'] === 'status-on-body' ? { status: 'QUEUED', results, errors } : { results, errors };
  const record = { fingerprint, statusCode: Number(wire['send.successStatus']), body: JSON.stringify(body) };
  return { record, content, messages, events, accepted, webhooks };
}
