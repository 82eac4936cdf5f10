import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { callerOf, unauthorized } from '../reference/auth/bearer.ts';
import { tokenHash } from '../reference/auth/tokenHash.ts';
import type { ReferenceContext } from '../reference/context.ts';
import { CoreError, coreErrorBody } from '../reference/errors.ts';
import { newId } from '../reference/ids.ts';
import { outcomeFor } from '../reference/delivery/outcome.ts';
import { buildAcceptance } from '../reference/send/accept.ts';
import { canonicalJson, payloadFingerprint } from '../reference/send/fingerprint.ts';
import type { SendRequest } from '../reference/send/sendRequest.ts';
import type { IdempotencyRecord } from '../reference/store/idempotency.ts';
import type { DueWebhook } from '../reference/store/outbox.ts';
import { objectBodyOf, ofServer, tokenOf, type FaultDefinition, type RequestHook } from './fault.ts';

// Faults of idempotency (section 4.6 rule 8, the Idempotency-Key draft). Most hand the send a
// key other than the client's (a fresh one, one that names the sendFrom too, one lower-cased)
// where the client's key should have decided the answer, so the send is queued as a new
// operation or answered as another's; one refuses a send whose key is in flight with the wrong
// answer; one checks a retry again instead of replaying it; two queue what the answer says was
// not: the changed payload of a refused unsafe retry, or the messages of a replay once more.

const SEND = 'POST /api/core/messages/send';
/** Refusals kept under idempotency.unauthenticated-refusal-stored: by client and key (ids unique to a server). */
const unauthenticatedRefusals = new Map<string, string>();

// The slots of refused sends left in flight (idempotency.refusal-held-in-flight): client, key and payload.
const refusedInFlight = new Set<string>();
const refusedSlot = (request: FastifyRequest): string => JSON.stringify([callerOf(request).apiClientId, request.idempotencyKey, request.body]);

const freshKey = (request: FastifyRequest): string => `${request.idempotencyKey}#${randomUUID()}`;

/** The answer to a key reused with another payload, as the reference words it. */
const unsafeRetry = (): CoreError => new CoreError('CONFLICT', 'This Idempotency-Key was already used with a different payload.', { header: 'Idempotency-Key' });

// The (client, key) slots whose first send is in flight, each with its payload's fingerprint, per
// server, and the requests that hold them (idempotency.in-flight-lock-per-payload).
const inFlightPayloads = new WeakMap<ReferenceContext, Map<string, string>>();
const holdsFlight = new WeakMap<FastifyRequest, string>();

// The sendFrom's webhookDeliveryOverride when each (client, key) was first used, per server (idempotency.keys-dropped-on-override-change).
const overridesAtFirstSend = new WeakMap<ReferenceContext, Map<string, string | null>>();

/** The (client, key) a send is filed under, as one string. */
const keySlot = (request: FastifyRequest): string => `${callerOf(request).apiClientId}\u0000${request.idempotencyKey}`;

/** The record of this send's key, if it has one. */
function recordOf(request: FastifyRequest, { stores }: ReferenceContext): IdempotencyRecord | undefined {
  return stores.idempotency.find(callerOf(request).apiClientId, request.idempotencyKey!, Date.now());
}

/** Whether the key of this send has a record, and whether that record is for the same payload. */
function earlierRecord(request: FastifyRequest, ctx: ReferenceContext): 'same' | 'changed' | undefined {
  const record = recordOf(request, ctx);
  if (!record) return undefined;
  return record.fingerprint === payloadFingerprint(request.body as SendRequest) ? 'same' : 'changed';
}

/** The messageIds an accepted send's record reports (none for a stored refusal). */
function messageIdsOf(record: IdempotencyRecord): string[] {
  const results: unknown = (JSON.parse(record.body) as { results?: unknown }).results;
  return Array.isArray(results) ? results.flatMap((item) => (typeof item?.messageId === 'string' ? [item.messageId as string] : [])) : [];
}

