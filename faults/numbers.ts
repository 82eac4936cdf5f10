import { CoreError } from '../reference/errors.ts';
import { callerOf } from '../reference/auth/bearer.ts';
import { fixtureSettings } from '../reference/fixtures/seed.ts';
import { numberJson } from '../reference/store/numbers.ts';
import { currentClientAfterAwait, replaceMember, type FaultDefinition } from './fault.ts';
import type { ReferenceContext } from '../reference/context.ts';

// Faults of the numbers (section 4.3): the list's answer rewritten or read for the wrong caller, or a listed number refused as sendFrom.

const LIST = 'GET /api/core/numbers';
const SEND = 'POST /api/core/messages/send';

type Listed = Record<string, unknown> & { campaignregId: string | null };

/** The writer of each server, taken from its first send (numbers.gone-clears-delivery-override). */
const writersOf = new WeakMap<object, ReferenceContext['writes']>();

export const NUMBERS_FAULTS = {
  'numbers.send-writes-back-seeded-inbound-target': {
    breaks: ['NUM-006'],
    description: "a send from one of the client's numbers writes the number back from a copy taken when it was seeded, so its webhookInboundOverride returns to the seeded value",
    route: SEND,
    async preHandler(request, { stores, writes, seeded }) {
      const numberId = (request.body as { sendFrom?: unknown } | null)?.sendFrom;
      const number = typeof numberId === 'string' ? stores.numbers.findOwned(callerOf(request).apiClientId, numberId) : undefined;
      const first = number && seeded.flatMap((client) => client.fixture.numbers).find((n) => n.phoneNumber === number.phoneNumber);
      if (!number || !first) return;
      const seededTarget = fixtureSettings(first).webhookInboundOverride;
      if (number.webhookInboundOverride !== seededTarget) await writes.run({ op: 'updateNumber', apiClientId: number.apiClientId, numberId: number.numberId, changes: { webhookInboundOverride: seededTarget } });
    },
  },
  'numbers.send-enables-recipient-sms': {
    breaks: ['NUM-006'],
    description: "a send to a number the service holds turns that recipient number's smsEnabled on (SMS arriving at a number is taken for its use); a recipient whose SMS is on already stays as it was",
    route: SEND,
    async preHandler(request, { stores, writes }) {
      const to = (request.body as { to?: unknown } | null)?.to;
      for (const phone of Array.isArray(to) ? to : []) {
        const number = typeof phone === 'string' ? stores.numbers.byPhoneNumber(phone) : undefined;
        if (number && number.smsEnabled === false) await writes.run({ op: 'updateNumber', apiClientId: number.apiClientId, numberId: number.numberId, changes: { smsEnabled: true } });
      }
    },
  },
  'numbers.gone-clears-delivery-override': {
    breaks: ['NUM-006'],
    description: "a callback answered 410 Gone at a number's webhookDeliveryOverride clears that override in the number's record: the list shows null (the callback is not tried again, as Standard Webhooks has it)",
    // The dispatcher's policy names each attempt's target before it goes and hears of the 410
    // after; the server's writer is taken from a send, which comes before any callback.
    route: SEND,
    onRequest(_request, { stores, writes }) {
      writersOf.set(stores, writes);
    },
    behaviour: (behaviour, { stores, seeded }) => {
      const targets = new Map<string, string>();
      return {
        webhooks: {
          ...behaviour.webhooks,
          attemptTarget: (webhook, attemptsBefore) => {
            const target = behaviour.webhooks.attemptTarget(webhook, attemptsBefore);
            targets.set(webhook.webhookId, target);
            return target;
          },
          gone: (attempt) => {
            const gone = behaviour.webhooks.gone(attempt);
            const target = targets.get(attempt.webhookId);
            const writes = writersOf.get(stores);
            if (gone && attempt.kind === 'message.delivery' && target !== undefined && writes !== undefined) {
              for (const number of seeded.flatMap((client) => stores.numbers.listForClient(client.apiClientId)).filter((n) => n.webhookDeliveryOverride === target)) {
                void writes.run({ op: 'updateNumber', apiClientId: number.apiClientId, numberId: number.numberId, changes: { webhookDeliveryOverride: null } });
              }
            }
            return gone;
          },
        },
      };
    },
  },
  'numbers.send-normalises-campaign': {
    breaks: ['NUM-006'],
    description: "a send from one of the client's numbers writes the number's campaignregId back trimmed and in upper case",
    route: SEND,
    async preHandler(request, { stores, writes }) {
      const numberId = (request.body as { sendFrom?: unknown } | null)?.sendFrom;
      const number = typeof numberId === 'string' ? stores.numbers.findOwned(callerOf(request).apiClientId, numberId) : undefined;
      const campaign = number?.campaignregId;
      if (!number || typeof campaign !== 'string' || campaign.trim().toUpperCase() === campaign) return;
      await writes.run({ op: 'updateNumber', apiClientId: number.apiClientId, numberId: number.numberId, changes: { campaignregId: campaign.trim().toUpperCase() } });
    },
  },
  'numbers.list-leaks-other-clients': {
    breaks: ['NUM-003'],
    description: "the numbers list holds every client's numbers (the client filter is dropped)",
    route: LIST,
    answer({ status, body }, { seeded, stores }) {
      if (status === 200) body.numbers = seeded.flatMap((client) => stores.numbers.listForClient(client.apiClientId)).map(numberJson);
    },
  },
  'numbers.list-latin1-body': {
    breaks: ['ERR-004'],
    description: 'the numbers list, once a value in it holds a character outside ASCII, is sent in ISO-8859-1 instead of UTF-8 (under the same application/json)',
    route: LIST,
    answer(answer) {
      const text = JSON.stringify(answer.body);
      if (/[^\x00-\x7f]/.test(text)) answer.bytes = Buffer.from(text, 'latin1');
    },
  },
  'numbers.campaign-digits-as-number': {
    breaks: ['NUM-005'],
    description: 'the numbers list shows a campaignregId of digits only ("123456") as a JSON number: the store keeps what looks like a number as one',
    route: LIST,
    answer({ status, body }) {
      if (status !== 200 || !Array.isArray(body.numbers)) return;
      for (const n of body.numbers as Listed[]) if (typeof n.campaignregId === 'string' && /^\d+$/.test(n.campaignregId)) (n as Record<string, unknown>).campaignregId = Number(n.campaignregId);
    },
  },
  'numbers.client-race': {
    breaks: ['NUM-003'],
    description: "the numbers list keeps the caller in a module-level variable across an await, so requests of two clients at once may each get the other's numbers",
    route: LIST,
    preHandler: currentClientAfterAwait(),
  },
  'numbers.id-missing-when-unregistered': {
    breaks: ['NUM-001'],
    description: 'the numbers list leaves numberId out of numbers without a campaignregId',
    route: LIST,
    answer({ status, body }) {
      if (status !== 200) return;
      body.numbers = body.numbers.map((number: Listed) => {
        if (number.campaignregId !== null) return number;
        const { numberId: _dropped, ...rest } = number;
        return rest;
      });
    },
  },
  'numbers.list-cut-at-two': {
    breaks: ['NUM-001'],
    description: 'the numbers list shows at most two numbers (a page size off by one): right for a client with two, the third number of a client with three is left out',
    route: LIST,
    answer({ status, body }) {
      if (status === 200) body.numbers = body.numbers.slice(0, 2);
    },
  },
  'numbers.sms-only-number-refused': {
    breaks: ['NUM-002'],
    description: "a send from one of the client's numbers with MMS disabled is refused 403, even for an SMS",
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const number = resolveSendFrom(request, client, numbers);
      if (!number.mmsEnabled) throw new CoreError('FORBIDDEN', 'This sendFrom number is not assigned to this API client.');
      return number;
    }),
  },
  'numbers.e164-number-ids': {
    breaks: ['NUM-004'],
    description: 'the numbers list gives numbers without a campaignregId their phone number as numberId',
    route: LIST,
    answer({ status, body }) {
      if (status !== 200) return;
      body.numbers = body.numbers.map((number: Listed) => (number.campaignregId === null ? { ...number, numberId: number.phoneNumber } : number));
    },
  },
  'numbers.campaign-field-misspelt': {
    breaks: ['NUM-005'],
    description: 'the numbers list carries the campaign registration under campaignRegId as well as campaignregId',
    route: LIST,
    answer({ status, body }) {
      if (status === 200) body.numbers = body.numbers.map((number: Listed) => ({ ...number, campaignRegId: number.campaignregId }));
    },
  },
} satisfies Record<string, FaultDefinition>;
