import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../reference/auth/bearer.ts';
import { CoreError, coreErrorBody } from '../reference/errors.ts';
import { buildAcceptance } from '../reference/send/accept.ts';
import { PHONE_NUMBER_LIKE } from '../reference/send/checks.ts';
import { payloadFingerprint } from '../reference/send/fingerprint.ts';
import type { SendRequest } from '../reference/send/sendRequest.ts';
import type { RequestSchemas } from '../reference/spec/requestSchemas.ts';
import type { ReferenceContext } from '../reference/context.ts';
import type { DueWebhook } from '../reference/store/outbox.ts';
import { carriesBasicToken, fileBasicTokens, objectBodyOf, rawBodyOf, replaceMember, routeOf, type Answer, type FaultDefinition, type RequestHook } from './fault.ts';

// Faults of the send (section 4.6). Most replace a member of the behaviour: the send schema, the
// recipient pattern, the media rule, the sendFrom resolution or the number's capability; two fill in a field before the
// schema sees the body, one wraps a scalar in a list, one refuses a body in the wrong class, two make a key up (one
// still answering 400), one answers as the owner of another client's number; from the answer, three rewrite it (one
// leaving a result out) and three queue the callbacks of a refused send (all its recipients, or its valid ones).

const SEND = 'POST /api/core/messages/send';
/** Under send.duplicate-sendfrom-owner-first: the sendFrom each body's ownership is checked on, when it names sendFrom twice. */
const checkedAs = new WeakMap<object, string>();

type Schema = Record<string, unknown>;

/** The schemas with one property of the send request's schema changed. */
function withSendProperty(schemas: RequestSchemas, name: string, change: Schema): RequestSchemas {
  const properties = schemas.sendRequest.properties as Record<string, Schema>;
  return { ...schemas, sendRequest: { ...schemas.sendRequest, properties: { ...properties, [name]: { ...properties[name], ...change } } } };
}

/** The media rule (rules 2 and 3) left out for one messageType. */
function mediaRuleWaivedFor(messageType: SendRequest['messageType']): FaultDefinition['behaviour'] {
  return replaceMember('send', 'checkMediaRule', (checkMediaRule) => (request) => {
    if (request.messageType !== messageType) checkMediaRule(request);
  });
}

/** A hook that fills `field` in before the schema sees a body that leaves it out. */
function filledIn(field: string, value: string): RequestHook {
  return (request) => {
    const body = request.body;
    if (typeof body === 'object' && body !== null && !Array.isArray(body) && !(field in body)) (body as Record<string, unknown>)[field] = value;
  };
}

/**
 * The delivery callbacks a send refused for its recipients would have had, had it been
 * accepted (of its valid recipients only, with `validOnly`); undefined for any other answer.
 * Recipients are checked last, so the sendFrom number of such a send resolves.
 */
function callbacksOfRefusedRecipients({ request, status, body }: Answer, { behaviour, stores }: ReferenceContext, validOnly = false): DueWebhook[] | undefined {
  const invalid: unknown = body.error?.details?.invalidRecipients;
  if (status !== 400 || !Array.isArray(invalid)) return undefined;
  const client = callerOf(request);
  const send = request.body as SendRequest;
  const to = validOnly ? send.to.filter((recipient) => !invalid.includes(recipient)) : send.to;
  if (to.length === 0) return undefined;
  const number = behaviour.send.resolveSendFrom(send, client, stores.numbers);
  return buildAcceptance(behaviour.webhooks, client, number, { ...send, to }, '', Date.now()).webhooks;
}

// The sends that came without an Idempotency-Key, under send.missing-key-still-queued.
const keyless = new WeakSet<FastifyRequest>();

