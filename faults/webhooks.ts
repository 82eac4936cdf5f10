import { createHash } from 'node:crypto';
import { arrival } from '../reference/delivery/arrival.ts';
import { outcomeFor } from '../reference/delivery/outcome.ts';
import type { DeliveryEventData } from '../reference/webhooks/events.ts';
import type { SendRequest } from '../reference/send/sendRequest.ts';
import { ofServer, replaceMember, type Answer, type FaultDefinition } from './fault.ts';
import type { Behaviour } from '../reference/behaviour.ts';

/** The externalReferences of the MMS sends a server accepted, per server (MMS_SENDS_NOTED). */
const mmsReferences = new WeakMap<object, Set<string>>();
const mmsReferencesOf = (stores: object) => ofServer(mmsReferences, stores, () => new Set<string>());

/** The hooks of a fault that treats MMS messages apart: each MMS send's externalReference is noted, per server. */
const MMS_SENDS_NOTED: Pick<FaultDefinition, 'route' | 'preHandler'> = {
  route: 'POST /api/core/messages/send',
  preHandler(request, { stores }) {
    const send = request.body as SendRequest;
    if (send.messageType === 'MMS') mmsReferencesOf(stores).add(send.externalReference);
  },
};

// Faults of webhooks (sections 3, 6; Standard Webhooks): each replaces a member of the webhook
// policy: where a callback goes, what a delivery event says, how a callback is signed or
// whether a failed one is tried again; one changes the sending number an MMS is accepted with,
// so that its callbacks go elsewhere.

// The webhook-ids already attempted once (webhooks.retry-unlabelled).
const attemptedIds = new Set<string>();
/** When each number was last updated, under webhooks.update-drops-retries (numberIds are unique to a server). */
const numbersUpdatedAt = new Map<string, number>();
/** The overrides ever set to a URL, as "<field> <numberId>", under webhooks.cleared-*-drops-*. */
const overridesEverSet = new Set<string>();

/** An answer hook that remembers which number's `field` an accepted update set to a URL. */
function rememberOverrideSet(field: 'webhookDeliveryOverride' | 'webhookInboundOverride'): NonNullable<FaultDefinition['answer']> {
  return ({ request, status }) => {
    const body = request.body as Record<string, unknown> | null;
    if (status < 300 && typeof body?.[field] === 'string') overridesEverSet.add(`${field} ${(request.params as { numberId: string }).numberId}`);
  };
}


/** The fields of an event a callback carries: its `data` member's, or the body's own where it has none. */
/** The Idempotency-Key of each send, by the externalReference its events carry, per server, under webhooks.id-from-idempotency-key. */
const keysByReference = new WeakMap<object, Map<string, string>>();
const keysOf = (stores: object) => ofServer(keysByReference, stores, () => new Map<string, string>());

function eventData(payload: string): Record<string, unknown> {
  const event = JSON.parse(payload) as { data?: Record<string, unknown> } & Record<string, unknown>;
  return event.data ?? event;
}

/**
 * Webhook behaviour whose later attempts go nowhere (a closed port) when `dropped` says so of the
 * callback: its number (as its event names it) and when its first attempt was made.
 */
function droppingRetries(dropped: (numberId: string | undefined, firstAttemptAt: number) => boolean): (behaviour: Behaviour) => Partial<Behaviour> {
  return (behaviour) => {
    let numberOfAttempt: string | undefined;
    const firstAttemptAt = new Map<string, number>();
    return {
      webhooks: {
        ...behaviour.webhooks,
        // The dispatcher asks for an attempt's body, then its target: the body names the number.
        attemptPayload: (payload, attemptsBefore) => {
          const data = eventData(payload);
          numberOfAttempt = typeof data.sendFrom === 'string' ? data.sendFrom : typeof data.numberId === 'string' ? data.numberId : undefined;
          return behaviour.webhooks.attemptPayload(payload, attemptsBefore);
        },
        attemptTarget: (webhook, attemptsBefore) => {
          if (attemptsBefore === 0) firstAttemptAt.set(webhook.webhookId, Date.now());
          const first = firstAttemptAt.get(webhook.webhookId);
          if (attemptsBefore > 0 && first !== undefined && dropped(numberOfAttempt, first)) return 'http://127.0.0.1:1/dropped';
          return behaviour.webhooks.attemptTarget(webhook, attemptsBefore);
        },
      },
    };
  };
}

/**
 * A fault under which an answer of `route` that `happened` picks (a token issued, a retry
 * refused) drops the pending retries of every callback whose first attempt came before it.
 */
function droppingRetriesOnce(route: string, happened: (answer: Answer) => boolean): Required<Pick<FaultDefinition, 'route' | 'answer' | 'behaviour'>> {
  let happenedAt = 0;
  return {
    route,
    answer(answer) {
      if (happened(answer)) happenedAt = Date.now();
    },
    behaviour: droppingRetries((_numberId, firstAttemptAt) => happenedAt > firstAttemptAt),
  };
}

