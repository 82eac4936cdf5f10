import type { FastifyRequest } from 'fastify';
import { callerOf } from '../reference/auth/bearer.ts';
import { CoreError } from '../reference/errors.ts';
import type { ReferenceContext } from '../reference/context.ts';
import type { NumberRecord, NumberSettings } from '../reference/store/numbers.ts';
import { carriesBasicToken, fileBasicTokens, objectBodyOf, rawBodyOf, routeOf, type FaultDefinition } from './fault.ts';

// Faults of the number update (section 4.5). Each changes or refuses the update before the
// route handles it (two before the schema sees it, one of them storing part of a body the schema
// then refuses); two rewrite the answer; one waives the check of a webhook override's target.

const UPDATE = 'PATCH /api/core/numbers/:numberId';
/** Each number's nullable attributes as updates set them, in turn, under update.null-takes-back-last-change. */
const valuesSet = new Map<string, string[]>();

type Update = Partial<NumberSettings>;
const changesOf = (request: FastifyRequest): Update => request.body as Update;

/**
 * How a fault spreads an update to neighbours: `changes` written to each other number of the
 * caller's for which `alongside(sibling, updated)` holds (`updated`: the number named, as it was).
 */
async function spreadToSiblings(request: FastifyRequest, { stores, writes }: ReferenceContext, changes: Update, alongside: (sibling: NumberRecord, updated: NumberRecord) => boolean): Promise<void> {
  const { numberId } = request.params as { numberId: string };
  const apiClientId = callerOf(request).apiClientId;
  const numbers = stores.numbers.listForClient(apiClientId);
  const updated = numbers.find((n) => n.numberId === numberId);
  if (!updated) return;
  for (const sibling of numbers) {
    if (sibling.numberId !== numberId && alongside(sibling, updated)) await writes.run({ op: 'updateNumber', apiClientId, numberId: sibling.numberId, changes });
  }
}

/** Whether `value` has the JSON type section 2 gives the settable attribute `field` (booleans; string or null). */
function typedAsSection2(field: string, value: unknown): boolean {
  if (field === 'smsEnabled' || field === 'mmsEnabled') return typeof value === 'boolean';
  return value === null || typeof value === 'string';
}
const SETTABLE = ['campaignregId', 'smsEnabled', 'mmsEnabled', 'webhookInboundOverride', 'webhookDeliveryOverride'];

// The enable flags an update named, kept from the request to its answer under update.flags-not-persisted.
const unstoredFlags = new WeakMap<FastifyRequest, Update>();