export const SEND_FAULTS = {
  'send.media-rule-422': {
    breaks: ['ERR-002'],
    description: "a send refused for its media (an SMS with media, an MMS without) is answered 422 with error.code INVALID_REQUEST, which section 7.2's table pairs with 400 (other invalid sends still get 400)",
    behaviour: replaceMember('send', 'checkMediaRule', (checkMediaRule) => (request) => {
      try {
        checkMediaRule(request);
      } catch (e) {
        // The code stays INVALID_REQUEST; only the status is the framework's 422.
        if (e instanceof CoreError) throw Object.defineProperty(new CoreError('INVALID_REQUEST', e.message, e.details), 'status', { value: 422 });
        throw e;
      }
    }),
  },
  'send.self-recipient-refused': {
    breaks: ['SEND-008'],
    description: "a send whose recipients include the sending number's own phone number is refused 400 INVALID_REQUEST (\"a number cannot send to itself\"); no rule of section 4.6 refuses it",
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const number = resolveSendFrom(request, client, numbers);
      if (number.phoneNumber !== undefined && request.to.includes(number.phoneNumber)) throw new CoreError('INVALID_REQUEST', 'A number cannot send to itself.', { field: 'to' });
      return number;
    }),
  },
  'send.owner-by-campaign': {
    breaks: ['SEND-004'],
    description: "a sendFrom another client owns is taken as the caller's when its campaignregId is one of the caller's numbers' own (ownership read off the registration)",
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const number = numbers.byId(request.sendFrom);
      const own = numbers.listForClient(client.apiClientId);
      if (number && number.apiClientId !== client.apiClientId && number.campaignregId && own.some((n) => n.campaignregId === number.campaignregId)) return number;
      return resolveSendFrom(request, client, numbers);
    }),
  },
  'send.duplicate-sendfrom-owner-first': {
    breaks: ['SEND-004'],
    description: "a body naming sendFrom twice has its ownership checked on the first member and is sent from the last (the parsed one): the client's own number first and another client's after sends from the other client's number",
    route: SEND,
    rawBody: true,
    preHandler(request) {
      const named = [...(rawBodyOf(request) ?? '').matchAll(/"sendFrom"\s*:\s*"([^"]*)"/g)].map((m) => m[1]!);
      const body = objectBodyOf(request);
      if (body && named.length > 1 && named[0] !== body.sendFrom) checkedAs.set(body, named[0]!);
    },
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const first = checkedAs.get(request);
      if (first === undefined) return resolveSendFrom(request, client, numbers);
      const owned = resolveSendFrom({ ...request, sendFrom: first }, client, numbers);
      return numbers.byId(request.sendFrom) ?? owned;
    }),
  },
  'send.missing-key-accepted': {
    breaks: ['SEND-001'],
    description: 'a send without an Idempotency-Key header is accepted under a key the server makes up',
    route: SEND,
    onRequest(request) {
      request.headers['idempotency-key'] ??= `made-up-${randomUUID()}`;
    },
  },
  'send.sms-with-media-accepted': {
    breaks: ['SEND-002'],
    description: 'an SMS carrying media is accepted',
    behaviour: mediaRuleWaivedFor('SMS'),
  },
  'send.mms-without-media-accepted': {
    breaks: ['SEND-003'],
    description: 'an MMS without media is accepted',
    behaviour: mediaRuleWaivedFor('MMS'),
  },
  'send.mms-empty-media-accepted': {
    breaks: ['SEND-003'],
    description: 'an MMS whose media array is empty is accepted, as if it carried the first media item the client ever sent',
    route: SEND,
    preValidation(request) {
      const body = request.body as { messageType?: unknown; media?: unknown } | null;
      if (body?.messageType === 'MMS' && Array.isArray(body.media) && body.media.length === 0) body.media = [{ url: 'https://cdn.example.com/conformance/pixel.png', contentType: 'image/png' }];
    },
  },
  'send.mms-null-media-accepted': {
    breaks: ['SEND-003'],
    description: 'an MMS whose media is null is accepted, as if it carried the first media item the client ever sent (missing media and an empty array are still refused)',
    route: SEND,
    preValidation(request) {
      const body = request.body as { messageType?: unknown; media?: unknown } | null;
      if (body?.messageType === 'MMS' && body.media === null) body.media = [{ url: 'https://cdn.example.com/conformance/pixel.png', contentType: 'image/png' }];
    },
  },
  'send.later-media-item-unchecked': {
    breaks: ['SEND-016'],
    description: "an MMS whose media holds a valid first item and a later one that is no media input object (a URL string, a number, null) is accepted: only media[0]'s shape is checked",
    route: SEND,
    preValidation(request) {
      const body = request.body as { media?: unknown } | null;
      if (!Array.isArray(body?.media) || typeof body.media[0] !== 'object' || body.media[0] === null) return;
      const first = body.media[0] as object;
      body.media = body.media.map((item, i) => (i > 0 && (typeof item !== 'object' || item === null || Array.isArray(item)) ? { ...first } : item));
    },
  },
  'send.foreign-send-from-accepted': {
    breaks: ['SEND-004'],
    description: "a sendFrom naming another client's number is accepted",
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const theirs = numbers.byId(request.sendFrom);
      return theirs && theirs.apiClientId !== client.apiClientId ? theirs : resolveSendFrom(request, client, numbers);
    }),
  },
  'send.foreign-send-from-to-held-numbers': {
    breaks: ['SEND-004'],
    description: "a sendFrom naming another client's number is accepted when every recipient is a phone number the service holds (messages between its own numbers skip the owner check); to any other recipient it is still 403",
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const theirs = numbers.byId(request.sendFrom);
      const internal = request.to.length > 0 && request.to.every((to) => numbers.byPhoneNumber(to) !== undefined);
      return theirs && theirs.apiClientId !== client.apiClientId && internal ? theirs : resolveSendFrom(request, client, numbers);
    }),
  },
  'send.basic-token-skips-ownership': {
    breaks: ['SEND-004'],
    description: "a send under a token its client obtained with HTTP Basic skips the owner check of sendFrom: another client's number sends, as that client (under a token asked for with body credentials it is still 403)",
    // The token endpoint's answers file the tokens issued after Basic; the send route reads them.
    route: /^POST \/api\/(auth\/token|core\/messages\/send)$/,
    answer: fileBasicTokens,
    preHandler(request, ctx) {
      if (routeOf(request) !== SEND || !carriesBasicToken(request, ctx)) return;
      const owner = ctx.stores.numbers.byId((request.body as SendRequest).sendFrom)?.apiClientId;
      if (owner !== undefined && owner !== callerOf(request).apiClientId) request.apiClient = ctx.stores.clients.byApiClientId(owner) ?? null;
    },
  },
  'send.unknown-send-from-not-found': {
    breaks: ['SEND-004'],
    description: 'a sendFrom numberId that no client has is answered 404 NOT_FOUND instead of 403 FORBIDDEN (another client\'s number is still 403)',
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      if (!numbers.byId(request.sendFrom) && !PHONE_NUMBER_LIKE.test(request.sendFrom)) throw new CoreError('NOT_FOUND', 'No number has this numberId.', { field: 'sendFrom' });
      return resolveSendFrom(request, client, numbers);
    }),
  },
  'send.foreign-send-from-replayed': {
    breaks: ['SEND-004'],
    description: "a send whose sendFrom is another client's number, with that client's exact payload under a key it used, is answered with that client's send, messageIds included (records are looked up by sendFrom and key, not by caller)",
    route: SEND,
    preHandler(request, { stores }) {
      const send = request.body as SendRequest;
      const owner = stores.numbers.byId(send.sendFrom)?.apiClientId;
      if (owner === undefined || owner === callerOf(request).apiClientId) return;
      const record = stores.idempotency.find(owner, request.idempotencyKey!, Date.now());
      // The send goes on as the number's owner, whose record it then replays.
      if (record?.fingerprint === payloadFingerprint(send)) request.apiClient = stores.clients.byApiClientId(owner) ?? null;
    },
  },
  'send.foreign-settings-checked-first': {
    breaks: ['SEND-004'],
    description: "a sendFrom of another client's that has no campaignregId, or SMS disabled, is answered 400 INVALID_REQUEST: the number's settings are checked before its owner (another client's registered number is still 403)",
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const number = numbers.byId(request.sendFrom);
      if (number && number.apiClientId !== client.apiClientId && (number.campaignregId === null || !number.smsEnabled)) {
        throw new CoreError('INVALID_REQUEST', 'The sendFrom number cannot send this message.', { field: 'sendFrom' });
      }
      return resolveSendFrom(request, client, numbers);
    }),
  },
  'send.no-campaign-accepted': {
    breaks: ['SEND-005'],
    description: 'a sendFrom number without a campaignregId is accepted',
    behaviour: replaceMember(
      'send',
      'resolveSendFrom',
      (resolveSendFrom) => (request, client, numbers) => numbers.findOwned(client.apiClientId, request.sendFrom) ?? resolveSendFrom(request, client, numbers),
    ),
  },
  'send.e164-send-from-accepted': {
    breaks: ['SEND-006'],
    description: "a sendFrom giving one of the client's own numbers in E.164 form is mapped to its numberId and accepted",
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const own = numbers.byPhoneNumber(request.sendFrom);
      return resolveSendFrom(own?.apiClientId === client.apiClientId ? { ...request, sendFrom: own.numberId } : request, client, numbers);
    }),
  },
  'send.padded-recipient-accepted': {
    breaks: ['SEND-007'],
    description: 'a recipient with whitespace around an E.164 number is accepted',
    behaviour: replaceMember('schemas', 'e164', () => /^\s*\+[1-9]\d{1,14}\s*$/),
  },
  'send.00-prefix-recipient-accepted': {
    breaks: ['SEND-007'],
    description: "a recipient written with the international '00' prefix instead of '+' is accepted",
    behaviour: replaceMember('schemas', 'e164', () => /^(?:\+|00)[1-9]\d{1,14}$/),
  },
  'send.long-recipient-accepted': {
    breaks: ['SEND-007'],
    description: 'a recipient of 16 or more digits is accepted (no upper bound on the length)',
    behaviour: replaceMember('schemas', 'e164', () => /^\+[1-9]\d{1,}$/),
  },
  'send.sixteen-digit-recipient-accepted': {
    breaks: ['SEND-007'],
    description: 'recipients are allowed one digit too many: 16 digits are accepted (17 and more are refused)',
    behaviour: replaceMember('schemas', 'e164', () => /^\+[1-9]\d{1,15}$/),
  },
  'send.late-recipients-unchecked': {
    breaks: ['SEND-007'],
    description: 'recipients from the third on are not checked: an invalid one there is dropped, and the send is queued for the others',
    route: SEND,
    preValidation(request, { behaviour }) {
      const body = request.body as { to?: unknown } | null;
      if (!Array.isArray(body?.to) || body.to.length < 3) return;
      const e164 = behaviour.schemas.e164;
      body.to = body.to.filter((to, i) => i < 2 || (typeof to === 'string' && e164.test(to)));
    },
  },
  'send.null-media-taken-as-absent': {
    breaks: ['SEND-002'],
    description: 'an SMS whose media member is null is taken as one without media and accepted (media given as an array, even empty, is refused)',
    route: SEND,
    preValidation(request) {
      const body = request.body as { messageType?: unknown; media?: unknown } | null;
      if (body?.messageType === 'SMS' && body.media === null) delete body.media;
    },
  },
  'send.lone-media-item-wrapped': {
    breaks: ['SEND-016'],
    description: 'an MMS whose media is one media item, not in an array, has it wrapped in one and is accepted (an array is read as given)',
    route: SEND,
    preValidation(request) {
      const body = objectBodyOf(request);
      if (body?.messageType === 'MMS' && body.media !== null && typeof body.media === 'object' && !Array.isArray(body.media)) body.media = [body.media];
    },
  },
  'send.media-name-read-as-written': {
    breaks: ['ERR-007'],
    description: 'the SMS media rule looks for the member name "media" in the body as written: an SMS whose media member name is written with escapes ("\\u006dedia") is accepted, its media dropped',
    route: SEND,
    rawBody: true,
    preValidation(request) {
      const body = request.body as { messageType?: unknown; media?: unknown } | null;
      const text = rawBodyOf(request);
      if (body?.messageType === 'SMS' && body.media !== undefined && text !== undefined && !text.includes('"media"')) delete body.media;
    },
  },
  'send.escaped-plus-refused': {
    breaks: ['ERR-007'],
    description: 'recipients are checked in the body as written: a recipient whose "+" is written as the escape \\u002B is refused 400 INVALID_REQUEST',
    route: SEND,
    rawBody: true,
    preValidation(request) {
      if (/\\u002b/i.test(rawBodyOf(request) ?? '')) throw new CoreError('INVALID_REQUEST', 'A recipient is not an E.164 number.', { field: 'to' });
    },
  },
  'send.escaped-surrogate-refused': {
    breaks: ['ERR-007'],
    description: 'a send whose body writes a character beyond the BMP as an escaped surrogate pair ("\\ud83d\\udce8") is refused 400 INVALID_REQUEST as invalid JSON; the same character written raw is accepted',
    route: SEND,
    rawBody: true,
    preValidation(request) {
      if (/\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(rawBodyOf(request) ?? '')) throw new CoreError('INVALID_REQUEST', 'The request body is not valid JSON.', { field: 'body' });
    },
  },
  'send.campaign-rule-sms-only': {
    breaks: ['SEND-005'],
    description: 'rule 5 is checked for SMS only: an MMS from a number of the client without a campaignregId is accepted (where the number has MMS on)',
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const own = request.messageType === 'MMS' ? numbers.findOwned(client.apiClientId, request.sendFrom) : undefined;
      if (own && (own.campaignregId === null || own.campaignregId === '')) return own;
      return resolveSendFrom(request, client, numbers);
    }),
  },
  'send.padded-own-phone-resolved': {
    breaks: ['SEND-006'],
    description: "a sendFrom that is one of the client's own phone numbers with whitespace around it is mapped to its numberId and accepted (the bare phone number is still refused)",
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const trimmed = request.sendFrom.trim();
      const own = trimmed !== request.sendFrom ? numbers.byPhoneNumber(trimmed) : undefined;
      return resolveSendFrom(own?.apiClientId === client.apiClientId ? { ...request, sendFrom: own.numberId } : request, client, numbers);
    }),
  },
  'send.digits-own-phone-resolved': {
    breaks: ['SEND-006'],
    description: "a sendFrom that is one of the client's own phone numbers written without its '+' (its digits) is mapped to its numberId and accepted (the number with its '+' is still refused)",
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const own = /^[1-9]\d{1,14}$/.test(request.sendFrom) ? numbers.byPhoneNumber(`+${request.sendFrom}`) : undefined;
      return resolveSendFrom(own?.apiClientId === client.apiClientId ? { ...request, sendFrom: own.numberId } : request, client, numbers);
    }),
  },
  'send.long-mms-text-without-media-accepted': {
    breaks: ['SEND-003'],
    description: 'an MMS without media whose text is longer than 160 characters is accepted, its text read as its content (a shorter one, or none, is still refused)',
    behaviour: replaceMember('send', 'checkMediaRule', (checkMediaRule) => (request) => {
      if (request.messageType === 'MMS' && request.media === undefined && (request.text?.length ?? 0) > 160) return;
      checkMediaRule(request);
    }),
  },
  'send.campaign-skipped-for-held-recipients': {
    breaks: ['SEND-005'],
    description: "a send whose every recipient is a number the service holds (the client's own or another client's) is not checked for the sendFrom's campaignregId: a number without one sends there (to anyone else it is still refused)",
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const held = request.to.length > 0 && request.to.every((to) => numbers.byPhoneNumber(to) !== undefined);
      const own = held ? numbers.findOwned(client.apiClientId, request.sendFrom) : undefined;
      return own ?? resolveSendFrom(request, client, numbers);
    }),
  },
  'send.several-recipients-notice-in-errors': {
    breaks: ['SEND-009'],
    description: 'a send to several recipients, every one of them queued, is answered with a notice among the errors (BATCHED: the messages go out as one batch), though nothing failed (a send to one recipient answers errors empty)',
    route: SEND,
    answer({ status, body }) {
      const results = body.results as unknown[] | undefined;
      if (status >= 300 || !Array.isArray(results) || results.length < 2 || !Array.isArray(body.errors) || body.errors.length > 0) return;
      body.errors = [{ code: 'BATCHED', message: 'The messages go out as one batch.' }];
    },
  },
  'send.padded-send-from-trimmed': {
    breaks: ['SEND-004'],
    description: "a sendFrom with whitespace around it is trimmed before its number is looked up: the client's own numberId padded with spaces is accepted",
    route: SEND,
    preValidation(request) {
      const body = objectBodyOf(request);
      if (typeof body?.sendFrom === 'string') body.sendFrom = body.sendFrom.trim();
    },
  },
  'send.own-phone-resolved-for-mms': {
    breaks: ['SEND-006'],
    description: "the sendFrom of an MMS that is one of the client's own phone numbers is mapped to its numberId and accepted (an SMS's is still refused)",
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      const own = request.messageType === 'MMS' ? numbers.byPhoneNumber(request.sendFrom) : undefined;
      return resolveSendFrom(own?.apiClientId === client.apiClientId ? { ...request, sendFrom: own.numberId } : request, client, numbers);
    }),
  },
  'send.key-header-one-spelling': {
    breaks: ['SEND-001'],
    description: 'the Idempotency-Key header is read only when its name is written "Idempotency-Key" or "idempotency-key": named in other letter cases, the send is refused 400 as having no key',
    route: SEND,
    onRequest(request) {
      const raw = request.raw.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i]!;
        if (name.toLowerCase() === 'idempotency-key' && name !== 'Idempotency-Key' && name !== 'idempotency-key') delete request.headers['idempotency-key'];
      }
    },
  },
  'send.encoded-client-id-owner-check': {
    breaks: ['NUM-002'],
    description: 'ownership of sendFrom is checked against the client id percent-encoded: a client whose id has characters that need encoding is refused 403 sending from its own listed numbers',
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => (request, client, numbers) => {
      if (encodeURIComponent(client.clientId) !== client.clientId) throw new CoreError('FORBIDDEN', 'sendFrom is not a number owned by this API client.', { field: 'sendFrom' });
      return resolveSendFrom(request, client, numbers);
    }),
  },
  'send.status-not-queued': {
    breaks: ['SEND-008'],
    description: 'accepted messages are reported with status SENT instead of QUEUED',
    route: SEND,
    answer({ body }) {
      for (const result of body.results ?? []) result.status = 'SENT';
    },
  },
  'send.last-result-dropped': {
    breaks: ['SEND-008'],
    description: 'a send to several recipients queues a message for each, but its answer leaves the last result item out',
    route: SEND,
    answer({ status, body }) {
      if (status < 300 && Array.isArray(body.results) && body.results.length >= 2) body.results.pop();
    },
  },
  'send.results-capped-at-ten': {
    breaks: ['SEND-008'],
    description: 'a send to more than ten recipients queues a message for each, but its answer holds the first ten result items only (a page of results)',
    route: SEND,
    answer({ status, body }) {
      if (status < 300 && Array.isArray(body.results) && body.results.length > 10) body.results = body.results.slice(0, 10);
    },
  },
  'send.long-text-500': {
    breaks: ['SEND-008'],
    description: "a text longer than ten GSM segments (1530 characters) fails the segment count: answered 500 SERVER_ERROR (the profile's limit, 1600, is still refused 400 past it)",
    route: SEND,
    preHandler(request) {
      const text = (request.body as { text?: unknown } | null)?.text;
      if (typeof text === 'string' && text.length > 1530 && text.length <= 1600) throw new CoreError('SERVER_ERROR');
    },
  },
  'send.errors-array-missing': {
    breaks: ['SEND-009'],
    description: 'the send answer leaves out the errors array when nothing failed',
    route: SEND,
    answer({ body }) {
      if (body.errors?.length === 0) delete body.errors;
    },
  },
  'send.replay-errors-null': {
    breaks: ['SEND-009'],
    description: 'a safe retry is answered with the first answer replayed, but with errors null instead of the empty array (a first attempt answers it right)',
    route: SEND,
    answer({ status, body, reply }) {
      if (status < 300 && reply.getHeader('idempotent-replayed') === 'true') body.errors = null;
    },
  },
  'send.empty-to-accepted': {
    breaks: ['SEND-011'],
    description: 'an empty to array is accepted (answered 202 with no results)',
    behaviour: ({ schemas }) => ({ schemas: withSendProperty(schemas, 'to', { minItems: 0 }) }),
  },
  'send.text-type-accepted': {
    breaks: ['SEND-012'],
    description: "messageType 'TEXT' is accepted as a third type",
    behaviour: ({ schemas }) => ({ schemas: withSendProperty(schemas, 'messageType', { enum: ['SMS', 'MMS', 'TEXT'] }) }),
  },
  'send.unknown-type-forbidden': {
    breaks: ['SEND-012'],
    description: 'a messageType other than SMS or MMS is refused 403 FORBIDDEN, as if the client lacked a capability, instead of as a request defect',
    route: SEND,
    preValidation(request) {
      const body = request.body;
      const type = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).messageType : undefined;
      if (type !== undefined && type !== 'SMS' && type !== 'MMS') throw new CoreError('FORBIDDEN', 'This client may not send this message type.');
    },
  },
  'send.missing-external-reference-accepted': {
    breaks: ['SEND-013'],
    description: 'a send without externalReference is accepted',
    route: SEND,
    preValidation: filledIn('externalReference', ''),
  },
  'send.mms-refused': {
    breaks: ['SEND-010'],
    description: 'an MMS is refused as an unknown messageType, even with media from an MMS-capable number',
    behaviour: ({ schemas }) => ({ schemas: withSendProperty(schemas, 'messageType', { enum: ['SMS'] }) }),
  },
  'send.missing-type-accepted': {
    breaks: ['SEND-014'],
    description: 'a send without messageType is accepted and sent as an SMS',
    route: SEND,
    preValidation: filledIn('messageType', 'SMS'),
  },
  'send.array-body-first-element': {
    breaks: ['SEND-014'],
    description: 'a send whose body is a JSON array is read as its first element: the valid body wrapped in an array is accepted and queued',
    route: SEND,
    preValidation(request) {
      if (Array.isArray(request.body) && request.body.length > 0) request.body = request.body[0];
    },
  },
  'send.media-extra-member-accepted': {
    breaks: ['SEND-203'],
    description: 'a media item with a member the profile does not define (caption) is accepted, where the profile refuses unknown fields',
    behaviour: ({ schemas }) => {
      const media = (schemas.sendRequest.properties as Record<string, Schema>).media!;
      return { schemas: withSendProperty(schemas, 'media', { items: { ...(media.items as Schema), additionalProperties: true } }) };
    },
  },
  'send.capability-refusal-unexplained': {
    breaks: ['SEND-210'],
    description: 'a send from a number whose smsEnabled or mmsEnabled is false is refused 400 INVALID_REQUEST with empty error.details',
    route: SEND,
    answer(answer) {
      const details = answer.body.error?.details;
      if (answer.status === 400 && details && typeof details === 'object' && 'setting' in details) answer.body.error.details = {};
    },
  },
  'send.limit-not-named': {
    breaks: ['SEND-203'],
    description: 'a field over its limit is refused 400 INVALID_REQUEST, but error.details no longer names the limit',
    route: SEND,
    answer(answer) {
      const details = answer.body.error?.details;
      if (answer.status === 400 && details && typeof details === 'object' && 'limit' in details) delete details.limit;
    },
  },
  'send.rejected-still-queued': {
    breaks: ['SEND-015'],
    description: 'a send refused for an invalid recipient still hands its delivery callbacks to the dispatcher',
    route: SEND,
    answer(answer, context) {
      const webhooks = callbacksOfRefusedRecipients(answer, context);
      if (webhooks) context.dispatcher.dispatch(webhooks);
    },
  },
  'send.partial-recipients-queued': {
    breaks: ['SEND-015'],
    description: 'a send refused for an invalid recipient among valid ones still hands the delivery callbacks of its valid recipients to the dispatcher',
    route: SEND,
    answer(answer, context) {
      const webhooks = callbacksOfRefusedRecipients(answer, context, true);
      if (webhooks) context.dispatcher.dispatch(webhooks);
    },
  },
  'send.missing-key-still-queued': {
    breaks: ['SEND-015'],
    description: 'a send without an Idempotency-Key header is answered 400 INVALID_REQUEST, but queued all the same (under a key the server makes up) when it is otherwise valid',
    route: SEND,
    onRequest(request) {
      const given = request.headers['idempotency-key'];
      if (typeof given === 'string' && given.trim() !== '') return;
      keyless.add(request);
      request.headers['idempotency-key'] = `made-up-${randomUUID()}`;
    },
    answer(answer) {
      // Authentication comes first, as on the clean server; every other answer is rule 1's refusal.
      if (!keyless.has(answer.request) || answer.status === 401) return;
      const refusal = new CoreError('INVALID_REQUEST', 'The Idempotency-Key header is required.', { header: 'Idempotency-Key' });
      answer.status = refusal.status;
      answer.body = coreErrorBody(refusal, answer.request.id);
      answer.reply.header('x-request-id', answer.request.id);
    },
  },
  'send.rejected-reported-late': {
    breaks: ['SEND-015'],
    description: 'a send refused for an invalid recipient still has its delivery callbacks dispatched, 120 ms later, after those of a send that came after it',
    route: SEND,
    answer(answer, context) {
      const webhooks = callbacksOfRefusedRecipients(answer, context);
      // Late, so a check that trusts callbacks to arrive in order has stopped looking.
      if (webhooks) setTimeout(() => context.dispatcher.dispatch(webhooks), 120).unref();
    },
  },
  'send.scalar-to-accepted': {
    breaks: ['SEND-016'],
    description: 'a to given as one string instead of an array is taken as a list of that one recipient and accepted',
    route: SEND,
    preValidation(request) {
      const body = request.body;
      if (typeof body === 'object' && body !== null && typeof (body as Record<string, unknown>).to === 'string') {
        const fields = body as Record<string, unknown>;
        fields.to = [fields.to];
      }
    },
  },
  'send.text-required': {
    breaks: ['SEND-017'],
    description: 'a send without text is refused 400 INVALID_REQUEST, as if text were required',
    route: SEND,
    preValidation(request) {
      const body = request.body;
      if (typeof body === 'object' && body !== null && !Array.isArray(body) && !('text' in body)) throw new CoreError('INVALID_REQUEST', 'text is required.', { field: 'text' });
    },
  },
  'send.unregistered-refusal-remembered': {
    breaks: ['SEND-018'],
    description: 'a number refused once for lacking a campaignregId stays refused after the update gives it one (the refusal is cached)',
    behaviour: replaceMember('send', 'resolveSendFrom', (resolveSendFrom) => {
      const refused = new Set<string>();
      return (request, client, numbers) => {
        if (refused.has(request.sendFrom)) throw new CoreError('INVALID_REQUEST', 'The sendFrom number has no campaignregId configured.', { field: 'sendFrom', numberId: request.sendFrom });
        try {
          return resolveSendFrom(request, client, numbers);
        } catch (error) {
          if (error instanceof CoreError && error.code === 'INVALID_REQUEST' && error.details.numberId !== undefined) refused.add(request.sendFrom);
          throw error;
        }
      };
    }),
  },
  'send.disabled-type-accepted': {
    breaks: ['SEND-210'],
    description: 'a send from a number whose smsEnabled (for an SMS) or mmsEnabled (for an MMS) is false is accepted',
    behaviour: replaceMember('send', 'checkNumberCapability', () => () => undefined),
  },
} satisfies Record<string, FaultDefinition>;