export const WEBHOOKS_FAULTS = {
  'webhooks.override-never-sent': {
    breaks: ['WH-001'],
    description: "delivery events are handed to the dispatcher only when the client has a delivery webhook, so one addressed to a number's override alone is never sent",
    behaviour: replaceMember('webhooks', 'deliveryTarget', (deliveryTarget) => (client, number, to) => (client.deliveryWebhookUrl === null ? null : deliveryTarget(client, number, to))),
  },
  'webhooks.wrong-target': {
    breaks: ['WH-001'],
    description: "delivery events go to the client's delivery webhook even when the number has webhookDeliveryOverride set",
    behaviour: replaceMember('webhooks', 'deliveryTarget', () => (client, number) => client.deliveryWebhookUrl ?? number.webhookDeliveryOverride),
  },
  'webhooks.cleared-override-still-used': {
    breaks: ['WH-002'],
    description: "a number's delivery override is remembered when first used and never forgotten: once cleared (null), its outcomes still go to the old override, not to the client's delivery webhook",
    // A cache of the override per number, filled when an override is used, never emptied.
    behaviour: replaceMember('webhooks', 'deliveryTarget', (deliveryTarget) => {
      const remembered = new Map<string, string>();
      return (client, number, to) => {
        if (number.webhookDeliveryOverride) remembered.set(number.numberId, number.webhookDeliveryOverride);
        return remembered.get(number.numberId) ?? deliveryTarget(client, number, to);
      };
    }),
  },
  'webhooks.cleared-override-drops-outcome': {
    breaks: ['WH-002'],
    description: "a number whose delivery override was once set and then cleared (null) has its outcomes sent nowhere: the cleared override is kept as \"set to nothing\" (a number never given one reports to the client's delivery webhook)",
    route: 'PATCH /api/core/numbers/:numberId',
    answer: rememberOverrideSet('webhookDeliveryOverride'),
    behaviour: replaceMember('webhooks', 'deliveryTarget', (deliveryTarget) => (client, number, to) =>
      number.webhookDeliveryOverride === null && overridesEverSet.has(`webhookDeliveryOverride ${number.numberId}`) ? null : deliveryTarget(client, number, to),
    ),
  },
  'webhooks.cleared-inbound-override-drops-traffic': {
    breaks: ['WH-005'],
    description: "a number whose inbound override was once set and then cleared (null) has its inbound traffic sent nowhere (a number never given one sends it to the client's inbound webhook)",
    route: 'PATCH /api/core/numbers/:numberId',
    answer: rememberOverrideSet('webhookInboundOverride'),
    behaviour: replaceMember('webhooks', 'inboundTarget', (inboundTarget) => (client, number) =>
      number.webhookInboundOverride === null && overridesEverSet.has(`webhookInboundOverride ${number.numberId}`) ? null : inboundTarget(client, number),
    ),
  },
  'webhooks.override-first-client-only': {
    breaks: ['WH-001'],
    description: "numbers' delivery overrides are honoured for the primary client only: another client's outcomes go to that client's delivery webhook, its number's override set or not",
    behaviour: replaceMember('webhooks', 'deliveryTarget', (deliveryTarget, { seeded }) => (client, number, to) =>
      client.apiClientId === seeded.find((c) => c.role === 'primary')?.apiClientId ? deliveryTarget(client, number, to) : client.deliveryWebhookUrl,
    ),
  },
  'webhooks.mms-ignores-override': {
    breaks: ['WH-001'],
    description: "the delivery events of an MMS go to the client's delivery webhook even when the sending number has webhookDeliveryOverride set (an SMS's still go to the override)",
    // The MMS is accepted as if its number had no override, so its events are addressed as WH-002 says.
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const number = resolveSendFrom(request, client, numbers);
      return request.messageType === 'MMS' ? { ...number, webhookDeliveryOverride: null } : number;
    }),
  },
  'webhooks.failed-ignores-override': {
    breaks: ['WH-007'],
    description: "the delivery events of a send that will fail go to the client's delivery webhook even when the sending number has webhookDeliveryOverride set (delivered messages' still go to the override)",
    // Accepted as if its number had no override when a recipient's outcome will be a failure.
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const number = resolveSendFrom(request, client, numbers);
      return request.to.some((to) => outcomeFor(to).status === 'FAILED') ? { ...number, webhookDeliveryOverride: null } : number;
    }),
  },
  'webhooks.later-messages-interim-only': {
    breaks: ['WH-008'],
    description: 'of the messages of one send, only the first gets its final outcome: each later one (another recipient) is reported by an interim SENT event only',
    // A send's messages share its externalReference and sending number; the first of them seen is the first recipient's.
    behaviour: finalForFirst(1, (data) => `${data.sendFrom}\u0000${data.externalReference}`),
  },
  'webhooks.repeated-reference-unreported': {
    breaks: ['WH-008'],
    description: 'an outcome is reported once per externalReference and recipient: a later message with the same reference to the same recipient (another send under a new key) is reported by an interim SENT event only',
    behaviour: finalForFirst(1, (data) => `${data.sendFrom}\u0000${data.externalReference}\u0000${data.to}`),
  },
  'webhooks.third-message-unreported': {
    breaks: ['WH-008'],
    description: 'of the messages of one send, the first two get their final outcome: each one after them (a third recipient on) is reported by an interim SENT event only',
    behaviour: finalForFirst(2, (data) => `${data.sendFrom}\u0000${data.externalReference}`),
  },
  'webhooks.callback-before-answer': {
    breaks: ['WH-009'],
    description: "a send is answered only once the first attempt of each of its messages' delivery events has been answered by the receiver (or timed out): a slow receiver holds the send's answer back",
    route: 'POST /api/core/messages/send',
    async answer({ status, body }, { db }) {
      if (status < 200 || status >= 300) return;
      const ids: string[] = (body.results ?? []).flatMap((r: { messageId?: unknown }) => (typeof r?.messageId === 'string' ? [r.messageId] : []));
      const attempted = db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM webhook_outbox WHERE message_id = ? AND kind = 'message.delivery' AND (attempts > 0 OR state <> 'pending')`);
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline && !ids.every((id) => attempted.get(id)!.n > 0)) await new Promise((resolve) => setTimeout(resolve, 50));
    },
  },
  'webhooks.message-id-missing': {
    breaks: ['WH-003'],
    description: 'delivery events carry a message URL instead of the messageId',
    behaviour: replaceMember('webhooks', 'deliveryEvent', (deliveryEvent) => (data, nowMs) => {
      const event = JSON.parse(deliveryEvent(data, nowMs)) as { data: Record<string, unknown> };
      const { messageId, ...rest } = event.data;
      return JSON.stringify({ ...event, data: { messageUrl: `/api/core/messages/${String(messageId)}`, ...rest } });
    }),
  },
  'webhooks.client-delivery-ignored': {
    breaks: ['WH-002'],
    description: "delivery events for a number without webhookDeliveryOverride are never sent to the client's delivery webhook",
    behaviour: replaceMember('webhooks', 'deliveryTarget', () => (_client, number) => number.webhookDeliveryOverride),
  },
  'webhooks.outcome-falls-back-to-other-client': {
    breaks: ['WH-002'],
    description: "the outcome of a message from a number without an override, of a client without a delivery webhook, goes to the delivery webhook of the first seeded client that has one: another tenant's receiver",
    behaviour: (behaviour, { stores, seeded }) => ({
      webhooks: {
        ...behaviour.webhooks,
        deliveryTarget: (client, number, to) =>
          behaviour.webhooks.deliveryTarget(client, number, to) ??
          seeded.map(({ apiClientId }) => stores.clients.byApiClientId(apiClientId)?.deliveryWebhookUrl).find((url) => typeof url === 'string') ??
          null,
      },
    }),
  },
  'webhooks.outcome-falls-back-for-later-clients': {
    breaks: ['WH-002'],
    description: "the same fallback to another tenant's delivery webhook, only for the clients seeded after the first two (the special client, the short-lived-token client): the secondary's outcomes stay its own",
    behaviour: (behaviour, { stores, seeded }) => ({
      webhooks: {
        ...behaviour.webhooks,
        deliveryTarget: (client, number, to) => {
          const own = behaviour.webhooks.deliveryTarget(client, number, to);
          if (own !== null || seeded.findIndex(({ apiClientId }) => apiClientId === client.apiClientId) < 2) return own;
          return seeded.map(({ apiClientId }) => stores.clients.byApiClientId(apiClientId)?.deliveryWebhookUrl).find((url) => typeof url === 'string') ?? null;
        },
      },
    }),
  },
  'webhooks.outcome-to-recipient-owner': {
    breaks: ['WH-001'],
    description: "a message to a phone number another client of the service holds has its outcome sent to that client's delivery webhook (or its number's override), not to the sender's: right for every recipient outside the service",
    behaviour: (behaviour, { stores }) => ({
      webhooks: {
        ...behaviour.webhooks,
        deliveryTarget: (client, number, to) => {
          const held = stores.numbers.isServiceNumber(to) ? stores.numbers.byPhoneNumber(to) : undefined;
          const owner = held && held.apiClientId !== client.apiClientId ? stores.clients.byApiClientId(held.apiClientId) : undefined;
          return held && owner ? behaviour.webhooks.deliveryTarget(owner, held, to) : behaviour.webhooks.deliveryTarget(client, number, to);
        },
      },
    }),
  },
  'webhooks.inbound-override-ignored': {
    breaks: ['WH-004'],
    description: "inbound messages go to the client's inbound webhook even when the number has webhookInboundOverride set",
    behaviour: replaceMember('webhooks', 'inboundTarget', () => (client) => client.inboundWebhookUrl),
  },
  'webhooks.client-inbound-ignored': {
    breaks: ['WH-005'],
    description: "inbound messages for a number without webhookInboundOverride are never sent to the client's inbound webhook",
    behaviour: replaceMember('webhooks', 'inboundTarget', () => (_client, number) => number.webhookInboundOverride),
  },
  'webhooks.unsigned': {
    breaks: ['WH-101'],
    description: 'callbacks are sent without the webhook-signature header',
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => (...args) => {
      const { 'webhook-signature': _dropped, ...headers } = signedHeaders(...args);
      return headers;
    }),
  },
  'webhooks.signature-unpadded': {
    breaks: ['WH-101'],
    description: "every callback's v1 signature is written in base64 without its '=' pad (43 characters), which a Standard Webhooks verifier comparing the text refuses",
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => (...args) => {
      const headers = signedHeaders(...args);
      return { ...headers, 'webhook-signature': headers['webhook-signature']!.replace(/=+(?= |$)/g, '') };
    }),
  },
  'webhooks.failed-event-labelled-text': {
    breaks: ['WH-003'],
    description: "the event of a message that failed is POSTed labelled Content-Type: text/plain (its body still JSON); delivered messages' events are labelled application/json",
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => (secret, webhookId, payload, nowMs) => {
      const headers = signedHeaders(secret, webhookId, payload, nowMs);
      return eventData(payload).status === 'FAILED' ? { ...headers, 'content-type': 'text/plain' } : headers;
    }),
  },
  'webhooks.batch-signed-as-first': {
    breaks: ['WH-101'],
    description: "the events of one send are signed once: every event after the first (same externalReference, another webhook-id) carries the first event's signature, so only a send to one recipient verifies",
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => {
      const firstOfSend = new Map<string, { webhookId: string; signature: string }>();
      return (secret, webhookId, payload, nowMs) => {
        const headers = signedHeaders(secret, webhookId, payload, nowMs);
        const reference = /"externalReference":"([^"]*)"/.exec(payload)?.[1];
        if (reference === undefined) return headers;
        const first = firstOfSend.get(reference);
        if (first === undefined || first.webhookId === webhookId) firstOfSend.set(reference, { webhookId, signature: headers['webhook-signature']! });
        else headers['webhook-signature'] = first.signature;
        return headers;
      };
    }),
  },
  'webhooks.id-from-idempotency-key': {
    breaks: ['WH-109'],
    description: "a delivery event's webhook-id is derived from its send's Idempotency-Key and its recipient, not from the event: two clients' sends under one key to one recipient give their events the same webhook-id",
    route: 'POST /api/core/messages/send',
    // The key is noted before the send is handled (its events may be signed before it is answered), by the externalReference its events carry.
    preHandler(request, { stores }) {
      const key = request.headers['idempotency-key'];
      const reference = (request.body as { externalReference?: unknown } | null)?.externalReference;
      if (typeof key === 'string' && typeof reference === 'string') keysOf(stores).set(reference, key);
    },
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders, { stores }) => (secret, webhookId, payload, nowMs) => {
      const data = eventData(payload);
      const key = keysOf(stores).get(String(data.externalReference));
      return signedHeaders(secret, key === undefined ? webhookId : `msg_${createHash('sha256').update(`${key}\n${String(data.to)}`).digest('hex').slice(0, 24)}`, payload, nowMs);
    }),
  },
  'webhooks.new-id-from-third-attempt': {
    breaks: ['WH-103'],
    description: "a callback's third and later attempts carry a new webhook-id (its first id with '-r' appended, signed as such): its first retry keeps the id",
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => {
      const attemptsOf = new Map<string, number>();
      return (secret, webhookId, payload, nowMs) => {
        const attempt = (attemptsOf.get(webhookId) ?? 0) + 1;
        attemptsOf.set(webhookId, attempt);
        return signedHeaders(secret, attempt >= 3 ? `${webhookId}-r` : webhookId, payload, nowMs);
      };
    }),
  },
  'webhooks.delivery-not-labelled-json': {
    breaks: ['WH-201'],
    description: 'delivery events are sent with no Content-Type (the body is still JSON)',
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => (secret, webhookId, payload, nowMs) => {
      const { 'content-type': type, ...headers } = signedHeaders(secret, webhookId, payload, nowMs);
      return payload.includes('"message.delivery"') ? headers : { ...headers, 'content-type': type! };
    }),
  },
  'webhooks.inbound-first-recipient-only': {
    breaks: ['WH-004'],
    description: "a send's recipients are looked up among the service's numbers from the first alone: a send naming one of them after another recipient brings no inbound traffic about (a send to it alone does)",
    behaviour: replaceMember('send', 'loopbackArrivals', (loopbackArrivals) => (policy, stores, from, request, accepted, nowMs, shape) => loopbackArrivals(policy, stores, from, request, accepted.slice(0, 1), nowMs, shape)),
  },
  'webhooks.inbound-from-sms-only': {
    breaks: ['WH-004'],
    description: 'only an SMS to one of the service\'s numbers brings inbound traffic about: an MMS to the same number is delivered to the carrier and never reaches the number\'s inbound webhook',
    behaviour: replaceMember('send', 'loopbackArrivals', (loopbackArrivals) => (policy, stores, from, request, accepted, nowMs, shape) => (request.messageType === 'MMS' ? [] : loopbackArrivals(policy, stores, from, request, accepted, nowMs, shape))),
  },
  'webhooks.cross-client-inbound-override-ignored': {
    breaks: ['WH-004'],
    description: "inbound traffic a send of one client brings to a number another client holds ignores that number's webhookInboundOverride and goes to its client's inbound webhook, if any (traffic between a client's own numbers is right)",
    behaviour: replaceMember('send', 'loopbackArrivals', (loopbackArrivals) => (policy, stores, from, request, accepted, nowMs, shape) => [
      ...loopbackArrivals(policy, stores, from, request, accepted.filter(({ to }) => stores.numbers.byPhoneNumber(to)?.apiClientId === from.apiClientId), nowMs, shape),
      ...loopbackArrivals({ inboundTarget: (client) => client.inboundWebhookUrl }, stores, from, request, accepted.filter(({ to }) => { const n = stores.numbers.byPhoneNumber(to); return n !== undefined && n.apiClientId !== from.apiClientId; }), nowMs, shape),
    ]),
  },
  'webhooks.cross-client-inbound-signed-by-sender': {
    breaks: ['WH-101'],
    description: "inbound traffic a send of one client brings to another client's number is signed with the sending client's secret, which the receiving client does not have (between a client's own numbers the secret is the same, and right)",
    behaviour: replaceMember('send', 'loopbackArrivals', (loopbackArrivals) => (policy, stores, from, request, accepted, nowMs, shape) =>
      loopbackArrivals(policy, stores, from, request, accepted, nowMs, shape).map((a) =>
        a.webhook && a.message.apiClientId !== from.apiClientId ? { ...a, webhook: { ...a.webhook, webhookSecret: stores.clients.byApiClientId(from.apiClientId)!.webhookSecret } } : a,
      ),
    ),
  },
  'webhooks.inbound-to-sender-client': {
    breaks: ['WH-005'],
    description: "inbound traffic a send brings about is filed under the client that sent it: a number without an inbound override, of another client, has it delivered to the sender's inbound webhook (a send between a client's own numbers is right)",
    behaviour: replaceMember('send', 'loopbackArrivals', () => (policy, stores, from, request, accepted, nowMs, shape) =>
      accepted
        .filter(({ to }) => outcomeFor(to).status === 'DELIVERED' && stores.numbers.isServiceNumber(to))
        .map(({ to }) => arrival(policy, stores.clients.byApiClientId(from.apiClientId)!, stores.numbers.byPhoneNumber(to)!, from.phoneNumber, request.text ?? '', nowMs, shape)),
    ),
  },
  'webhooks.gone-stops-every-callback': {
    breaks: ['WH-001'],
    description: 'a 410 Gone from any receiver stops every later delivery callback: the sender takes it for its own webhooks disabled, not the one endpoint (right until a receiver first answers 410)',
    behaviour: ({ webhooks }) => {
      let stopped = false;
      return {
        webhooks: {
          ...webhooks,
          gone: (attempt) => (webhooks.gone(attempt) ? (stopped = true) : false),
          deliveryTarget: (client, number, to) => (stopped ? null : webhooks.deliveryTarget(client, number, to)),
        },
      };
    },
  },
  'webhooks.retry-unlabelled': {
    breaks: ['WH-103'],
    description: "a retried callback is sent without Content-Type (a retry path that builds its own request): only the first attempt of each webhook-id is labelled application/json",
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => (secret, webhookId, payload, nowMs) => {
      const headers = signedHeaders(secret, webhookId, payload, nowMs);
      if (!attemptedIds.has(webhookId)) {
        attemptedIds.add(webhookId);
        return headers;
      }
      const { 'content-type': _dropped, ...unlabelled } = headers;
      return unlabelled;
    }),
  },
  'webhooks.id-per-send': {
    breaks: ['WH-109'],
    description: "every event of a send carries one webhook-id, made from the send's externalReference: right for a send to one recipient, while a send to several gives each recipient's outcome the same id",
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => (secret, webhookId, payload, nowMs) => {
      const reference = /"externalReference":"((?:[^"\\]|\\.)*)"/.exec(payload)?.[1];
      const id = reference === undefined ? webhookId : `msg_${createHash('sha256').update(reference).digest('hex').slice(0, 24)}`;
      return signedHeaders(secret, id, payload, nowMs);
    }),
  },
  'webhooks.inbound-labelled-text': {
    breaks: ['WH-203'],
    description: 'inbound events are sent labelled Content-Type: text/plain (the body is still JSON)',
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => (secret, webhookId, payload, nowMs) => {
      const headers = signedHeaders(secret, webhookId, payload, nowMs);
      return payload.includes('"message.inbound"') ? { ...headers, 'content-type': 'text/plain' } : headers;
    }),
  },
  'webhooks.inbound-unsigned': {
    breaks: ['WH-101'],
    description: 'inbound callbacks are sent without the webhook-signature header (delivery events are signed)',
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => (secret, webhookId, payload, nowMs) => {
      const headers = signedHeaders(secret, webhookId, payload, nowMs);
      if (!payload.includes('"message.inbound"')) return headers;
      const { 'webhook-signature': _dropped, ...unsigned } = headers;
      return unsigned;
    }),
  },
  'webhooks.inbound-neighbour-override': {
    breaks: ['WH-005'],
    description: "inbound traffic to a number without an inbound override goes to the inbound override of another of the client's numbers (the first that has one), not to the client's inbound webhook",
    behaviour: (behaviour, { stores }) => ({
      webhooks: {
        ...behaviour.webhooks,
        inboundTarget: (client, number) => {
          if (number.webhookInboundOverride) return behaviour.webhooks.inboundTarget(client, number);
          const neighbour = stores.numbers.listForClient(client.apiClientId).find((n) => n.numberId !== number.numberId && n.webhookInboundOverride);
          return neighbour?.webhookInboundOverride ?? behaviour.webhooks.inboundTarget(client, number);
        },
      },
    }),
  },
  'webhooks.client-error-not-retried': {
    breaks: ['WH-103'],
    description: 'a callback answered with a 4xx status (other than 410) is taken as final and never retried (5xx answers still are)',
    behaviour: replaceMember('webhooks', 'retried', (retried) => (attempt) => !(attempt.status !== undefined && attempt.status >= 400 && attempt.status < 500) && retried(attempt)),
  },
  'webhooks.signed-over-escaped-json': {
    breaks: ['WH-101'],
    description: 'the signature is computed over the body with every character outside ASCII written as a \\u escape, while the body sent carries them as UTF-8 (an ASCII body verifies)',
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => (secret, webhookId, body, nowMs) => {
      const escaped = body.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      return signedHeaders(secret, webhookId, escaped, nowMs);
    }),
  },
  'webhooks.failed-signed-reserialized': {
    breaks: ['WH-101'],
    description: 'the event of a FAILED outcome is signed over its body written again with spaces, while the body sent is compact (a DELIVERED event verifies)',
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => (secret, webhookId, body, nowMs) => {
      const failed = (JSON.parse(body) as { data?: { status?: unknown } }).data?.status === 'FAILED';
      return signedHeaders(secret, webhookId, failed ? JSON.stringify(JSON.parse(body), null, 1) : body, nowMs);
    }),
  },
  'webhooks.retry-signed-with-first-timestamp': {
    breaks: ['WH-101'],
    description: "a retried callback carries a new webhook-timestamp but the first attempt's signature (a callback sent once verifies)",
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => {
      const first = new Map<string, string>();
      return (secret, webhookId, body, nowMs) => {
        const headers = signedHeaders(secret, webhookId, body, nowMs);
        const earlier = first.get(webhookId);
        if (earlier === undefined) first.set(webhookId, headers['webhook-signature']!);
        // A retry in the same second would carry the same timestamp: a second later, the signature no longer matches.
        return earlier === undefined ? headers : { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1), 'webhook-signature': earlier };
      };
    }),
  },
  'webhooks.retry-reported-delivered': {
    breaks: ['WH-008'],
    description: "a retried callback is rebuilt from defaults: a failed message's event, sent again after the receiver failed it, reports DELIVERED (its first attempt, and any callback taken at once, is right)",
    behaviour: replaceMember('webhooks', 'attemptPayload', (attemptPayload) => (payload, attemptsBefore) => {
      const sent = attemptPayload(payload, attemptsBefore);
      return attemptsBefore === 0 ? sent : sent.replace(/"status":"FAILED"/g, '"status":"DELIVERED"');
    }),
  },
  'webhooks.retry-reported-queued': {
    breaks: ['WH-008'],
    description: "a retried callback is rebuilt from the message as stored, whose status is written only once an event is taken: the retry of an outcome the receiver failed reports QUEUED, and the final status is never taken (its first attempt is right)",
    behaviour: replaceMember('webhooks', 'attemptPayload', (attemptPayload) => (payload, attemptsBefore) => {
      const sent = attemptPayload(payload, attemptsBefore);
      return attemptsBefore === 0 ? sent : sent.replace(/"status":"(DELIVERED|FAILED)"/g, '"status":"QUEUED"');
    }),
  },
  'webhooks.mms-failure-reported-delivered': {
    breaks: ['WH-008'],
    description: 'the outcome of an MMS that fails is reported DELIVERED (an SMS that fails is reported FAILED)',
    ...MMS_SENDS_NOTED,
    behaviour: replaceMember('webhooks', 'deliveryEvent', (deliveryEvent, { stores }) => (data, nowMs, shape) =>
      deliveryEvent(data.status === 'FAILED' && mmsReferencesOf(stores).has(data.externalReference) ? { ...data, status: 'DELIVERED', errorCode: undefined } : data, nowMs, shape),
    ),
  },
  'webhooks.mms-events-mis-signed': {
    breaks: ['WH-101'],
    description: "the delivery events of MMS messages are signed over the body with a line feed after it, which is not what they carry: an SMS's events verify, an MMS's never do",
    ...MMS_SENDS_NOTED,
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders, { stores }) => (secret, webhookId, payload, nowMs) => {
      const reference = /"externalReference":"((?:[^"\\]|\\.)*)"/.exec(payload)?.[1];
      const mms = reference !== undefined && mmsReferencesOf(stores).has(JSON.parse(`"${reference}"`) as string);
      return signedHeaders(secret, webhookId, mms ? `${payload}\n` : payload, nowMs);
    }),
  },
  'webhooks.one-callback-per-recipient': {
    breaks: ['WH-008'],
    description: 'a send naming a recipient twice is answered with a messageId for each place, but one message is queued and reported per phone number (the repeat is reported nowhere)',
    route: 'POST /api/core/messages/send',
    answer({ status, body }) {
      const errors = body.errors as Array<{ to?: unknown; code?: unknown }> | undefined;
      const results = body.results as Array<Record<string, unknown>> | undefined;
      if (status >= 300 || !Array.isArray(errors) || !Array.isArray(results)) return;
      for (const repeat of errors.filter((e) => e.code === 'DUPLICATE_RECIPIENT')) {
        const like = results.find((r) => r.to === repeat.to);
        if (like) results.push({ ...like, messageId: `msg_${Math.random().toString(36).slice(2, 14)}` });
      }
      body.errors = errors.filter((e) => e.code !== 'DUPLICATE_RECIPIENT');
    },
  },
  'webhooks.signed-with-first-client-secret': {
    breaks: ['WH-101'],
    description: "every callback is signed with the first client's secret, whichever client's event it is (the first client's callbacks verify)",
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders, { stores, seeded }) => (secret, webhookId, body, nowMs) =>
      signedHeaders(stores.clients.byApiClientId(seeded[0]!.apiClientId)?.webhookSecret ?? secret, webhookId, body, nowMs),
    ),
  },
  'webhooks.retries-signed-with-first-client-secret': {
    breaks: ['WH-101'],
    description: "every attempt after a callback's first is signed with the first client's secret, whichever client's event it is: first attempts, and the first client's retries, verify",
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders, { stores, seeded }) => {
      const attempted = new Set<string>();
      return (secret, webhookId, body, nowMs) => {
        const retry = attempted.has(webhookId);
        attempted.add(webhookId);
        return signedHeaders(retry ? (stores.clients.byApiClientId(seeded[0]!.apiClientId)?.webhookSecret ?? secret) : secret, webhookId, body, nowMs);
      };
    }),
  },
  'webhooks.retries-at-fixed-interval': {
    breaks: ['WH-108'],
    description: 'a failed callback is retried at a fixed interval (twice the retry base), never waiting longer however often it fails (a Retry-After is still honoured)',
    behaviour: replaceMember('webhooks', 'retryDelayMs', () => (_attempt, retryAfterSeconds, _random, baseMs = 500) => Math.max(2 * baseMs, (retryAfterSeconds ?? 0) * 1000)),
  },
  'webhooks.backoff-flat-after-reset': {
    breaks: ['WH-108'],
    description: 'a callback whose connection is reset without an answer is retried at a fixed interval (twice the retry base), never waiting longer however often that happens; one answered with an error status backs off as before',
    behaviour: (behaviour) => {
      // The dispatcher asks which Retry-After to honour of the failed attempt, then the delay:
      // the first call says what the failure was.
      let reset = false;
      return {
        webhooks: {
          ...behaviour.webhooks,
          honouredRetryAfter: (attempt) => ((reset = attempt.status === undefined), behaviour.webhooks.honouredRetryAfter(attempt)),
          retryDelayMs: (attempt, retryAfterSeconds, random, baseMs = 500) => (reset ? 2 * baseMs : behaviour.webhooks.retryDelayMs(attempt, retryAfterSeconds, random, baseMs)),
        },
      };
    },
  },
  'webhooks.backoff-flat-after-retry-after': {
    breaks: ['WH-108'],
    description: 'once a callback was answered with a Retry-After, which is honoured, its later failures are retried at a fixed interval (twice the retry base), its backoff lost',
    behaviour: (behaviour) => {
      const askedToWait = new Set<string>();
      let current = '';
      return {
        webhooks: {
          ...behaviour.webhooks,
          honouredRetryAfter: (attempt) => {
            current = attempt.webhookId;
            const seconds = behaviour.webhooks.honouredRetryAfter(attempt);
            if (seconds !== undefined) askedToWait.add(attempt.webhookId);
            return seconds;
          },
          retryDelayMs: (attempt, retryAfterSeconds, random, baseMs = 500) =>
            retryAfterSeconds === undefined && askedToWait.has(current) ? 2 * baseMs : behaviour.webhooks.retryDelayMs(attempt, retryAfterSeconds, random, baseMs),
        },
      };
    },
  },
  'webhooks.message-ids-crossed': {
    breaks: ['WH-003'],
    description: "the send's answer gives the first two recipients each other's messageIds, so each callback names the messageId the answer gave the other recipient (every messageId is still reported once)",
    route: 'POST /api/core/messages/send',
    answer({ status, body }) {
      const results = body.results as Array<{ messageId?: unknown }> | undefined;
      if (status >= 300 || !Array.isArray(results) || results.length < 2) return;
      const [a, b] = results;
      if (typeof a?.messageId === 'string' && typeof b?.messageId === 'string') [a.messageId, b.messageId] = [b.messageId, a.messageId];
    },
  },
  'webhooks.repeated-recipient-answer-short': {
    breaks: ['WH-003'],
    description: "a send naming a recipient twice is answered without the result item of its last distinct recipient (an off-by-one over the places), whose message is queued and reported all the same: its callbacks name a message no answer gave (a send without a repeat is answered whole)",
    route: 'POST /api/core/messages/send',
    answer({ request, status, body }) {
      const to = (request.body as { to?: unknown } | undefined)?.to;
      const results = body.results as unknown[] | undefined;
      if (status >= 300 || !Array.isArray(to) || new Set(to).size === to.length || !Array.isArray(results) || results.length < 2) return;
      body.results = results.slice(0, -1);
    },
  },
  'webhooks.inbound-copied-to-client': {
    breaks: ['WH-005'],
    description: "inbound traffic to a number with a webhookInboundOverride goes to the override and, as a copy, to its client's inbound webhook too (a number without one reaches the client's webhook alone)",
    behaviour: replaceMember('send', 'loopbackArrivals', (loopbackArrivals, { stores }) => (policy, numbers, from, request, accepted, nowMs, shape) => {
      const arrivals = loopbackArrivals(policy, numbers, from, request, accepted, nowMs, shape);
      const copies = arrivals.flatMap(({ message }) => {
        const number = stores.numbers.byId(message.numberId);
        const client = stores.clients.byApiClientId(message.apiClientId);
        if (!number?.webhookInboundOverride || !client?.inboundWebhookUrl) return [];
        return [arrival({ inboundTarget: () => client.inboundWebhookUrl }, client, number, from.phoneNumber, request.text ?? '', nowMs, shape)];
      });
      return [...arrivals, ...copies];
    }),
  },
  'webhooks.override-path-lowercased': {
    breaks: ['WH-001'],
    description: "a number's webhookDeliveryOverride is called with its path in lower case (the URL as stored and listed is the one set); an override whose path is lower case already is reached",
    behaviour: replaceMember('webhooks', 'deliveryTarget', (deliveryTarget) => (client, number, to) => {
      const target = deliveryTarget(client, number, to);
      if (target === null || target !== number.webhookDeliveryOverride) return target;
      const url = new URL(target);
      url.pathname = url.pathname.toLowerCase();
      return url.toString();
    }),
  },
  'webhooks.delivery-falls-back-to-inbound-override': {
    breaks: ['WH-002'],
    description: "a number without a webhookDeliveryOverride but with a webhookInboundOverride has its outcomes sent to that inbound override (the number's override of any kind) instead of the client's delivery webhook",
    behaviour: replaceMember('webhooks', 'deliveryTarget', (deliveryTarget) => (client, number, to) => number.webhookDeliveryOverride ?? number.webhookInboundOverride ?? deliveryTarget(client, number, to)),
  },
  'webhooks.answer-not-retried': {
    breaks: ['WH-103'],
    description: 'a callback the receiver answered with a non-2xx status is given up after that one attempt',
    behaviour: replaceMember('webhooks', 'retried', () => (attempt) => attempt.status === undefined),
  },
  'webhooks.override-by-campaign': {
    breaks: ['WH-002'],
    description: "a number without a delivery override takes the override of another of the client's numbers with the same campaignregId (the target is looked up by registration): its outcomes go there instead of to the client's delivery webhook",
    behaviour: replaceMember('webhooks', 'deliveryTarget', (deliveryTarget, { stores }) => (client, number, to) => {
      const shared = number.webhookDeliveryOverride === null && number.campaignregId !== null
        ? stores.numbers.listForClient(client.apiClientId).find((n) => n.numberId !== number.numberId && n.campaignregId === number.campaignregId && n.webhookDeliveryOverride !== null)
        : undefined;
      return shared?.webhookDeliveryOverride ?? deliveryTarget(client, number, to);
    }),
  },
  'webhooks.retry-to-client-webhook': {
    breaks: ['WH-001'],
    description: "a delivery event's retries go to the client's delivery webhook, whatever target its first attempt had: an outcome reported to a number's override, and not taken there at once, reaches the client's webhook instead",
    behaviour: replaceMember('webhooks', 'attemptTarget', (attemptTarget, { stores }) => {
      const clientHook = stores.db.prepare<[string], string | null>('SELECT c.delivery_webhook_url FROM webhook_outbox o JOIN clients c USING (api_client_id) WHERE o.webhook_id = ?').pluck();
      return (webhook, attemptsBefore) => (attemptsBefore > 0 && webhook.kind === 'message.delivery' ? clientHook.get(webhook.webhookId) : null) ?? attemptTarget(webhook, attemptsBefore);
    }),
  },
  'webhooks.third-attempt-to-client-webhook': {
    breaks: ['WH-001'],
    description: "a delivery event's third and later attempts go to the client's delivery webhook, whatever target the first two had: an outcome its override failed twice reaches the client's webhook instead",
    behaviour: replaceMember('webhooks', 'attemptTarget', (attemptTarget, { stores }) => {
      const clientHook = stores.db.prepare<[string], string | null>('SELECT c.delivery_webhook_url FROM webhook_outbox o JOIN clients c USING (api_client_id) WHERE o.webhook_id = ?').pluck();
      return (webhook, attemptsBefore) => (attemptsBefore >= 2 && webhook.kind === 'message.delivery' ? clientHook.get(webhook.webhookId) : null) ?? attemptTarget(webhook, attemptsBefore);
    }),
  },
  'webhooks.inbound-same-text-suppressed': {
    breaks: ['WH-004'],
    description: "a loopback message with the same sender, number and text as one in the last 120 s is taken for a carrier's duplicate and raises no inbound event (its delivery event still comes)",
    behaviour: replaceMember('send', 'loopbackArrivals', (loopbackArrivals) => {
      const seen = new Map<string, number>();
      return (policy, stores, from, request, accepted, nowMs, shape) => {
        const fresh = accepted.filter(({ to }) => {
          const key = JSON.stringify([from.numberId, to, request.text ?? null]);
          const last = seen.get(key);
          seen.set(key, nowMs);
          return last === undefined || nowMs - last > 120_000;
        });
        return loopbackArrivals(policy, stores, from, request, fresh, nowMs, shape);
      };
    }),
  },
  'webhooks.gone-moves-to-client-webhook': {
    breaks: ['WH-001'],
    description: "a delivery event whose target answered 410 Gone is not given up but sent again to the client's delivery webhook: an outcome its override refused for good reaches the client's webhook",
    behaviour: (behaviour, { stores }) => {
      const goneIds = new Set<string>();
      const clientHook = stores.db.prepare<[string], string | null>('SELECT c.delivery_webhook_url FROM webhook_outbox o JOIN clients c USING (api_client_id) WHERE o.webhook_id = ?').pluck();
      return {
        webhooks: {
          ...behaviour.webhooks,
          gone: (attempt) => {
            if (attempt.kind === 'message.delivery' && attempt.status === 410 && !goneIds.has(attempt.webhookId)) {
              goneIds.add(attempt.webhookId);
              return false;
            }
            return behaviour.webhooks.gone(attempt);
          },
          retried: (attempt) => goneIds.has(attempt.webhookId) || behaviour.webhooks.retried(attempt),
          attemptTarget: (webhook, attemptsBefore) => (goneIds.has(webhook.webhookId) ? clientHook.get(webhook.webhookId) : null) ?? behaviour.webhooks.attemptTarget(webhook, attemptsBefore),
        },
      };
    },
  },
  'webhooks.inbound-gone-retried': {
    breaks: ['WH-110'],
    description: 'an inbound callback answered 410 Gone is retried like any failure; delivery callbacks answered 410 are given up as they should be',
    behaviour: replaceMember('webhooks', 'gone', (gone) => (attempt) => attempt.kind !== 'message.inbound' && gone(attempt)),
  },
  'webhooks.inbound-retry-after-ignored': {
    breaks: ['WH-110'],
    description: "an inbound callback's Retry-After is not read: its retry follows the server's own backoff; delivery callbacks honour it",
    behaviour: replaceMember('webhooks', 'honouredRetryAfter', (honouredRetryAfter) => (attempt) => (attempt.kind === 'message.inbound' ? undefined : honouredRetryAfter(attempt))),
  },
  'webhooks.inbound-not-retried': {
    breaks: ['WH-110'],
    description: 'an inbound callback the receiver did not take is given up after that one attempt (the retry queue holds delivery outcomes alone; they are still retried)',
    behaviour: replaceMember('webhooks', 'retried', (retried) => (attempt) => attempt.kind !== 'message.inbound' && retried(attempt)),
  },
  'webhooks.unreachable-not-retried': {
    breaks: ['WH-104'],
    description: 'a callback whose receiver could not be reached (no connection, no answer) is given up after that one attempt',
    behaviour: replaceMember('webhooks', 'retried', () => (attempt) => attempt.status !== undefined),
  },
  'webhooks.retried-after-gone': {
    breaks: ['WH-105'],
    description: 'a callback answered 410 Gone is tried again like any other failed one (a 2xx still settles it)',
    behaviour: replaceMember('webhooks', 'gone', () => () => false),
  },
  'webhooks.only-200-204-delivered': {
    breaks: ['WH-107'],
    description: 'only 200 and 204 count as delivered: a callback answered 201 or 202 (a receiver that queues what it takes) is retried as a failure, until the attempts run out',
    behaviour: replaceMember('webhooks', 'delivered', () => (attempt) => attempt.status === 200 || attempt.status === 204),
  },
  'webhooks.id-from-recipient-and-time': {
    breaks: ['WH-109'],
    description: "a callback's webhook-id is derived from the phone number its event names as `to` and the event's timestamp, so the delivery outcome and the inbound event of one send to a number of the client's own (same recipient, same moment) carry one webhook-id",
    behaviour: replaceMember('webhooks', 'signedHeaders', (signedHeaders) => (secret, webhookId, payload, nowMs) => {
      const event = JSON.parse(payload) as { timestamp?: unknown; data?: { to?: unknown }; to?: unknown };
      const to = event.data?.to ?? event.to;
      const derived = typeof to === 'string' ? `evt_${createHash('sha256').update(`${to}|${String(event.timestamp ?? '')}`).digest('hex').slice(0, 24)}` : webhookId;
      return signedHeaders(secret, derived, payload, nowMs);
    }),
  },
  'webhooks.update-drops-retries': {
    breaks: ['WH-103'],
    description: "an update of a number (any field, even to the values it has) drops the pending retries of the callbacks its events made: each later attempt goes nowhere (a closed port), so a callback that failed before the update never arrives again",
    route: 'PATCH /api/core/numbers/:numberId',
    answer({ request, status }) {
      if (status < 300) numbersUpdatedAt.set((request.params as { numberId: string }).numberId, Date.now());
    },
    behaviour: droppingRetries((numberId, firstAttemptAt) => (numbersUpdatedAt.get(numberId ?? '') ?? 0) > firstAttemptAt),
  },
  'webhooks.neighbour-update-drops-retries': {
    breaks: ['WH-103'],
    description: "an update of a number (any field, even to the values it has) drops the pending retries of the callbacks of the client's other numbers, keeping only the updated number's: each later attempt goes nowhere (a closed port)",
    route: 'PATCH /api/core/numbers/:numberId',
    answer({ request, status }) {
      if (status < 300) numbersUpdatedAt.set((request.params as { numberId: string }).numberId, Date.now());
    },
    behaviour: droppingRetries((numberId, firstAttemptAt) => [...numbersUpdatedAt].some(([updated, at]) => updated !== numberId && at > firstAttemptAt)),
  },
  'webhooks.sms-off-drops-retries': {
    breaks: ['WH-103'],
    description: "an update turning a number's SMS off drops the pending retries of every callback (its queued events are cancelled with it): each later attempt goes nowhere (a closed port); other updates keep them",
    ...droppingRetriesOnce('PATCH /api/core/numbers/:numberId', ({ request, status }) => status < 300 && (request.body as { smsEnabled?: unknown } | null)?.smsEnabled === false),
  },
  'webhooks.unsafe-retry-drops-retries': {
    breaks: ['WH-103'],
    description: "refusing an unsafe retry (a key reused for another payload, 409) drops the pending retries of every callback: each later attempt goes nowhere (a closed port)",
    ...droppingRetriesOnce('POST /api/core/messages/send', ({ status }) => status === 409),
  },
  'webhooks.safe-retry-drops-retries': {
    breaks: ['WH-103'],
    description: 'a safe retry (the same key and payload, replayed) drops the pending retries of every callback, as if the replay queued them afresh: each later attempt goes nowhere (a closed port)',
    ...droppingRetriesOnce('POST /api/core/messages/send', ({ reply }) => reply.getHeader('idempotent-replayed') === 'true'),
  },
  'webhooks.retry-first-event-of-send-only': {
    breaks: ['WH-103'],
    description: "only the first message of a send has its callback retried (one retry slot per send): the callbacks of its other messages go nowhere (a closed port) after their first failed attempt",
    behaviour: (behaviour) => {
      /** The first messageId seen for each send, told apart by its externalReference and sending number. */
      const firstOfSend = new Map<string, string>();
      let laterOfSend = false;
      return {
        webhooks: {
          ...behaviour.webhooks,
          attemptPayload: (payload, attemptsBefore) => {
            const data = eventData(payload);
            const send = `${String(data.sendFrom)} ${String(data.externalReference)}`;
            if (typeof data.messageId === 'string' && !firstOfSend.has(send)) firstOfSend.set(send, data.messageId);
            laterOfSend = typeof data.messageId === 'string' && firstOfSend.get(send) !== data.messageId;
            return behaviour.webhooks.attemptPayload(payload, attemptsBefore);
          },
          attemptTarget: (webhook, attemptsBefore) => (attemptsBefore > 0 && laterOfSend ? 'http://127.0.0.1:1/dropped' : behaviour.webhooks.attemptTarget(webhook, attemptsBefore)),
        },
      };
    },
  },
  'webhooks.gone-drops-target-retries': {
    breaks: ['WH-103'],
    description: "a callback answered 410 Gone drops the pending retries of every other callback to the same target URL: each later attempt of theirs goes nowhere (a closed port)",
    behaviour: (behaviour) => {
      /** When each target URL last answered 410. */
      const goneAt = new Map<string, number>();
      const firstAttemptAt = new Map<string, number>();
      const targetOf = new Map<string, string>();
      return {
        webhooks: {
          ...behaviour.webhooks,
          gone: (attempt) => {
            const gone = behaviour.webhooks.gone(attempt);
            const target = targetOf.get(attempt.webhookId);
            if (gone && target !== undefined) goneAt.set(target, Date.now());
            return gone;
          },
          attemptTarget: (webhook, attemptsBefore) => {
            const target = behaviour.webhooks.attemptTarget(webhook, attemptsBefore);
            targetOf.set(webhook.webhookId, target);
            if (attemptsBefore === 0) firstAttemptAt.set(webhook.webhookId, Date.now());
            const first = firstAttemptAt.get(webhook.webhookId) ?? 0;
            return attemptsBefore > 0 && (goneAt.get(target) ?? 0) > first ? 'http://127.0.0.1:1/dropped' : target;
          },
        },
      };
    },
  },
  'webhooks.token-drops-retries': {
    breaks: ['WH-103'],
    description: 'issuing a token drops the pending retries of every callback (the outbox is tied to the session): each later attempt goes nowhere (a closed port)',
    ...droppingRetriesOnce('POST /api/auth/token', ({ status }) => status === 200),
  },
  'webhooks.failed-outcome-not-retried': {
    breaks: ['WH-103'],
    description: "the event of a message that failed is sent once: answered non-2xx, its later attempts go nowhere (a closed port), while a delivered message's event is retried",
    behaviour: (behaviour) => {
      let failedOutcome = false;
      return {
        webhooks: {
          ...behaviour.webhooks,
          // The dispatcher asks for an attempt's body, then its target: the body says the outcome.
          attemptPayload: (payload, attemptsBefore) => {
            failedOutcome = /"status":"FAILED"/.test(payload);
            return behaviour.webhooks.attemptPayload(payload, attemptsBefore);
          },
          attemptTarget: (webhook, attemptsBefore) => (attemptsBefore > 0 && failedOutcome ? 'http://127.0.0.1:1/dropped' : behaviour.webhooks.attemptTarget(webhook, attemptsBefore)),
        },
      };
    },
  },
  'webhooks.retry-after-renamed': {
    breaks: ['WH-103'],
    description: "a callback answered with Retry-After is queued afresh when that time is out: its retry carries a new webhook-id (its first with '-ra' appended, signed as such); a retry without Retry-After keeps the id",
    behaviour: (behaviour) => {
      const renamed = new Set<string>();
      return {
        webhooks: {
          ...behaviour.webhooks,
          honouredRetryAfter: (attempt) => {
            const seconds = behaviour.webhooks.honouredRetryAfter(attempt);
            if (seconds !== undefined) renamed.add(attempt.webhookId);
            return seconds;
          },
          signedHeaders: (secret, webhookId, payload, nowMs) => behaviour.webhooks.signedHeaders(secret, renamed.has(webhookId) ? `${webhookId}-ra` : webhookId, payload, nowMs),
        },
      };
    },
  },
  'webhooks.only-first-failing-recipient': {
    breaks: ['WH-008'],
    description: "of the sandbox's failing recipients (+1 NPA 555 0150..0199) only the first, 0150, is reported FAILED: a message to any other of them is reported DELIVERED",
    behaviour: replaceMember('webhooks', 'deliveryEvent', (deliveryEvent) => (data, nowMs, shape) =>
      deliveryEvent(data.status === 'FAILED' && !data.to.endsWith('5550150') ? { ...data, status: 'DELIVERED', errorCode: undefined } : data, nowMs, shape),
    ),
  },
  'webhooks.timeout-counted-delivered': {
    breaks: ['WH-104'],
    description: "an attempt whose receiver did not answer in time is counted as delivered and not tried again (a refused connection or a non-2xx answer is still retried)",
    behaviour: replaceMember('webhooks', 'delivered', (delivered) => (attempt) => delivered(attempt) || /TIMEOUT/i.test(attempt.error ?? '')),
  },
  'webhooks.override-query-dropped': {
    breaks: ['WH-001'],
    description: "callbacks go to the target URL without its query string: an override set as http://host/hook?route=a is called as http://host/hook (one without a query is called as set)",
    behaviour: replaceMember('webhooks', 'attemptTarget', (attemptTarget) => (webhook, attemptsBefore) => {
      const url = new URL(attemptTarget(webhook, attemptsBefore));
      url.search = '';
      return url.toString();
    }),
  },
  'webhooks.retry-after-due-gives-up': {
    breaks: ['WH-103'],
    description: "a Retry-After whose time has already come (0, or a date in the past) is read as \"do not retry\": the callback is never tried again, and its outcome is never reported (a Retry-After still ahead is honoured)",
    behaviour: replaceMember('webhooks', 'retried', (retried) => (attempt) => retried(attempt) && attempt.retryAfterSeconds !== 0),
  },
  'webhooks.retry-after-429-only': {
    breaks: ['WH-106'],
    description: "a receiver's Retry-After is read on a 429 only: a callback answered 503 with Retry-After is retried after the backoff, before the time it asked for",
    behaviour: replaceMember('webhooks', 'honouredRetryAfter', (honouredRetryAfter) => (attempt) => (attempt.status === 429 ? honouredRetryAfter(attempt) : undefined)),
  },
  'webhooks.retry-after-first-failure-only': {
    breaks: ['WH-106'],
    description: "a receiver's Retry-After is read on a callback's first failure only: one that asks for a wait on a later failure is retried after the backoff, before the time it asked for",
    behaviour: replaceMember('webhooks', 'retryDelayMs', (retryDelayMs) => (attempt, retryAfterSeconds, random, baseMs) => retryDelayMs(attempt, attempt === 1 ? retryAfterSeconds : undefined, random, baseMs)),
  },
  'webhooks.retry-after-ignored': {
    breaks: ['WH-106'],
    description: "the receiver's Retry-After is not read: the next attempt follows the server's own backoff, however long the receiver asked it to wait",
    behaviour: replaceMember('webhooks', 'retryDelayMs', (retryDelayMs) => (attempt, _retryAfterSeconds, random, baseMs) => retryDelayMs(attempt, undefined, random, baseMs)),
  },
  'webhooks.retry-after-date-ignored': {
    breaks: ['WH-106'],
    description: "a Retry-After given as an HTTP date is not read (only delta-seconds are): the next attempt follows the server's own backoff",
    behaviour: replaceMember('webhooks', 'parseRetryAfter', (parseRetryAfter) => (value, nowMs) => {
      const text = Array.isArray(value) ? value[0] : value;
      return text !== undefined && /^\s*\d+\s*$/.test(text) ? parseRetryAfter(value, nowMs) : undefined;
    }),
  },
  'webhooks.retry-after-leading-zero-ignored': {
    breaks: ['WH-106'],
    description: "a Retry-After in seconds written with a leading zero (01) is not read (the parser wants /^[1-9][0-9]*$/): the next attempt follows the server's own backoff",
    behaviour: replaceMember('webhooks', 'parseRetryAfter', (parseRetryAfter) => (value, nowMs) => {
      const text = Array.isArray(value) ? value[0] : value;
      return text !== undefined && /^\s*0\d+\s*$/.test(text) ? undefined : parseRetryAfter(value, nowMs);
    }),
  },
  'webhooks.only-200-delivers': {
    breaks: ['WH-107'],
    description: 'only 200 counts as delivered: a callback answered 204 (or any other 2xx) is tried again',
    behaviour: replaceMember('webhooks', 'delivered', () => (attempt) => attempt.status === 200),
  },
  'webhooks.redirect-status-is-success': {
    breaks: ['WH-103'],
    description: 'a callback answered with a 3xx status is taken as delivered and not tried again (success is read as "below 400")',
    behaviour: replaceMember('webhooks', 'retried', (retried) => (attempt) => !(attempt.status !== undefined && attempt.status >= 300 && attempt.status < 400) && retried(attempt)),
  },
} satisfies Record<string, FaultDefinition>;

/**
 * The delivery events of the first `count` messages of each group (groupOf) carry their final
 * outcome; every later message of the group is reported by an interim SENT event only.
 */
function finalForFirst(count: number, groupOf: (data: DeliveryEventData) => string) {
  return replaceMember('webhooks', 'deliveryEvent', (deliveryEvent) => {
    const seen = new Map<string, string[]>();
    return (data, nowMs, shape) => {
      const group = groupOf(data);
      const messages = seen.get(group) ?? [];
      if (!messages.includes(data.messageId)) seen.set(group, [...messages, data.messageId]);
      if (seen.get(group)!.indexOf(data.messageId) < count) return deliveryEvent(data, nowMs, shape);
      const { errorCode: _, ...rest } = data;
      return deliveryEvent({ ...rest, status: 'SENT' } as unknown as typeof data, nowMs, shape);
    };
  });
}
