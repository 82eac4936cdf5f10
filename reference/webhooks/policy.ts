import type { ClientRecord } from '../store/clients.ts';
import type { NumberRecord } from '../store/numbers.ts';
import { deliveryEvent } from './events.ts';
import { signedHeaders } from './sign.ts';

/** Where callbacks go, what a delivery event says and how callbacks are signed. */
export interface WebhookPolicy {
  deliveryTarget(client: ClientRecord, number: NumberRecord): string | null;
  inboundTarget(client: ClientRecord, number: NumberRecord): string | null;
  deliveryEvent: typeof deliveryEvent;
  signedHeaders: typeof signedHeaders;
}

/** A delivery event goes to the sending number's webhookDeliveryOverride (WH-001), else to the client's delivery webhook (WH-002). */
function deliveryTarget(client: ClientRecord, number: NumberRecord): string | null {
  return number.webhookDeliveryOverride ?? client.deliveryWebhookUrl;
}

/** An inbound message goes to the number's webhookInboundOverride (WH-004), else to the client's inbound webhook (WH-005). */
function inboundTarget(client: ClientRecord, number: NumberRecord): string | null {
  return number.webhookInboundOverride ?? client.inboundWebhookUrl;
}

export const REFERENCE_WEBHOOKS: WebhookPolicy = { deliveryTarget, inboundTarget, deliveryEvent, signedHeaders };
