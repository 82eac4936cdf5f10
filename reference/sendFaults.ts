import type { FaultName } from './faults/index.ts';
import type { Acceptance } from './send/accept.ts';
import type { ClientRecord } from './store/clients.ts';
import type { NumberRecord } from './store/numbers.ts';

// How the send path turns on the kill-matrix faults of reference/faults.ts. The send code calls
// each of these at one place; with no fault active every one of them is the identity (or the
// ordinary check), so the faults stay out of the send logic itself.

type Faults = ReadonlySet<FaultName>;

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