export const UPDATE_FAULTS = {
  'update.campaign-stored-upper-case': {
    breaks: ['UPD-001'],
    description: 'a campaignregId given to the update is stored upper-cased, so the list shows another value than the one set (values already in upper case are right)',
    route: UPDATE,
    preValidation(request) {
      const body = request.body as Record<string, unknown> | null;
      if (body && typeof body.campaignregId === 'string') body.campaignregId = body.campaignregId.toUpperCase();
    },
  },
  'update.trailing-slash-skips-owner': {
    breaks: ['UPD-002'],
    description: "a leftover handler takes the update's path with a slash after the numberId and applies the update to whichever client's number it names, without the owner check (the request is then answered as an unknown route)",
    // No route takes the path with the slash: fastify names its route undefined.
    route: /^PATCH /,
    async preHandler(request, { stores, writes }) {
      const match = /^\/api\/core\/numbers\/([^/?]+)\/(\?.*)?$/.exec(request.url);
      const number = match ? stores.numbers.byId(decodeURIComponent(match[1]!)) : undefined;
      const body = request.body as Record<string, unknown> | null;
      if (!number || !body || typeof body !== 'object') return;
      const changes = Object.fromEntries(Object.entries(body).filter(([field]) => SETTABLE.includes(field)));
      await writes.run({ op: 'updateNumber', apiClientId: number.apiClientId, numberId: number.numberId, changes });
    },
  },
  'update.flags-not-persisted': {
    breaks: ['UPD-001'],
    description: 'an update of smsEnabled or mmsEnabled is answered with the new value but not stored',
    route: UPDATE,
    preHandler(request) {
      const { smsEnabled, mmsEnabled, ...stored } = changesOf(request);
      unstoredFlags.set(request, { ...(smsEnabled !== undefined && { smsEnabled }), ...(mmsEnabled !== undefined && { mmsEnabled }) });
      request.body = stored;
    },
    answer({ request, status, body }) {
      if (status === 200) Object.assign(body, unstoredFlags.get(request));
    },
  },
  'update.foreign-number-allowed': {
    breaks: ['UPD-002'],
    description: "an update of another client's number is applied",
    route: UPDATE,
    // The update acts as the number's owner, whoever asks.
    preHandler(request, { stores }) {
      const number = stores.numbers.byId((request.params as { numberId: string }).numberId);
      if (number && number.apiClientId !== callerOf(request).apiClientId) request.apiClient = stores.clients.byApiClientId(number.apiClientId)!;
    },
  },
  'update.foreign-number-allowed-after-first-client': {
    breaks: ['UPD-002'],
    description: "an update of another client's number is applied when a client other than the first seeded one asks (the first client's attempts are refused as they should be)",
    route: UPDATE,
    // Only the first client's ownership is checked: any other caller acts as the number's owner.
    preHandler(request, { stores, seeded }) {
      const number = stores.numbers.byId((request.params as { numberId: string }).numberId);
      const caller = callerOf(request).apiClientId;
      if (number && number.apiClientId !== caller && caller !== seeded[0]!.apiClientId) request.apiClient = stores.clients.byApiClientId(number.apiClientId)!;
    },
  },
  'update.percent-encoded-foreign-allowed': {
    breaks: ['UPD-002'],
    description: "an update of another client's number is applied when its path writes a character of the numberId percent-encoded that needs no encoding (the ownership check reads the path as written; the number is looked up decoded)",
    route: UPDATE,
    preHandler(request, { stores }) {
      const segment = /\/numbers\/([^/?#]*)/.exec(request.url)?.[1] ?? '';
      const needless = [...segment.matchAll(/%([0-9A-Fa-f]{2})/g)].some(([, hex]) => /[A-Za-z0-9\-._~]/.test(String.fromCharCode(parseInt(hex!, 16))));
      if (!needless) return;
      const number = stores.numbers.byId((request.params as { numberId: string }).numberId);
      if (number && number.apiClientId !== callerOf(request).apiClientId) request.apiClient = stores.clients.byApiClientId(number.apiClientId)!;
    },
  },
  'update.basic-token-skips-ownership': {
    breaks: ['UPD-002'],
    description: "an update under a token its client obtained with HTTP Basic skips the ownership check: another client's number is updated (under a token asked for with body credentials it is still refused)",
    // The token endpoint's answers file the tokens issued after Basic; the update route reads them.
    route: /^(POST \/api\/auth\/token|PATCH \/api\/core\/numbers\/:numberId)$/,
    answer: fileBasicTokens,
    preHandler(request, ctx) {
      if (routeOf(request) !== UPDATE || !carriesBasicToken(request, ctx)) return;
      const number = ctx.stores.numbers.byId((request.params as { numberId: string }).numberId);
      if (number && number.apiClientId !== callerOf(request).apiClientId) request.apiClient = ctx.stores.clients.byApiClientId(number.apiClientId)!;
    },
  },
  'update.null-delivery-override-dropped-beside-campaign': {
    breaks: ['UPD-001'],
    description: 'an update that sets webhookDeliveryOverride to null and also names campaignregId leaves the override as it was (the null is dropped; alone, it clears the override), and answers 200',
    route: UPDATE,
    preValidation(request) {
      const body = objectBodyOf(request);
      if (body && 'campaignregId' in body && body.webhookDeliveryOverride === null) delete body.webhookDeliveryOverride;
    },
  },
  'update.second-flag-dropped': {
    breaks: ['UPD-001'],
    description: 'an update that sets smsEnabled and mmsEnabled together applies smsEnabled only: mmsEnabled is dropped, and the answer is 200 (each flag alone is applied)',
    route: UPDATE,
    preValidation(request) {
      const body = request.body as Record<string, unknown> | null;
      if (body && 'smsEnabled' in body && 'mmsEnabled' in body) delete body.mmsEnabled;
    },
  },
  'update.foreign-number-by-phone': {
    breaks: ['UPD-002'],
    description: "the update path also takes a number's phone number, looked up over every client's numbers without the ownership check: another client's number named by its phone number is changed",
    route: UPDATE,
    preHandler(request, { stores }) {
      const params = request.params as { numberId: string };
      if (!/^\+[1-9]\d{1,14}$/.test(params.numberId)) return;
      const number = stores.numbers.byPhoneNumber(params.numberId);
      if (!number) return;
      params.numberId = number.numberId;
      request.apiClient = stores.clients.byApiClientId(number.apiClientId)!;
    },
  },
  'update.foreign-number-by-other-case': {
    breaks: ['UPD-002'],
    description: "a numberId that names no number as written is looked up again without regard to letter case, over every client's numbers and without the ownership check: another client's numberId in other letter case changes that client's number",
    route: UPDATE,
    preHandler(request, { stores, seeded }) {
      const params = request.params as { numberId: string };
      if (stores.numbers.byId(params.numberId)) return;
      const wanted = params.numberId.toLowerCase();
      const number = seeded.flatMap((client) => stores.numbers.listForClient(client.apiClientId)).find((n) => n.numberId.toLowerCase() === wanted);
      if (!number) return;
      params.numberId = number.numberId;
      request.apiClient = stores.clients.byApiClientId(number.apiClientId)!;
    },
  },
  'update.override-copied-to-siblings': {
    breaks: ['UPD-007'],
    description: "an update that sets a webhookDeliveryOverride also gives it to the client's other numbers that have none (a bulk default applied on every write)",
    route: UPDATE,
    async preHandler(request, ctx) {
      const url = changesOf(request).webhookDeliveryOverride;
      if (typeof url === 'string') await spreadToSiblings(request, ctx, { webhookDeliveryOverride: url }, (sibling) => sibling.webhookDeliveryOverride === null);
    },
  },
  'update.flags-shared-by-registered-numbers': {
    breaks: ['UPD-007'],
    description: "an update of smsEnabled or mmsEnabled of a number with a campaignregId also changes the client's other numbers with one (one flags object held by them all); the number updated is right",
    route: UPDATE,
    async preHandler(request, ctx) {
      const changes = changesOf(request);
      const flags = Object.fromEntries((['smsEnabled', 'mmsEnabled'] as const).filter((f) => typeof changes[f] === 'boolean').map((f) => [f, changes[f]]));
      if (Object.keys(flags).length > 0) await spreadToSiblings(request, ctx, flags, (sibling, updated) => updated.campaignregId !== null && sibling.campaignregId !== null);
    },
  },
  'update.non-ascii-stored-as-question-marks': {
    breaks: ['UPD-001'],
    description: "a campaignregId is stored in a single-byte column: each character beyond Latin-1 becomes '?' (an ASCII value is stored as sent)",
    route: UPDATE,
    preHandler(request) {
      const changes = changesOf(request);
      if (typeof changes.campaignregId === 'string') changes.campaignregId = [...changes.campaignregId].map((c) => (c.codePointAt(0)! > 0xff ? '?' : c)).join('');
    },
  },
  'update.campaign-change-spreads': {
    breaks: ['UPD-007'],
    description: "an update of a number's campaignregId also gives the new value to the client's other numbers that had the same old one (null included): registrations kept per value, not per number",
    route: UPDATE,
    async preHandler(request, ctx) {
      const changes = changesOf(request);
      if ('campaignregId' in changes) await spreadToSiblings(request, ctx, { campaignregId: changes.campaignregId ?? null }, (sibling, updated) => sibling.campaignregId === updated.campaignregId);
    },
  },
  'update.foreign-number-invalid': {
    breaks: ['UPD-002'],
    description: "an update of another client's number is refused 400 INVALID_REQUEST, a request defect, instead of as an ownership refusal (403 or 404)",
    route: UPDATE,
    preHandler(request, { stores }) {
      const number = stores.numbers.byId((request.params as { numberId: string }).numberId);
      if (number && number.apiClientId !== callerOf(request).apiClientId) throw new CoreError('INVALID_REQUEST', 'numberId is not valid.', { field: 'params/numberId' });
    },
  },
  'update.campaign-cut-to-40': {
    breaks: ['UPD-001'],
    description: 'a campaignregId is stored in a column of 40 characters: a longer one is cut to its first 40 and the update answered 200 (the limit refuses only what is over 64)',
    route: UPDATE,
    preValidation(request) {
      const body = request.body as Record<string, unknown> | null;
      if (body && typeof body.campaignregId === 'string') body.campaignregId = body.campaignregId.slice(0, 40);
    },
  },
  'update.campaign-trimmed': {
    breaks: ['UPD-001'],
    description: 'a campaignregId is stored with the whitespace around it trimmed: " CMP 7 " reads back as "CMP 7" (a value without outer whitespace is stored as given)',
    route: UPDATE,
    preValidation(request) {
      const body = objectBodyOf(request);
      if (typeof body?.campaignregId === 'string') body.campaignregId = body.campaignregId.trim();
    },
  },
  'update.override-cut-to-255': {
    breaks: ['UPD-001'],
    description: 'webhook overrides are stored in columns of 255 characters: a longer URL is cut to its first 255 and the update answered 200 (the limit refuses only what is over 2048)',
    route: UPDATE,
    preValidation(request) {
      const body = request.body as Record<string, unknown> | null;
      if (!body) return;
      for (const field of ['webhookInboundOverride', 'webhookDeliveryOverride']) {
        if (typeof body[field] === 'string') body[field] = (body[field] as string).slice(0, 255);
      }
    },
  },
  'update.body-number-id-wins': {
    breaks: ['UPD-007'],
    description: "an update whose body also names a numberId is applied to the number the body names, if the caller owns it, instead of the one its path names (the body's member read after the path's parameter)",
    route: UPDATE,
    preValidation(request) {
      const fields = objectBodyOf(request);
      if (!fields) return;
      if (typeof fields.numberId !== 'string') return;
      (request.params as { numberId: string }).numberId = fields.numberId;
      delete fields.numberId;
    },
  },
  'update.string-flag-coerced': {
    breaks: ['UPD-005'],
    description: 'smsEnabled or mmsEnabled given as the string "true" or "false" is read as the boolean and stored',
    route: UPDATE,
    preValidation(request) {
      const body = request.body;
      if (typeof body !== 'object' || body === null) return;
      const fields = body as Record<string, unknown>;
      for (const flag of ['smsEnabled', 'mmsEnabled']) {
        if (fields[flag] === 'true' || fields[flag] === 'false') fields[flag] = fields[flag] === 'true';
      }
    },
  },
  'update.partial-apply-before-rejection': {
    breaks: ['UPD-005'],
    description: 'an update with a setting of the wrong JSON type stores its well-typed settings before the schema refuses it 400',
    route: UPDATE,
    // Every well-typed setting of the body is stored before the schema sees the mistyped one and refuses the update.
    async preValidation(request, { writes }) {
      const body = objectBodyOf(request);
      if (!body) return;
      const fields = Object.entries(body);
      if (!fields.every(([field]) => SETTABLE.includes(field)) || fields.every(([field, value]) => typedAsSection2(field, value))) return;
      const typed = Object.fromEntries(fields.filter(([field, value]) => typedAsSection2(field, value)));
      if (Object.keys(typed).length === 0) return;
      const { numberId } = request.params as { numberId: string };
      await writes.run({ op: 'updateNumber', apiClientId: callerOf(request).apiClientId, numberId, changes: typed });
    },
  },
  'update.unknown-number-accepted': {
    breaks: ['UPD-006'],
    description: 'an update of a numberId that was never issued is answered 200 with the settings echoed (nothing is stored)',
    route: UPDATE,
    answer(answer, { stores }) {
      const numberId = (answer.request.params as { numberId: string }).numberId;
      if (answer.status !== 404 || stores.numbers.byId(numberId)) return;
      answer.status = 200;
      answer.body = { numberId, ...changesOf(answer.request) };
    },
  },
  'update.other-fields-reset': {
    breaks: ['UPD-003'],
    description: 'an update that does not name smsEnabled or mmsEnabled stores it as false',
    route: UPDATE,
    preHandler(request) {
      request.body = { smsEnabled: false, mmsEnabled: false, ...changesOf(request) };
    },
  },
  'update.null-clears-other-override': {
    breaks: ['UPD-003'],
    description: 'an update setting webhookInboundOverride to null also clears webhookDeliveryOverride, which it does not name',
    route: UPDATE,
    preHandler(request) {
      const changes = changesOf(request);
      if (changes.webhookInboundOverride === null && !('webhookDeliveryOverride' in changes)) request.body = { ...changes, webhookDeliveryOverride: null };
    },
  },
  'update.empty-body-500': {
    breaks: ['UPD-003'],
    description: 'an update naming no attribute ({}) fails 500 SERVER_ERROR (an empty list of columns to set); any update naming one works',
    route: UPDATE,
    preHandler(request) {
      if (Object.keys(changesOf(request) ?? {}).length === 0) throw new CoreError('SERVER_ERROR', 'The update failed.');
    },
  },
  'update.null-body-500': {
    breaks: ['UPD-005'],
    description: 'an update whose body is JSON null fails 500 SERVER_ERROR (its attributes are read off null); every object body is handled',
    route: UPDATE,
    preValidation(request) {
      if (request.body === null) throw new CoreError('SERVER_ERROR', "Cannot convert undefined or null to object");
    },
  },
  'update.null-takes-back-last-change': {
    breaks: ['UPD-004'],
    description: "null on a nullable attribute takes back the last value set instead of clearing it: after two values in turn, null leaves the first (set once, null clears as it should)",
    route: UPDATE,
    preHandler(request) {
      const changes = objectBodyOf(request);
      if (!changes) return;
      const { numberId } = request.params as { numberId: string };
      for (const field of ['campaignregId', 'webhookInboundOverride', 'webhookDeliveryOverride'] as const) {
        const history = valuesSet.get(`${numberId} ${field}`) ?? [];
        valuesSet.set(`${numberId} ${field}`, history);
        if (typeof changes[field] === 'string') history.push(changes[field]);
        else if (changes[field] === null && history.length > 0) {
          history.pop();
          if (history.length > 0) changes[field] = history.at(-1);
        }
      }
    },
  },
  'update.null-needs-compact-json': {
    breaks: ['ERR-007'],
    description: 'null clears an attribute only when the body spells it compactly ("campaignregId":null); written with a space after the colon, or an escape in the name, it is taken as absent and the old value stays',
    route: UPDATE,
    rawBody: true,
    preHandler(request) {
      const changes = objectBodyOf(request);
      const written = rawBodyOf(request) ?? '';
      if (!changes) return;
      for (const field of ['campaignregId', 'webhookInboundOverride', 'webhookDeliveryOverride'] as const) {
        if (changes[field] === null && !written.includes(`"${field}":null`)) delete changes[field];
      }
    },
  },
  'update.null-refused': {
    breaks: ['UPD-004'],
    description: 'an update setting campaignregId to null is refused 400',
    route: UPDATE,
    preHandler(request) {
      if (changesOf(request).campaignregId === null) throw new CoreError('INVALID_REQUEST', 'campaignregId must be a string.', { field: 'body/campaignregId' });
    },
  },
  'update.allowed-webhook-host-refused': {
    breaks: ['UPD-001'],
    description: 'every webhook override is refused 400 as loopback, at the hosts the server was started to allow too (the allow list read after the address check)',
    behaviour: () => ({ checkWebhookTarget: async () => ({ ok: false, reason: 'loopback' }) }),
  },
  'update.private-webhook-accepted': {
    breaks: ['UPD-210'],
    description: 'a webhook override at a loopback, private or link-local address is accepted when set (deliveries are still checked)',
    behaviour: () => ({ checkWebhookTarget: async () => ({ ok: true }) }),
  },
} satisfies Record<string, FaultDefinition>;