/** The delivery events stored for these messages, each with a new webhook-id: sent again, they are new events. */
function deliveryEventsAgain({ db }: ReferenceContext, messageIds: readonly string[]): DueWebhook[] {
  const stored = db.prepare<[string], Pick<DueWebhook, 'targetUrl' | 'payload' | 'webhookSecret'>>(
    `SELECT o.target_url AS targetUrl, o.payload, c.webhook_secret AS webhookSecret
     FROM webhook_outbox o JOIN clients c USING (api_client_id)
     WHERE o.message_id = ? AND o.kind = 'message.delivery' AND o.target_url IS NOT NULL`,
  );
  const nowMs = Date.now();
  return messageIds.flatMap((messageId) => stored.all(messageId).map((event) => ({ ...event, kind: 'message.delivery' as const, webhookId: newId('evt'), attempts: 0, nextAttemptAt: nowMs })));
}

// How long the first of several concurrent sends with one key holds it under
// idempotency.concurrent-duplicates and idempotency.in-flight-invalid: long enough for a burst
// to arrive meanwhile.
const RACE_WINDOW_MS = 100;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
// The token that made each (client, key)'s record, per server, under idempotency.dies-with-token.
const keyMakers = new WeakMap<ReferenceContext, Map<string, string>>();
// The body length of the first request under each (client, key), per server, under idempotency.raw-bytes-fingerprint.
const firstLengths = new WeakMap<ReferenceContext, Map<string, string | undefined>>();
// The Content-Type of the first request under each (client, key), as written (idempotency.fingerprint-includes-content-type).
const firstContentTypes = new WeakMap<ReferenceContext, Map<string, string | undefined>>();
// The media of the first request under each (client, key) as written, members in their order (idempotency.fingerprint-nested-order-kept).
const firstMedia = new WeakMap<ReferenceContext, Map<string, string>>();
// The body length of the last replay under each (client, key), standing for its bytes (idempotency.fingerprint-rewritten-on-replay).
const replayLengths = new WeakMap<ReferenceContext, Map<string, string | undefined>>();
/**
 * A preHandler that fingerprints a payload as `normalise` reads it: a send whose key has a record
 * for another payload, but whose normalised payload is that of the key's first send, is handed
 * the first send's body, so it replays instead of being refused. One map per fault and server.
 */
function fingerprintedAs(normalise: (body: unknown) => string): NonNullable<FaultDefinition['preHandler']> {
  const firstsByServer = new WeakMap<ReferenceContext, Map<string, { normalised: string; body: unknown }>>();
  return (request, ctx) => {
    const firsts = ofServer(firstsByServer, ctx, () => new Map<string, { normalised: string; body: unknown }>());
    const slot = keySlot(request);
    const normalised = normalise(request.body);
    const earlier = earlierRecord(request, ctx);
    const first = firsts.get(slot);
    if (earlier === undefined) firsts.set(slot, { normalised, body: request.body });
    else if (earlier === 'changed' && first !== undefined && first.normalised === normalised) request.body = first.body;
  };
}

/** A preHandler that fingerprints a payload with one field read as `normalise` reads it (the rest as written). */
function fieldFingerprintedAs(field: keyof SendRequest, normalise: (value: unknown) => unknown): NonNullable<FaultDefinition['preHandler']> {
  return fingerprintedAs((body) => canonicalJson({ ...(body as SendRequest), [field]: normalise((body as SendRequest)[field]) }));
}

// The (client, key) pairs a send was answered 2xx under, per server, under idempotency.replay-lists-failed-recipients.
const answeredKeys = new WeakMap<ReferenceContext, Set<string>>();

// The (client, key) slots held in that window, per server, each with its holder's bearer token.
const heldKeys = new WeakMap<ReferenceContext, Map<string, string>>();
// Sends that arrived while the first with their key held it, under idempotency.waiter-of-refused-fails.
const waiters = new WeakSet<FastifyRequest>();

/**
 * A preHandler under which the first send with a (client, key) holds it for RACE_WINDOW_MS; a
 * send with that key arriving meanwhile is handed to `meanwhile`, with the bearer token the
 * holder came with, instead of waiting for it.
 */
function whileHeld(meanwhile: (request: FastifyRequest, holderToken: string) => void): (request: FastifyRequest, ctx: ReferenceContext) => Promise<void> {
  return async (request, ctx) => {
    const held = ofServer(heldKeys, ctx, () => new Map<string, string>());
    // A header value cannot contain NUL, so the slot names one (client, key) pair.
    const slot = keySlot(request);
    const holder = held.get(slot);
    if (holder !== undefined) {
      meanwhile(request, holder);
      return;
    }
    held.set(slot, tokenOf(request) ?? '');
    try {
      await sleep(RACE_WINDOW_MS);
    } finally {
      held.delete(slot);
    }
  };
}

