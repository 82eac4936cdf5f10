import { newId } from '../ids.ts';
import type { ClientRecord } from '../store/clients.ts';
import type { InboundMessage } from '../store/messages.ts';
import type { NumberRecord } from '../store/numbers.ts';
import type { DueWebhook, OutboxEntry } from '../store/outbox.ts';
import type { WireChoices } from '../options.ts';
import { inboundEvent } from '../webhooks/events.ts';
import type { WebhookPolicy } from '../webhooks/policy.ts';

/** What a message arriving at one of the service's numbers stores, and the callback to make once it is committed. */
export interface Arrival {
  message: InboundMessage;
  event: OutboxEntry;
  /** Absent when neither the number nor its client has an inbound target (the event is recorded undeliverable). */
  webhook?: DueWebhook;
}

/**
 * A message from `from` arriving at `number` (of `client`): the inbound message and its event,
 * addressed to the number's webhookInboundOverride, else the client's inbound webhook (WH-004,
 * WH-005), signed with the receiving client's secret, its payload shaped as the webhook.payload choice says.
 */
export function arrival(policy: Pick<WebhookPolicy, 'inboundTarget'>, client: ClientRecord, number: NumberRecord, from: string, text: string, nowMs: number, shape: WireChoices['webhook.payload']): Arrival {
  const messageId = newId('msg');
  const target = policy.inboundTarget(client, number);
  const payload = inboundEvent({ messageId, numberId: number.numberId, from, to: number.phoneNumber, text }, nowMs, shape);
  const webhookId = newId('evt');
  return {
    message: { messageId, apiClientId: client.apiClientId, numberId: number.numberId, from, text, createdAt: nowMs },
    event: { webhookId, apiClientId: client.apiClientId, kind: 'message.inbound', messageId, targetUrl: target, payload, createdAt: nowMs },
    ...(target && { webhook: { webhookId, kind: 'message.inbound', targetUrl: target, payload, webhookSecret: client.webhookSecret, attempts: 0, nextAttemptAt: nowMs } }),
  };
}