/**
 * A preHandler that forgets a key whose messages' delivery events were all delivered (the safe
 * retry of such a send is taken for a first attempt), for the sends `applies` picks.
 */
function forgottenOnceReported(applies: (request: FastifyRequest) => boolean): RequestHook {
  return (request, ctx) => {
    const record = recordOf(request, ctx);
    if (!record || earlierRecord(request, ctx) !== 'same' || !applies(request)) return;
    const ids = messageIdsOf(record);
    const delivered = ctx.db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM webhook_outbox WHERE message_id = ? AND kind = 'message.delivery' AND state = 'delivered'`);
    if (ids.length > 0 && ids.every((id) => delivered.get(id)!.n > 0)) request.idempotencyKey = freshKey(request);
  };
}

export const IDEMPOTENCY_FAULTS = {
  'idempotency.repeated-key-first-wins': {
    breaks: ['IDEM-205'],
    description: 'of an Idempotency-Key header given twice, the first line is taken as the key and the send is accepted',
    route: 'POST /api/core/messages/send',
    onRequest(request) {
      const raw = request.raw.rawHeaders;
      const lines = raw.flatMap((name, i) => (i % 2 === 0 && name.toLowerCase() === 'idempotency-key' ? [i] : []));
      if (lines.length < 2) return;
      request.raw.rawHeaders = raw.filter((_, i) => !lines.slice(1).some((line) => i === line || i === line + 1));
      request.headers['idempotency-key'] = raw[lines[0]! + 1]!;
    },
  },
  'idempotency.empty-key-taken': {
    breaks: ['IDEM-106'],
    description: 'an Idempotency-Key header with an empty value is taken as the key "" (a missing header is still refused)',
    route: 'POST /api/core/messages/send',
    onRequest(request) {
      if (request.headers['idempotency-key']?.toString().trim() === '') request.headers['idempotency-key'] = '(empty)';
    },
  },
  'idempotency.replay-creates-new': {
    breaks: ['IDEM-001'],
    description: 'a retry with the same key and payload queues new messages instead of replaying',
    route: SEND,
    preHandler(request, ctx) {
      if (earlierRecord(request, ctx) === 'same') request.idempotencyKey = freshKey(request);
    },
  },
  'idempotency.replay-requeues': {
    breaks: ['IDEM-001'],
    description: 'a retry with the same key and payload answers the first messageIds, but their delivery events are sent again, as new events (new webhook-ids)',
    route: SEND,
    // The enqueue step sits outside the idempotent part: the replay hands the stored events over once more.
    preHandler(request, ctx) {
      const record = recordOf(request, ctx);
      if (record && record.fingerprint === payloadFingerprint(request.body as SendRequest)) ctx.dispatcher.dispatch(deliveryEventsAgain(ctx, messageIdsOf(record)));
    },
  },
  'idempotency.replay-revalidates': {
    breaks: ['IDEM-001'],
    description: "a retry with the same key and payload runs the sendFrom checks again before replaying, so it is refused 400 once the number has lost its campaignregId",
    route: SEND,
    preHandler(request, ctx) {
      if (earlierRecord(request, ctx) !== 'same') return;
      const body = request.body as SendRequest;
      const number = ctx.behaviour.send.resolveSendFrom(body, callerOf(request), ctx.stores.numbers);
      ctx.behaviour.send.checkNumberCapability(body, number);
    },
  },
  'idempotency.changed-payload-accepted': {
    breaks: ['IDEM-002'],
    description: 'a reused key with a changed payload is accepted as a new send',
    route: SEND,
    preHandler(request, ctx) {
      if (earlierRecord(request, ctx) === 'changed') request.idempotencyKey = freshKey(request);
    },
  },
  'idempotency.unsafe-retry-still-queued': {
    breaks: ['IDEM-002'],
    description: 'a reused key with a changed payload is refused 409 CONFLICT, but the changed payload, when valid, is still handed to the dispatcher (its delivery callbacks are sent)',
    route: SEND,
    preHandler(request, ctx) {
      if (earlierRecord(request, ctx) !== 'changed') return;
      const client = callerOf(request);
      const body = request.body as SendRequest;
      try {
        const number = ctx.behaviour.send.resolveSendFrom(body, client, ctx.stores.numbers);
        ctx.dispatcher.dispatch(buildAcceptance(ctx.behaviour.webhooks, client, number, body, '', Date.now(), ctx.options.wire).webhooks);
      } catch (error) {
        // A changed payload the checks refuse is not queued; the answer is the 409 all the same.
        if (!(error instanceof CoreError)) throw error;
      }
    },
  },
  'idempotency.keys-scoped-by-sendfrom': {
    breaks: ['IDEM-002'],
    description: "the idempotency record is filed under the key and the sendFrom number, so a key reused with another of the client's numbers as sendFrom is accepted as a new send",
    route: SEND,
    preHandler(request) {
      // A header value cannot contain NUL, so key and sendFrom stay apart.
      request.idempotencyKey = `${request.idempotencyKey}\u0000${(request.body as SendRequest).sendFrom}`;
    },
  },
  'idempotency.keys-scoped-by-message-type': {
    breaks: ['IDEM-002'],
    description: 'the idempotency record is filed under the key and the message type, so a key reused for the same message as an MMS (or an MMS as an SMS) is accepted as a new send',
    route: SEND,
    preHandler(request) {
      request.idempotencyKey = `${request.idempotencyKey}\u0000${String((request.body as SendRequest).messageType)}`;
    },
  },
  'idempotency.keys-global': {
    breaks: ['IDEM-005'],
    description: "idempotency records are kept without their client: a send under a key another client used is refused 409 CONFLICT as an unsafe retry of that client's send",
    route: SEND,
    preHandler(request, { stores, seeded }) {
      const caller = callerOf(request).apiClientId;
      const now = Date.now();
      const elsewhere = seeded.some((client) => client.apiClientId !== caller && stores.idempotency.find(client.apiClientId, request.idempotencyKey!, now) !== undefined);
      if (elsewhere && !stores.idempotency.find(caller, request.idempotencyKey!, now)) throw unsafeRetry();
    },
  },
  'idempotency.raw-bytes-fingerprint': {
    breaks: ['IDEM-004'],
    description: 'a retry is compared with the first request byte for byte: the same JSON with other whitespace or member order under the same key is refused 409 CONFLICT as an unsafe retry',
    route: SEND,
    preHandler(request, ctx) {
      // The length of the first request's body under each (client, key) stands for its bytes.
      const lengths = ofServer(firstLengths, ctx, () => new Map<string, string | undefined>());
      const slot = keySlot(request);
      const length = request.headers['content-length'];
      const earlier = earlierRecord(request, ctx);
      if (earlier === undefined) lengths.set(slot, length);
      else if (earlier === 'same' && lengths.has(slot) && lengths.get(slot) !== length) throw unsafeRetry();
    },
  },
  'idempotency.fingerprint-includes-content-type': {
    breaks: ['IDEM-004'],
    description: 'the Content-Type header, as written, is part of what a retry is compared on: the same payload under the same key labelled "application/json; charset=utf-8", or "Application/JSON", is refused 409 CONFLICT as an unsafe retry',
    route: SEND,
    preHandler(request, ctx) {
      const labels = ofServer(firstContentTypes, ctx, () => new Map<string, string | undefined>());
      const slot = keySlot(request);
      const label = request.headers['content-type'];
      const earlier = earlierRecord(request, ctx);
      if (earlier === undefined) labels.set(slot, label);
      else if (earlier === 'same' && labels.has(slot) && labels.get(slot) !== label) throw unsafeRetry();
    },
  },
  'idempotency.fingerprint-rewritten-on-replay': {
    breaks: ['IDEM-004'],
    description: "a replay overwrites its record's fingerprint with the replay's own bytes: the first retry of a send is compared as JSON, every retry after a replay byte for byte, so the same payload written another way after a replay is refused 409 CONFLICT",
    route: SEND,
    preHandler(request, ctx) {
      const lengths = ofServer(replayLengths, ctx, () => new Map<string, string | undefined>());
      const slot = keySlot(request);
      const length = request.headers['content-length'];
      if (earlierRecord(request, ctx) !== 'same') return;
      if (lengths.has(slot) && lengths.get(slot) !== length) throw unsafeRetry();
      lengths.set(slot, length);
    },
  },
  'idempotency.fingerprint-nested-order-kept': {
    breaks: ['IDEM-004'],
    description: "a payload is fingerprinted with its top-level members in order but its media items as written: an MMS retried with a media item's members in another order is refused 409 CONFLICT as an unsafe retry",
    route: SEND,
    preHandler(request, ctx) {
      const media = ofServer(firstMedia, ctx, () => new Map<string, string>());
      const slot = keySlot(request);
      const written = JSON.stringify((request.body as { media?: unknown } | null)?.media ?? null);
      const earlier = earlierRecord(request, ctx);
      if (earlier === undefined) media.set(slot, written);
      else if (earlier === 'same' && media.has(slot) && media.get(slot) !== written) throw unsafeRetry();
    },
  },
  'idempotency.invalid-unsafe-retry-drops-record': {
    breaks: ['IDEM-002'],
    description: "a key reused with a changed payload that is also invalid is refused 400, and the key's record is deleted with it: the original payload retried after that is queued again as a new send",
    route: SEND,
    answer({ request, status }, { stores, db }) {
      const key = request.headers['idempotency-key'];
      if (status !== 400 || typeof key !== 'string' || request.apiClient === null) return;
      const caller = callerOf(request).apiClientId;
      const record = stores.idempotency.find(caller, key, Date.now());
      if (record !== undefined && record.fingerprint !== payloadFingerprint(request.body as SendRequest)) db.prepare('DELETE FROM idempotency WHERE api_client_id = ? AND idempotency_key = ?').run(caller, key);
    },
  },
  'idempotency.keys-cut-to-64': {
    breaks: ['IDEM-005'],
    description: 'keys are kept cut to their first 64 characters: a new key that shares them with a used one is taken for it (a replay, or 409 for another payload)',
    route: SEND,
    preHandler(request) {
      if (request.idempotencyKey) request.idempotencyKey = request.idempotencyKey.slice(0, 64);
    },
  },
  'idempotency.fingerprint-without-whitespace': {
    breaks: ['IDEM-002'],
    description: "a payload is fingerprinted with every whitespace character removed, inside strings too: the same key with a text that differs only in its spaces replays the first send instead of being refused",
    route: SEND,
    preHandler: fingerprintedAs((body) => canonicalJson(body).replace(/\s/g, '')),
  },
  'idempotency.fingerprint-text-collapsed': {
    breaks: ['IDEM-002'],
    description: "a payload's text is fingerprinted with its runs of whitespace collapsed to one space and trimmed: the same key with a text whose space is doubled, or with a trailing space, replays the first send instead of being refused",
    route: SEND,
    preHandler: fieldFingerprintedAs('text', (text) => (typeof text === 'string' ? text.replace(/\s+/g, ' ').trim() : text)),
  },
  'idempotency.fingerprint-text-nfkc': {
    breaks: ['IDEM-002'],
    description: "a payload's text is fingerprinted in Unicode normal form NFKC: the same key with an accented letter decomposed, or a digit written full-width, replays the first send instead of being refused",
    route: SEND,
    preHandler: fieldFingerprintedAs('text', (text) => (typeof text === 'string' ? text.normalize('NFKC') : text)),
  },
  'idempotency.recipients-fingerprinted-as-a-set': {
    breaks: ['IDEM-002'],
    description: "a payload's recipients are sorted before it is fingerprinted: the same key with the same recipients in another order replays the first send instead of being refused",
    route: SEND,
    preHandler: fieldFingerprintedAs('to', (to) => (Array.isArray(to) ? [...to].sort() : to)),
  },
  'idempotency.fingerprint-without-message-type': {
    breaks: ['IDEM-002'],
    description: "a payload is fingerprinted without its messageType, and the key looked up before the payload is validated: the same key with an SMS's body sent again as an MMS replays the SMS instead of being refused",
    route: SEND,
    preValidation: fieldFingerprintedAs('messageType', () => undefined),
  },
  'idempotency.replay-lists-failed-recipients': {
    breaks: ['IDEM-101'],
    description: "a safe retry's answer names, besides the first answer's results, an error for each recipient whose message fails: the stored answer is edited with outcomes instead of replayed as it was (the messageIds stay the first answer's)",
    route: SEND,
    answer({ request, status, body }, ctx) {
      if (status < 200 || status >= 300 || !Array.isArray(body.results) || typeof request.headers['idempotency-key'] !== 'string') return;
      const seen = ofServer(answeredKeys, ctx, () => new Set<string>());
      const slot = `${callerOf(request).apiClientId}\u0000${request.headers['idempotency-key']}`;
      if (!seen.has(slot)) return void seen.add(slot);
      const failing = body.results.filter((r: { to?: unknown }) => typeof r.to === 'string' && outcomeFor(r.to).status === 'FAILED');
      if (failing.length > 0) body.errors = [...(Array.isArray(body.errors) ? body.errors : []), ...failing.map((r: { to: string }) => ({ to: r.to, code: 'UNDELIVERABLE', message: 'The message could not be delivered.' }))];
    },
  },
  'idempotency.fingerprint-absent-text-as-empty': {
    breaks: ['IDEM-002'],
    description: 'a payload without text is fingerprinted as one with text "": the same key with text "" added replays the first send instead of being refused',
    route: SEND,
    preHandler: fieldFingerprintedAs('text', (text) => text ?? ''),
  },
  'idempotency.fingerprint-media-sorted': {
    breaks: ['IDEM-002'],
    description: "a payload's media items are fingerprinted sorted: the same key with the same items in another order replays the first send instead of being refused",
    route: SEND,
    preHandler: fieldFingerprintedAs('media', (media) => (Array.isArray(media) ? media.map((item) => JSON.stringify(item)).sort().map((item) => JSON.parse(item) as unknown) : media)),
  },
  'idempotency.fingerprint-media-urls-only': {
    breaks: ['IDEM-002'],
    description: "a payload's media items are fingerprinted by their URLs alone: the same key with a media item whose contentType (any member but url) changed replays the first send instead of being refused",
    route: SEND,
    preHandler: fieldFingerprintedAs('media', (media) => (Array.isArray(media) ? media.map((item) => (item !== null && typeof item === 'object' ? (item as { url?: unknown }).url : item)) : media)),
  },
  'idempotency.in-flight-lock-per-payload': {
    breaks: ['IDEM-002'],
    description: "while a key's first send is in flight, a send with another payload under the key is taken for a new operation (the in-flight lock is keyed by the payload) and queued; once the first is answered, another payload under the key is refused as before",
    route: SEND,
    preHandler(request, ctx) {
      const flights = ofServer(inFlightPayloads, ctx, () => new Map<string, string>());
      const slot = keySlot(request);
      const fingerprint = payloadFingerprint(request.body as SendRequest);
      const first = flights.get(slot);
      if (first === undefined && recordOf(request, ctx) === undefined) {
        flights.set(slot, fingerprint);
        holdsFlight.set(request, slot);
      } else if (first !== undefined && first !== fingerprint) request.idempotencyKey = freshKey(request);
    },
    answer({ request }, ctx) {
      const slot = holdsFlight.get(request);
      if (slot !== undefined) ofServer(inFlightPayloads, ctx, () => new Map<string, string>()).delete(slot);
    },
  },
  'idempotency.keys-dropped-on-override-change': {
    breaks: ['IDEM-001'],
    description: "a number's keys are forgotten once its webhookDeliveryOverride changes: a safe retry after that queues the send again, with new messageIds (after any other change of the number, or none, it replays)",
    route: SEND,
    preHandler(request, ctx) {
      const overrides = ofServer(overridesAtFirstSend, ctx, () => new Map<string, string | null>());
      const slot = keySlot(request);
      const sendFrom = (request.body as SendRequest).sendFrom;
      const now = ctx.stores.numbers.findOwned(callerOf(request).apiClientId, sendFrom)?.webhookDeliveryOverride ?? null;
      if (!overrides.has(slot)) overrides.set(slot, now);
      else if (overrides.get(slot) !== now) request.idempotencyKey = freshKey(request);
    },
  },
  'idempotency.fingerprint-recipient-set': {
    breaks: ['IDEM-002'],
    description: "a payload's recipients are fingerprinted as a set, each once: the same key with a recipient given again beside itself replays the first send instead of being refused",
    route: SEND,
    preHandler: fieldFingerprintedAs('to', (to) => (Array.isArray(to) ? [...new Set(to)] : to)),
  },
  'idempotency.fingerprint-text-first-segment': {
    breaks: ['IDEM-002'],
    description: "a payload's text is fingerprinted by its first 160 characters (one SMS segment): the same key with a longer text changed past them replays the first send instead of being refused",
    route: SEND,
    preHandler: fieldFingerprintedAs('text', (text) => (typeof text === 'string' ? text.slice(0, 160) : text)),
  },
  'idempotency.fingerprint-reference-case-folded': {
    breaks: ['IDEM-002'],
    description: "a payload's externalReference is fingerprinted in lower case: the same key with the reference in other letter case replays the first send instead of being refused (the text is compared as written)",
    route: SEND,
    preHandler: fieldFingerprintedAs('externalReference', (reference) => (typeof reference === 'string' ? reference.toLowerCase() : reference)),
  },
  'idempotency.forgotten-after-outcome': {
    breaks: ['IDEM-001'],
    description: "a key is forgotten once its messages' delivery events were delivered: the same retry after the outcome was reported queues the messages again",
    route: SEND,
    preHandler: forgottenOnceReported(() => true),
  },
  'idempotency.forgotten-after-failed-outcome': {
    breaks: ['IDEM-001'],
    description: "a key whose messages all failed is forgotten once their FAILED events were delivered: the same retry queues the send again (a key whose messages were delivered is kept)",
    route: SEND,
    preHandler: forgottenOnceReported((request) => {
      const to = (objectBodyOf(request)?.to ?? []) as unknown[];
      return to.length > 0 && to.every((r) => typeof r === 'string' && outcomeFor(r).status === 'FAILED');
    }),
  },
  'idempotency.unauthenticated-refusal-stored': {
    breaks: ['AUTH-005'],
    description: "a send refused 401 for an expired token keeps its refusal under the key, for the client the token was issued to: the same send with a new, valid token of that client is answered the 401 again",
    route: SEND,
    async answer({ request, status, body }, { stores }) {
      const token = tokenOf(request);
      const key = request.headers['idempotency-key'];
      if (status !== 401 || token === undefined || typeof key !== 'string') return;
      // Looked up whatever its expiry: the moment 0 is before every token expires.
      const client = stores.clients.byTokenHash(tokenHash(token), 0);
      if (client) unauthenticatedRefusals.set(`${client.apiClientId}\u0000${key}`, JSON.stringify(body));
    },
    preHandler(request) {
      const refusal = unauthenticatedRefusals.get(keySlot(request));
      if (refusal !== undefined) throw unauthorized('The bearer token is unknown or expired.', true);
    },
  },
  'idempotency.replay-current-status': {
    breaks: ['IDEM-101'],
    description: "a safe retry is answered from its messages' state now: once a message has its outcome, the replay's result item carries that status (DELIVERED) instead of the first answer's QUEUED",
    route: SEND,
    answer({ request, status, body }, ctx) {
      if (status < 200 || status >= 300 || !Array.isArray(body.results) || earlierRecord(request, ctx) !== 'same') return;
      const now = ctx.db.prepare<[string], { status: string }>('SELECT status FROM messages WHERE message_id = ?');
      for (const item of body.results as Array<Record<string, unknown>>) {
        const current = typeof item.messageId === 'string' ? now.get(item.messageId)?.status : undefined;
        if (current !== undefined && 'status' in item) item.status = current;
      }
    },
  },
  'idempotency.dies-with-token': {
    breaks: ['IDEM-004'],
    description: 'a key is kept with the token that made its record, and forgotten once that token has expired: the safe retry under a new token, after the first expired, queues the send again (a retry while the first token lives is replayed)',
    route: SEND,
    preHandler(request, ctx) {
      const makers = ofServer(keyMakers, ctx, () => new Map<string, string>());
      const slot = keySlot(request);
      const token = /^Bearer\s+(\S+)/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
      const maker = makers.get(slot);
      if (maker === undefined) {
        if (!recordOf(request, ctx)) makers.set(slot, token);
        return;
      }
      if (maker !== token && !ctx.stores.clients.byTokenHash(tokenHash(maker), Date.now())) request.idempotencyKey = freshKey(request);
    },
  },
  'idempotency.keys-scoped-by-token': {
    breaks: ['IDEM-004'],
    description: "idempotency records are held per bearer token, not per client: a retry with the same key and payload under a token obtained since is queued as a new send",
    route: SEND,
    preHandler(request) {
      const token = /^Bearer\s+(\S+)/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
      request.idempotencyKey = `${request.idempotencyKey}#${token}`;
    },
  },
  'idempotency.keys-case-insensitive': {
    breaks: ['IDEM-006'],
    description: 'Idempotency-Key values are compared without regard to letter case (stored lower-cased), so a key differing from a used one only in case is answered as that key: a replay or a conflict',
    route: SEND,
    preHandler(request) {
      request.idempotencyKey = request.idempotencyKey!.toLowerCase();
    },
  },
  'idempotency.concurrent-duplicates': {
    breaks: ['IDEM-003'],
    description: 'the idempotency record is written in a later step than the lookup, so concurrent sends with one key each queue messages',
    route: SEND,
    // A send arriving while the first with its key holds it is not made to wait but gets a key of its own.
    preHandler: whileHeld((request) => {
      request.idempotencyKey = freshKey(request);
    }),
  },
  'idempotency.in-flight-lock-per-token': {
    breaks: ['IDEM-003'],
    description: 'the in-flight lock is keyed by token: a send with one key arriving while the first is in flight, under another token of the same client, gets a key of its own and queues messages again (under the same token it waits, as it should)',
    route: SEND,
    // Under the holder's token the send waits, as the reference's own in-flight wait makes it.
    preHandler: whileHeld((request, holderToken) => {
      if ((tokenOf(request) ?? '') !== holderToken) request.idempotencyKey = freshKey(request);
    }),
  },
  'idempotency.in-flight-conflict': {
    breaks: ['IDEM-204'],
    description: "a send arriving while the first with its key is in flight is answered 409 CONFLICT at once (the draft's answer, legal at document level) instead of waiting for the first's answer, as the profile's send.inFlight says",
    route: SEND,
    preHandler: whileHeld(() => {
      throw new CoreError('CONFLICT', 'A request with this Idempotency-Key is in progress; retry once it has been answered.', { header: 'Idempotency-Key' });
    }),
  },
  'idempotency.refusal-held-in-flight': {
    breaks: ['IDEM-007'],
    description: 'a refused send leaves its key and payload marked in flight: the same payload under the key is answered 409 CONFLICT ever after, also once the cause of the refusal is gone (a changed payload under the key is still a first attempt)',
    route: SEND,
    preHandler(request) {
      if (request.idempotencyKey !== undefined && refusedInFlight.has(refusedSlot(request))) throw new CoreError('CONFLICT', 'A request with this Idempotency-Key is in progress.');
    },
    answer({ request, status }) {
      if (status < 400 || status >= 500 || status === 409 || request.idempotencyKey === undefined || typeof request.body !== 'object' || request.body === null) return;
      refusedInFlight.add(refusedSlot(request));
    },
  },
  'idempotency.in-flight-invalid': {
    breaks: ['IDEM-104'],
    description: 'a send arriving while the first with its key is in flight is refused 400 INVALID_REQUEST instead of 409 or a replay (nothing is queued for it)',
    route: SEND,
    preHandler: whileHeld(() => {
      throw new CoreError('INVALID_REQUEST', 'Idempotency-Key is in use by another request.');
    }),
  },
  'idempotency.waiter-of-refused-fails': {
    breaks: ['IDEM-003'],
    description: 'a send that arrived while the first with its key was in flight, and that first was refused and stored nothing, is answered 500 (the waiter reads a record that is not there) instead of its own refusal',
    route: SEND,
    preHandler: whileHeld((request) => {
      waiters.add(request);
    }),
    answer(answer) {
      if (!waiters.has(answer.request) || answer.status !== 400) return;
      const failure = new CoreError('SERVER_ERROR', 'Cannot read properties of undefined (reading \'fingerprint\')');
      answer.status = failure.status;
      answer.body = coreErrorBody(failure, answer.request.id);
    },
  },
} satisfies Record<string, FaultDefinition>;
