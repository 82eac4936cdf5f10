// The operations of the interface document as fast-check commands over the model
// (harness/model/state.ts): token requests, whoami, the numbers list, updates accepted and
// refused, sends accepted and refused, safe and unsafe retries under every identity a request
// carries, waiting for callbacks, and waiting out a short-lived token. Each command computes
// the answers the document allows from the model (harness/model/rules.ts), sends its request
// through the real side (harness/model/world.ts), fails when the answer is not one of them, and
// moves the model; after every request that may change state, every client's list (and, after
// an update, every client's context) is read back and compared with the model, so a change
// anywhere but where the document puts it is seen.
//
// A failure is an Error whose message leads with the requirement whose clause diverged
// (`UPD-003: …`): the property runner counts it there and prints the sequence to replay.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { acceptedMessageIds, reportsQueued } from '../../generators/send-port.ts';
import { describeSpelling, jsonSpelling, PLAIN_SPELLING, spell, type JsonSpelling } from '../../generators/json-spelling.ts';
import { answerClass } from '../answer-classes.ts';
import type { ApiResponse } from '../api-client.ts';
import { unknownNumberIdLike } from '../known-numbers.ts';
import { carriesFinalStatus } from '../webhook-receiver.ts';
import {
  bearerRuling,
  either,
  judgeRuling,
  SETTABLE,
  sendRuling,
  tokenRuling,
  tokenStanding,
  updateRuling,
  type FieldCondition,
  type Firing,
  type Ruling,
  type SendConditions,
  type Settable,
} from './rules.ts';
import {
  applyUpdate,
  canonicalJson,
  capabilityOf,
  destinationOf,
  diffList,
  keepAll,
  initialState,
  numbersOf,
  registered,
  type Destination,
  type KeyRecord,
  type ModelMessage,
  type ModelState,
  type ModelToken,
  type Role,
} from './state.ts';
import type { TokenStyle } from '../basic-auth.ts';
import type { Arrival, World } from './world.ts';

export type ModelCommand = fc.AsyncCommand<ModelState, World>;

// ---- failing -------------------------------------------------------------------------------

/** Fail the sequence on these requirements; the message leads with them, as every check's does. */
function fail(ids: string | readonly string[], message: string, res?: ApiResponse): never {
  const list = typeof ids === 'string' ? [ids] : [...new Set(ids)];
  const answer = res ? `\n  request:  ${res.describe()}\n  answered: ${res.text.slice(0, 300)}` : '';
  throw new Error(`${list.join(', ')}: ${message}${answer}`);
}

/**
 * The answer must be one the ruling allows; returns the firing it satisfies. A 401 for a token
 * that certainly still lives is TOKEN-011's failure before any other: the token did not live as
 * long as its expires_in said.
 */
function expectRuling(ruling: Ruling, res: ApiResponse, what: string, token?: ModelToken, answeredAt = Date.now()): Firing {
  if (token && res.status === 401 && tokenStanding(token, answeredAt) === 'valid') {
    fail('TOKEN-011', `${what}: token t${token.label} of the ${token.role} client was refused ${((answeredAt - token.requestedAt) / 1000).toFixed(1)} s after it was asked for; its expires_in said ${token.expiresInSeconds} s`, res);
  }
  const judged = judgeRuling(ruling, { status: res.status, body: res.body });
  if (!judged.legal) fail(judged.ids.length > 0 ? judged.ids : ['ERR-002'], `${what}: answered ${res.status}; the document allows ${judged.expected}`, res);
  return judged.by!;
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

// ---- tokens --------------------------------------------------------------------------------

function tokensOf(m: ModelState, role: Role): ModelToken[] {
  return m.tokens.filter((t) => t.role === role);
}

/** The client's token a command drew (`pick`, wrapped round the tokens it has); commands run only while it has one. */
function tokenAt(m: ModelState, role: Role, pick: number): ModelToken {
  const tokens = tokensOf(m, role);
  return tokens[pick % tokens.length]!;
}

/** The ruling a token's standing adds: certainly expired, only 401; too close to say, 401 as well as the operation's answer. */
function withToken(token: ModelToken, operation: Ruling, answeredAt = Date.now()): Ruling {
  const standing = tokenStanding(token, answeredAt);
  if (standing === 'expired') return bearerRuling('expired')!;
  return either(operation, bearerRuling(standing));
}

/** Obtain a token for `role` in `style`, check the answer (4.1, 5.4) and add it to the model. */
async function obtainToken(m: ModelState, w: World, role: Role, style: TokenStyle): Promise<ModelToken> {
  const { res, requestedAt, receivedAt } = await w.requestToken(role, style);
  expectRuling(tokenRuling({ style, grantType: 'client_credentials', clientId: 'valid', secret: 'valid' }), res, `a token request of the ${role} client (${style})`);
  const body = res.body ?? {};
  if (typeof body.access_token !== 'string' || body.access_token === '') fail('TOKEN-002', `the token response carries no access_token string`, res);
  if (String(body.token_type).toLowerCase() !== 'bearer') fail('TOKEN-002', `token_type is ${JSON.stringify(body.token_type)}, not bearer`, res);
  if (!Number.isInteger(body.expires_in) || body.expires_in <= 0) fail('TOKEN-002', `expires_in is ${JSON.stringify(body.expires_in)}, not a positive integer`, res);
  const token: ModelToken = { label: m.tokens.length, role, value: body.access_token, requestedAt, receivedAt, expiresInSeconds: body.expires_in };
  m.tokens.push(token);
  return token;
}

/** A token of `role` that certainly still lives, obtained now when none does: what the model reads the state with. */
async function liveToken(m: ModelState, w: World, role: Role): Promise<ModelToken> {
  const live = tokensOf(m, role).filter((t) => tokenStanding(t, Date.now() + 500) === 'valid');
  return live[live.length - 1] ?? (await obtainToken(m, w, role, 'json'));
}

// ---- observing the state -------------------------------------------------------------------

/**
 * Read back what `roles` can observe and compare it with the model: each client's list
 * (its numbers and every settable attribute, diffList) and, with `contexts`, its context (the
 * apiClientId its tokens act for, CTX-002 and AUTH-007; the webhook flags, which no operation of
 * the interface changes, CTX-004).
 */
async function observe(m: ModelState, w: World, roles: readonly Role[], after: string, contexts = false): Promise<void> {
  // The tokens first, one after another (a token obtained now joins the model in order); then
  // every read at once: the lists and contexts are independent requests, and nothing else runs
  // against the target meanwhile (the model holds everything). Each is judged in the order of
  // the roles, as when they were read one after another, at the moment its answer came.
  const tokens: ModelToken[] = [];
  for (const role of roles) tokens.push(await liveToken(m, w, role));
  const reads = await Promise.all(roles.map(async (_, i) => {
    const [list, context] = await Promise.all([w.list(tokens[i]!.value), contexts ? askContext(w, tokens[i]!) : undefined]);
    return { list, context };
  }));
  for (const [i, role] of roles.entries()) {
    const token = tokens[i]!;
    const { res, items } = reads[i]!.list;
    if (!isSuccess(res.status) || items === null) fail('NUM-001', `after ${after}, the ${role} client's numbers list (token t${token.label}) did not answer a list`, res);
    const divergences = diffList(m, role, items!);
    if (divergences.length > 0) fail(divergences.map((d) => d.id), `after ${after}, the ${role} client's list differs from the model:\n    ${divergences.map((d) => `${d.id}: ${d.what}`).join('\n    ')}`, res);
    const context = reads[i]!.context;
    if (context) judgeContext(m, role, token, after, context);
  }
}

/** whoami with `token`, and when its answer came. */
async function askContext(w: World, token: ModelToken): Promise<{ res: ApiResponse; answeredAt: number }> {
  const res = await w.core('whoami', { token: token.value });
  return { res, answeredAt: Date.now() };
}

/** whoami with `token` answers for the token's client, with the flags it first showed. */
async function checkContext(m: ModelState, w: World, role: Role, token: ModelToken, after: string): Promise<ApiResponse> {
  return judgeContext(m, role, token, after, await askContext(w, token));
}

/** checkContext's judgement of an answer whoami gave at `answeredAt`. */
function judgeContext(m: ModelState, role: Role, token: ModelToken, after: string, { res, answeredAt }: { res: ApiResponse; answeredAt: number }): ApiResponse {
  expectRuling(withToken(token, { firings: [{ id: 'CTX-001', clause: '4.2', answer: { kind: 'accept' } }] }, answeredAt), res, `whoami of the ${role} client with token t${token.label}`, token, answeredAt);
  if (!isSuccess(res.status)) return res;
  const body = res.body ?? {};
  const client = (m.clients[role] ??= {});
  const flags = { inboundWebhookConfigured: body.inboundWebhookConfigured, deliveryWebhookConfigured: body.deliveryWebhookConfigured };
  if (client.apiClientId === undefined) {
    client.apiClientId = body.apiClientId;
    client.flags = flags;
    for (const [other, known] of Object.entries(m.clients)) {
      if (other !== role && known.apiClientId !== undefined && known.apiClientId === body.apiClientId) fail('CTX-002', `the ${role} and ${other} clients both see apiClientId ${JSON.stringify(body.apiClientId)}`, res);
    }
    return res;
  }
  if (body.apiClientId !== client.apiClientId) fail(['AUTH-007', 'CTX-002'], `${after}: token t${token.label} of the ${role} client acts for apiClientId ${JSON.stringify(body.apiClientId)}, its client is ${JSON.stringify(client.apiClientId)}`, res);
  if (canonicalJson(flags) !== canonicalJson(client.flags)) fail('CTX-004', `${after}: the ${role} client's webhook flags are ${JSON.stringify(flags)}, they were ${JSON.stringify(client.flags)} and no operation of the interface changes the client's webhooks`, res);
  return res;
}

// ---- the commands --------------------------------------------------------------------------

/** ObtainToken: a token request with valid credentials in one of the three ways of section 5 rule 1. */
export class ObtainTokenCommand implements ModelCommand {
  constructor(
    readonly role: Role,
    readonly style: TokenStyle,
  ) {}
  check = (m: Readonly<ModelState>) => m.clients[this.role] !== undefined;
  async run(m: ModelState, w: World): Promise<void> {
    await obtainToken(m, w, this.role, this.style);
  }
  toString = () => `ObtainToken(${this.role}, ${this.style})`;
}

/** Whoami with one of the client's tokens: it acts for its client while it lives (AUTH-007, CTX-002), and is refused once expired (AUTH-003). */
export class WhoamiCommand implements ModelCommand {
  constructor(
    readonly role: Role,
    readonly tokenPick: number,
  ) {}
  check = (m: Readonly<ModelState>) => tokensOf(m as ModelState, this.role).length > 0;
  async run(m: ModelState, w: World): Promise<void> {
    await checkContext(m, w, this.role, tokenAt(m, this.role, this.tokenPick), 'whoami');
  }
  toString = () => `Whoami(${this.role}, t#${this.tokenPick})`;
}

/** The numbers list with one of the client's tokens: the client's numbers as the model holds them. */
export class ListCommand implements ModelCommand {
  constructor(
    readonly role: Role,
    readonly tokenPick: number,
  ) {}
  check = (m: Readonly<ModelState>) => tokensOf(m as ModelState, this.role).length > 0;
  async run(m: ModelState, w: World): Promise<void> {
    const token = tokenAt(m, this.role, this.tokenPick);
    const { res, items } = await w.list(token.value);
    expectRuling(withToken(token, { firings: [{ id: 'NUM-001', clause: '4.3', answer: { kind: 'accept' } }] }), res, `the ${this.role} client's numbers list with token t${token.label}`, token);
    if (!isSuccess(res.status)) return;
    if (items === null) fail('NUM-001', 'the numbers list is not at routes.numbers.itemsPath', res);
    const divergences = diffList(m, this.role, items!);
    if (divergences.length > 0) fail(divergences.map((d) => d.id), `the ${this.role} client's list (token t${token.label}) differs from the model:\n    ${divergences.map((d) => `${d.id}: ${d.what}`).join('\n    ')}`, res);
  }
  toString = () => `List(${this.role}, t#${this.tokenPick})`;
}

/** Whose number an update names. */
export type UpdateTarget = { whose: 'own' | 'other'; pick: number } | { whose: 'unknown' };

/** The label of a number's channels: its place in the model, so channel paths carry nothing of a vendor's identifiers. */
function channelLabel(m: ModelState, numberId: string): string {
  const index = [...m.numbers.keys()].indexOf(numberId);
  return index < 0 ? 'unlisted' : `n${index}`;
}

/** Values of another JSON type than section 2 gives each attribute. */
const WRONG_FOR_STRING: readonly unknown[] = [42, true, { value: 'x' }, ['x']];
const WRONG_FOR_BOOLEAN: readonly unknown[] = ['true', 1, null, { value: true }, [true]];

/**
 * Update: an update naming some settable attributes, each given a value of its type, null, or a
 * value of another type, of the caller's own number, another client's, or one never issued
 * (4.5). Accepted, exactly those attributes change; refused, nothing anywhere changes.
 */
export class UpdateCommand implements ModelCommand {
  constructor(
    readonly actor: Role,
    readonly number: UpdateTarget,
    readonly fields: Readonly<Record<Settable, FieldCondition>>,
    readonly valuePick: number,
    readonly tokenPick: number,
    readonly spelling: JsonSpelling,
  ) {}

  check = (m: Readonly<ModelState>) => {
    const state = m as ModelState;
    if (this.actor === 'brief' || tokensOf(state, this.actor).length === 0) return false;
    const target = this.resolve(state);
    if (target === undefined) return false;
    // Only attributes the list shows are sent (they can be seen to change, and put back
    // afterwards); an update that names none of them is the empty update, a request of its own (UPD-003).
    return true;
  };

  private resolve(m: ModelState): { kind: 'number'; numberId: string; owner: Role; shown: readonly Settable[] } | { kind: 'unknown'; numberId: string } | undefined {
    if (this.number.whose === 'unknown') {
      const like = numbersOf(m, this.actor)[0]?.numberId;
      return like === undefined ? undefined : { kind: 'unknown', numberId: unknownNumberIdLike(like) };
    }
    const pool = this.number.whose === 'own' ? numbersOf(m, this.actor) : [...m.numbers.values()].filter((n) => n.owner !== this.actor);
    const n = pool[this.number.pick % Math.max(pool.length, 1)];
    return n && { kind: 'number', numberId: n.numberId, owner: n.owner, shown: Object.keys(n.settings) as Settable[] };
  }

  /** The body, each attribute the list shows by its condition, and the condition each value is of. */
  private build(m: ModelState, w: World, numberId: string, shown: readonly Settable[]): { body: Record<string, unknown>; conditions: Record<Settable, FieldCondition> } {
    const body: Record<string, unknown> = {};
    const conditions = Object.fromEntries(SETTABLE.map((f) => [f, 'absent'])) as Record<Settable, FieldCondition>;
    let pick = this.valuePick;
    const next = (n: number) => {
      const i = pick % n;
      pick = Math.floor(pick / n) + 7;
      return i;
    };
    const registrations = [...new Set(numbersOf(m, this.actor).map((n) => n.settings.campaignregId).filter((c): c is string => typeof c === 'string' && c !== ''))];
    for (const field of SETTABLE) {
      const condition = this.fields[field];
      if (condition === 'absent' || !shown.includes(field)) continue;
      conditions[field] = condition;
      if (condition === 'null') body[field] = null;
      else if (condition === 'wrong-type') {
        const pool = field === 'smsEnabled' || field === 'mmsEnabled' ? WRONG_FOR_BOOLEAN : WRONG_FOR_STRING;
        body[field] = pool[next(pool.length)];
      } else if (field === 'smsEnabled' || field === 'mmsEnabled') body[field] = next(2) === 0;
      else if (field === 'campaignregId') {
        // A server may accept only campaigns it registered: a value one of the client's own numbers carries.
        body[field] = registrations.length === 0 ? null : registrations[next(registrations.length)];
        if (registrations.length === 0) conditions[field] = 'null';
      } else {
        body[field] = w.channelUrl(`${channelLabel(m, numberId)}-${field === 'webhookDeliveryOverride' ? 'd' : 'i'}${next(2)}`);
      }
    }
    return { body, conditions };
  }

  async run(m: ModelState, w: World): Promise<void> {
    const target = this.resolve(m)!;
    const token = tokenAt(m, this.actor, this.tokenPick);
    const shown = target.kind === 'number' ? target.shown : SETTABLE;
    const { body, conditions } = this.build(m, w, target.numberId, shown);
    const ruling = withToken(token, updateRuling({ number: target.kind === 'unknown' ? 'unknown' : target.owner === this.actor ? 'own' : 'foreign', fields: conditions }));
    const bytes = spell(body, this.spelling);
    const res = await w.core('update', { token: token.value, params: { numberId: target.numberId }, body: bytes });
    const what = `the ${this.actor} client's update of ${target.kind === 'unknown' ? `never-issued ${target.numberId}` : `${target.owner === this.actor ? 'its own' : `the ${target.owner} client's`} number ${target.numberId}`} with ${bytes} (spelling: ${describeSpelling(this.spelling)})`;
    const by = expectRuling(ruling, res, what, token);
    if (by.answer.kind === 'accept' && isSuccess(res.status)) {
      applyUpdate(m, target.numberId, body as Partial<Record<Settable, unknown>>);
    } else {
      // A refusal changes nothing, anywhere (UPD-002, UPD-005, UPD-006).
      keepAll(m, by.answer.kind === 'accept' ? 'AUTH-003' : by.id);
    }
    // The whole observable state of every client: the updated number, its neighbours, the contexts.
    const roles = [...new Set<Role>(['primary', ...(m.clients.secondary ? ['secondary' as Role] : []), ...(target.kind === 'number' ? [target.owner] : [])])];
    await observe(m, w, roles, what, true);
  }
  toString = () => `Update(${this.actor}, ${this.number.whose}${'pick' in this.number ? `#${this.number.pick}` : ''}, ${JSON.stringify(this.fields)}, v#${this.valuePick}, t#${this.tokenPick}, ${describeSpelling(this.spelling)})`;
}

/** One way a send breaks a rule of section 4.6, or none. */
export type SendDefect =
  | 'no-key'
  | 'media-on-sms'
  | 'empty-media-on-sms'
  | 'no-media-on-mms'
  | 'other-message-type'
  | 'invalid-recipient'
  | 'mixed-recipients'
  | 'empty-to'
  | 'no-reference'
  | 'scalar-to'
  | 'e164-send-from'
  | 'unknown-send-from';

export const SEND_DEFECTS: readonly SendDefect[] = [
  'no-key',
  'media-on-sms',
  'empty-media-on-sms',
  'no-media-on-mms',
  'other-message-type',
  'invalid-recipient',
  'mixed-recipients',
  'empty-to',
  'no-reference',
  'scalar-to',
  'e164-send-from',
  'unknown-send-from',
];

export interface SendShape {
  actor: 'primary' | 'secondary';
  /** The sendFrom: one of the actor's numbers, or any listed number (another client's too). */
  from: { whose: 'own' | 'any'; pick: number };
  messageType: 'SMS' | 'MMS';
  defect: SendDefect | null;
  recipients: 1 | 2;
  recipientPick: number;
  /** Send to the number of triggers.inbound (loopback), so inbound traffic arrives there. */
  loopback: boolean;
  tokenPick: number;
  spelling: JsonSpelling;
}

/** The E.164 strings the model may send to: the target's recipients and, for loopback, the inbound number. */
function validRecipients(w: World): Set<string> {
  const inbound = w.options.inbound;
  return new Set([...w.options.recipients.delivered, ...w.options.recipients.failing, ...(inbound?.kind === 'loopback' ? [inbound.phone] : [])]);
}

/** The conditions of section 4.6 a body meets in the model's state (rules.ts SendConditions). */
export function sendConditions(m: ModelState, w: World, actor: Role, body: Record<string, unknown>, keyPresent: boolean): SendConditions {
  const valid = validRecipients(w);
  const type = body.messageType;
  const messageType: SendConditions['messageType'] = type === undefined ? 'absent' : typeof type !== 'string' ? 'wrong-type' : type === 'SMS' || type === 'MMS' ? type : 'other';
  const media: SendConditions['media'] = body.media === undefined ? 'absent' : Array.isArray(body.media) && body.media.length === 0 ? 'empty' : 'present';
  const from = body.sendFrom;
  const number = typeof from === 'string' ? m.numbers.get(from) : undefined;
  let sendFrom: SendConditions['sendFrom'];
  if (from === undefined) sendFrom = 'absent';
  else if (typeof from !== 'string') sendFrom = 'wrong-type';
  else if (/^\+[1-9]\d{1,14}$/.test(from)) sendFrom = 'e164';
  else if (number === undefined) sendFrom = 'unknown';
  else if (number.owner !== actor) sendFrom = 'foreign';
  else sendFrom = registered(number) === false ? 'unregistered' : 'owned';
  const to = body.to;
  let toCondition: SendConditions['to'];
  if (to === undefined) toCondition = 'absent';
  else if (!Array.isArray(to)) toCondition = 'wrong-type';
  else if (to.length === 0) toCondition = 'empty';
  else {
    const good = to.filter((r) => typeof r === 'string' && valid.has(r)).length;
    toCondition = good === to.length ? 'valid' : good === 0 ? 'invalid' : 'mixed';
  }
  const ref = body.externalReference;
  const text = body.text;
  const capability = number && number.owner === actor && (messageType === 'SMS' || messageType === 'MMS') ? capabilityOf(number, messageType) : 'enabled';
  return {
    key: keyPresent ? 'present' : 'absent',
    messageType,
    media,
    sendFrom,
    to: toCondition,
    externalReference: ref === undefined ? 'absent' : typeof ref === 'string' ? 'present' : 'wrong-type',
    text: text === undefined ? 'absent' : typeof text === 'string' ? 'present' : 'wrong-type',
    capability,
  };
}

/** The ruling on a send body in the model's state (a number whose registration the list does not show may be either). */
function rulingForSend(m: ModelState, w: World, actor: Role, body: Record<string, unknown>, keyPresent: boolean): Ruling {
  const conditions = sendConditions(m, w, actor, body, keyPresent);
  const number = typeof body.sendFrom === 'string' ? m.numbers.get(body.sendFrom) : undefined;
  if (conditions.sendFrom === 'owned' && number && registered(number) === 'unknown') {
    const unregistered = sendRuling({ ...conditions, sendFrom: 'unregistered' }).firings.map((f) => ({ ...f, open: true }));
    return either(sendRuling(conditions), { firings: unregistered });
  }
  return sendRuling(conditions);
}

/** A marker that names one send, with the run's mark: its externalReference and (for inbound traffic) its text. */
function marker(w: World, kind: string): string {
  return `conformance-${w.options.mark()}-model-${kind}-${randomUUID().slice(0, 8)}`;
}

/**
 * Send a body as `actor` under `key` (none: no Idempotency-Key) and move the model: an accepted
 * send's messages and where their outcome may go, a refused one's externalReference, the key's
 * record. `expected` is the ruling the answer is judged by; `onAccept` checks an accepted answer
 * further (a replay's messageIds).
 */
async function sendAndRecord(
  m: ModelState,
  w: World,
  args: { actor: Role; token: ModelToken; key: string | undefined; body: Record<string, unknown>; bytes: string; ruling: Ruling; what: string; refusedAs: string },
): Promise<{ res: ApiResponse; accepted: boolean; ids: string[] }> {
  const { token, key, body, bytes, ruling, what } = args;
  const res = await w.core('send', { token: token.value, body: bytes, ...(key !== undefined && { headers: { 'idempotency-key': key } }) });
  const by = expectRuling(withToken(token, ruling), res, what, token);
  const ids = acceptedMessageIds(res.body);
  const accepted = isSuccess(res.status);
  if (!accepted) {
    if (ids.length > 0) fail(by.id, `${what}: refused ${res.status}, yet the answer reports messageIds ${ids.join(', ')}`, res);
    if (typeof body.externalReference === 'string') m.refused.set(body.externalReference, args.refusedAs);
  } else {
    // Every accepted answer, new or replayed, to one recipient or several, SMS or MMS: results
    // and errors are arrays, errors empty since nothing failed (4.6, response body).
    const answer = res.body as { results?: unknown; errors?: unknown } | undefined;
    if (!Array.isArray(answer?.results) || !Array.isArray(answer?.errors) || answer.errors.length > 0) {
      fail('SEND-009', `${what}: accepted ${res.status}, but the answer does not carry results and errors arrays with errors empty: results ${JSON.stringify(answer?.results)?.slice(0, 120)}, errors ${JSON.stringify(answer?.errors)?.slice(0, 120)}`, res);
    }
  }
  return { res, accepted, ids };
}

/** Record an accepted new send's messages (rule 7) and, for a loopback, the inbound traffic it brings about. */
function recordMessages(m: ModelState, w: World, actor: Role, body: Record<string, unknown>, ids: string[], res: ApiResponse, what: string): void {
  if (ids.length === 0) fail('SEND-008', `${what}: accepted, but the answer names no messageId`, res);
  if (new Set(ids).size !== ids.length) fail('SEND-008', `${what}: the messageIds of the answer are not distinct: ${ids.join(', ')}`, res);
  const reused = ids.filter((id) => m.messages.has(id));
  if (reused.length > 0) fail('SEND-008', `${what}: a new send was answered with messageIds of earlier sends: ${reused.join(', ')}`, res);
  if (!reportsQueued(res.body)) fail('SEND-008', `${what}: the answer does not report QUEUED (a property of the answer, or of each result item with a messageId)`, res);
  const sendFrom = body.sendFrom as string;
  for (const messageId of ids) {
    m.messages.set(messageId, { messageId, owner: actor, sendFrom, externalReference: String(body.externalReference), destinations: new Set([destinationOf(m, sendFrom, 'delivery')]), retried: false, reported: false });
  }
  const inbound = w.options.inbound;
  if (inbound?.kind === 'loopback' && Array.isArray(body.to) && body.to.includes(inbound.phone)) {
    m.inbound.push({ marker: String(body.text), numberId: inbound.numberId, destinations: new Set([destinationOf(m, inbound.numberId, 'inbound')]), outbound: ids, reported: false });
  }
}

/**
 * Send: a send of the actor's, valid or with one defect, from one of its numbers or any listed
 * number, SMS or MMS, to one or two recipients (or, for loopback, the inbound number), under a
 * new key, its body spelled in one of the ways JSON allows. The number's state decides rules 4
 * and 5 (ownership, campaignregId) as the model holds it now.
 */
export class SendCommand implements ModelCommand {
  constructor(readonly shape: SendShape) {}

  check = (m: Readonly<ModelState>) => {
    const s = this.shape;
    const state = m as ModelState;
    if (!state.clients[s.actor] || tokensOf(state, s.actor).length === 0) return false;
    if (this.sendFrom(state) === undefined) return false;
    return !s.loopback || s.actor === 'primary';
  };

  private sendFrom(m: ModelState): string | undefined {
    const pool = this.shape.from.whose === 'own' ? numbersOf(m, this.shape.actor) : [...m.numbers.values()];
    return pool[this.shape.from.pick % Math.max(pool.length, 1)]?.numberId;
  }

  async run(m: ModelState, w: World): Promise<void> {
    const s = this.shape;
    const token = tokenAt(m, s.actor, s.tokenPick);
    const inbound = w.options.inbound;
    const loopback = s.loopback && inbound?.kind === 'loopback' && this.sendFrom(m) !== inbound.numberId;
    const recipients = [...w.options.recipients.delivered, ...w.options.recipients.failing];
    const to = loopback ? [inbound.phone] : Array.from({ length: s.recipients }, (_, i) => recipients[(s.recipientPick + i) % recipients.length]!).filter((r, i, all) => all.indexOf(r) === i);
    const reference = marker(w, 'send');
    const body: Record<string, unknown> = {
      sendFrom: this.sendFrom(m)!,
      to,
      messageType: s.messageType,
      text: `Conformance model ${reference}`,
      externalReference: reference,
      ...(s.messageType === 'MMS' && { media: w.target.mediaSample }),
    };
    let key: string | undefined = randomUUID();
    switch (s.defect) {
      case 'no-key':
        key = undefined;
        break;
      case 'media-on-sms':
        body.messageType = 'SMS';
        body.media = w.target.mediaSample;
        break;
      case 'empty-media-on-sms':
        body.messageType = 'SMS';
        body.media = [];
        break;
      case 'no-media-on-mms':
        body.messageType = 'MMS';
        delete body.media;
        break;
      case 'other-message-type':
        body.messageType = ['TEXT', 'sms', 'Sms', 'SMS ', ''][s.recipientPick % 5];
        delete body.media;
        break;
      case 'invalid-recipient':
        body.to = [['12025550100', '+1 202 555 0100', '+02025550100', '++12025550100', '+1202555010012345'][s.recipientPick % 5]];
        break;
      case 'mixed-recipients':
        body.to = [...to, '2025550100'];
        break;
      case 'empty-to':
        body.to = [];
        break;
      case 'no-reference':
        delete body.externalReference;
        break;
      case 'scalar-to':
        body.to = to[0];
        break;
      case 'e164-send-from': {
        const phones = [...m.numbers.values()].flatMap((n) => n.phones);
        body.sendFrom = phones[s.recipientPick % Math.max(phones.length, 1)] ?? '+12025550199';
        break;
      }
      case 'unknown-send-from':
        body.sendFrom = unknownNumberIdLike(String(body.sendFrom));
        break;
      case null:
        break;
    }
    if (body.messageType === 'MMS' && s.defect !== 'no-media-on-mms' && (w.target.mediaSample.length === 0)) return;
    const bytes = spell(body, s.spelling);
    const ruling = rulingForSend(m, w, s.actor, body, key !== undefined);
    const what = `a send of the ${s.actor} client${s.defect ? ` (${s.defect})` : ''} with ${bytes} (spelling: ${describeSpelling(s.spelling)}, key ${key === undefined ? 'none' : 'new'}, token t${token.label})`;
    const refusedAs = 'SEND-015';
    const { res, accepted, ids } = await sendAndRecord(m, w, { actor: s.actor, token, key, body, bytes, ruling, what, refusedAs });
    if (accepted) recordMessages(m, w, s.actor, body, ids, res, what);
    if (key !== undefined) {
      m.keys.push({ label: m.keys.length, owner: s.actor, key, bytes, canonical: canonicalJson(body), body, outcome: accepted ? { kind: 'accepted', status: res.status, messageIds: ids } : { kind: 'refused', status: res.status } });
    }
    // A send changes no number's settings (only the update route does: NUM-006).
    keepAll(m, 'NUM-006');
    await observe(m, w, m.clients.secondary ? ['primary', 'secondary'] : ['primary'], what);
  }
  toString = () => `Send(${JSON.stringify({ ...this.shape, spelling: describeSpelling(this.shape.spelling) })})`;
}

/**
 * Inbound: the control plane delivers inbound traffic to its number (triggers.inbound, kind
 * control); it must arrive at the number's webhookInboundOverride, else the client's inbound
 * webhook (WH-004, WH-005). With kind loopback, a Send to the number does the same.
 */
export class InboundCommand implements ModelCommand {
  check = (m: Readonly<ModelState>) => m.clients.primary !== undefined;
  async run(m: ModelState, w: World): Promise<void> {
    const way = w.options.inbound;
    if (way?.kind !== 'control') return;
    const text = `Conformance model ${marker(w, 'inbound')}`;
    await way.deliver(text);
    m.inbound.push({ marker: text, numberId: way.numberId, destinations: new Set([destinationOf(m, way.numberId, 'inbound')]), outbound: [], reported: false });
  }
  toString = () => 'Inbound()';
}

/**
 * Search: the search the target accepts, with one of the primary client's tokens and its JSON
 * spelled any way (SEARCH-001, ERR-007), or one its sandbox answers as an upstream failure:
 * 502 UPSTREAM_ERROR with details.providerStatus (SEARCH-002). A search changes nothing.
 */
export class SearchCommand implements ModelCommand {
  constructor(
    readonly failurePick: number | null,
    readonly tokenPick: number,
    readonly spelling: JsonSpelling,
    /** Another search than the accepted one: its shape is checked if the target takes it. */
    readonly candidatePick: number | null = null,
  ) {}
  check = (m: Readonly<ModelState>) => tokensOf(m as ModelState, 'primary').length > 0;
  async run(m: ModelState, w: World): Promise<void> {
    const search = w.options.search;
    if (!search) return;
    const token = tokenAt(m, 'primary', this.tokenPick);
    const failure = this.failurePick === null || search.failures.length === 0 ? undefined : search.failures[this.failurePick % search.failures.length]!;
    const candidate = failure === undefined && this.candidatePick !== null && search.candidates.length > 0 ? search.candidates[this.candidatePick % search.candidates.length]! : undefined;
    const body = candidate ?? { ...search.accepted, ...failure?.body };
    const bytes = spell(body, this.spelling);
    const res = await w.core('search', { token: token.value, body: bytes, ...(failure?.headers && { headers: failure.headers }) });
    const what = `a search ${bytes}${failure ? ' the sandbox answers as an upstream failure' : ''} with token t${token.label}`;
    if (failure === undefined) {
      // Which fields a search needs is open (4.4): another search may be refused as a request defect, never otherwise.
      const open = candidate ? [{ id: 'SEARCH-001', clause: '4.4 (which fields are required: not shown)', answer: { kind: 'class', classes: ['request-defect'] } as const, open: true }] : [];
      expectRuling(withToken(token, { firings: [{ id: 'SEARCH-001', clause: '4.4', answer: { kind: 'accept' } }, ...open] }), res, what, token);
      return;
    }
    expectRuling(withToken(token, { firings: [{ id: 'SEARCH-002', clause: '4.4; 7.2', answer: { kind: 'core', status: 502, code: 'UPSTREAM_ERROR' } }] }), res, what, token);
    if (res.status !== 502) return;
    const providerStatus: unknown = res.body?.error?.details?.providerStatus;
    if (providerStatus === undefined || providerStatus === null) fail('SEARCH-002', `${what}: details.providerStatus is missing`, res);
    if (failure.providerStatus !== undefined && String(providerStatus) !== String(failure.providerStatus)) fail('SEARCH-002', `${what}: details.providerStatus is ${JSON.stringify(providerStatus)}, the upstream answered ${failure.providerStatus}`, res);
  }
  toString = () => `Search(${this.failurePick !== null ? `failure #${this.failurePick}` : this.candidatePick !== null ? `candidate #${this.candidatePick}` : 'accepted'}, t#${this.tokenPick}, ${describeSpelling(this.spelling)})`;
}

/** The fields a changed retry changes, one at a time. */
export type PayloadField = 'externalReference' | 'text' | 'recipient' | 'sendFrom' | 'media';
export const PAYLOAD_FIELDS: readonly PayloadField[] = ['externalReference', 'text', 'recipient', 'sendFrom', 'media'];

/** How a retry differs from the request that first used the key. */
export type RetryVariation =
  /** The same bytes, with one of the client's tokens: the safe retry (IDEM-001). */
  | 'same'
  /** The same bytes with a token obtained now: a retry after a refresh is still the client's safe retry (section 5 rule 5; IDEM-004). */
  | 'new-token'
  /** The same JSON in other bytes: never a new operation (IDEM-004). */
  | 'respelled'
  /** A changed payload: the unsafe retry (IDEM-002). */
  | 'changed'
  /** Another client's own valid send under the same key string: its own first attempt, never the first client's (IDEM-005). */
  | 'other-client';

export const RETRY_VARIATIONS: readonly RetryVariation[] = ['same', 'new-token', 'respelled', 'changed', 'other-client'];

/** Retry: a request under a key the model holds a record for, varied in one way. */
export class RetryCommand implements ModelCommand {
  constructor(
    readonly keyPick: number,
    readonly variation: RetryVariation,
    readonly change: PayloadField,
    readonly tokenPick: number,
    readonly spelling: JsonSpelling,
  ) {}

  check = (m: Readonly<ModelState>) => {
    const state = m as ModelState;
    if (state.keys.length === 0) return false;
    if (this.variation !== 'other-client') return true;
    const record = state.keys[this.keyPick % state.keys.length]!;
    const other: Role = record.owner === 'primary' ? 'secondary' : 'primary';
    // Once the other client has sent under the key string, it is that client's key too: another
    // send of its own under it is its own retry (the variations above), not a first attempt.
    if (state.keys.some((k) => k.owner === other && k.key === record.key)) return false;
    return state.clients[other] !== undefined && numbersOf(state, other).length > 0;
  };

  async run(m: ModelState, w: World): Promise<void> {
    const record = m.keys[this.keyPick % m.keys.length]!;
    if (this.variation === 'other-client') return this.otherClient(m, w, record);
    const actor = record.owner;
    const token = this.variation === 'new-token' ? await obtainToken(m, w, actor, 'json') : tokensOf(m, actor)[this.tokenPick % tokensOf(m, actor).length]!;
    let body = record.body;
    let bytes = record.bytes;
    if (this.variation === 'respelled') bytes = spell(body, this.spelling);
    if (this.variation === 'changed') {
      body = changed(record.body, this.change, w, m);
      bytes = spell(body, this.spelling);
    }
    const sameBytes = bytes === record.bytes;
    const samePayload = canonicalJson(body) === record.canonical;
    const fresh = rulingForSend(m, w, actor, body, true);
    const unsafe: Firing = { id: 'IDEM-002', clause: '4.6 rule 8', answer: { kind: 'class', classes: ['request-defect', 'conflict'] } };
    const what = `a retry (${this.variation}${this.variation === 'changed' ? `: ${this.change}` : ''}) of key k${record.label} by the ${actor} client with ${bytes} (token t${token.label})`;
    let ruling: Ruling;
    if (record.outcome.kind === 'accepted') {
      const replay: Firing = { id: this.variation === 'same' && sameBytes ? 'IDEM-001' : 'IDEM-004', clause: '4.6 rule 8', answer: { kind: 'accept' } };
      // The same JSON, in these bytes or others, under any of the client's tokens: the safe retry. A changed payload: unsafe.
      ruling = samePayload ? { firings: [replay] } : { firings: [unsafe] };
    } else {
      // The first attempt was refused: whether a refusal claims its key is open (the profile's
      // IDEM-203), so the retry may be judged afresh, replay the refusal, or (changed) be unsafe.
      const replayRefusal: Firing = { id: 'IDEM-001', clause: '4.6 rule 8', answer: { kind: 'class', classes: [answerClass(record.outcome.status)] }, open: true };
      ruling = either(fresh, { firings: samePayload ? [replayRefusal] : [{ ...unsafe, open: true }] });
    }
    const refusedAs = samePayload ? 'SEND-015' : 'IDEM-002';
    const { res, accepted, ids } = await sendAndRecord(m, w, { actor, token, key: record.key, body, bytes, ruling, what, refusedAs });
    if (accepted) {
      if (record.outcome.kind === 'accepted') {
        const first = record.outcome.messageIds;
        if (ids.length !== first.length || ids.some((id, i) => id !== first[i])) fail(this.variation === 'same' ? 'IDEM-001' : 'IDEM-004', `${what}: accepted with messageIds [${ids.join(', ')}], the key's first answer was [${record.outcome.messageIds.join(', ')}]: a second operation`, res);
        for (const id of ids) {
          const message = m.messages.get(id);
          if (message) message.retried = true;
        }
      } else {
        // A refused first attempt judged afresh and accepted: a new operation under the key.
        recordMessages(m, w, actor, body, ids, res, what);
        Object.assign(record, { body, bytes, canonical: canonicalJson(body), outcome: { kind: 'accepted', status: res.status, messageIds: ids } });
      }
    }
    keepAll(m, 'NUM-006');
    await observe(m, w, m.clients.secondary ? ['primary', 'secondary'] : ['primary'], what);
  }

  private async otherClient(m: ModelState, w: World, record: KeyRecord): Promise<void> {
    const actor: Role = record.owner === 'primary' ? 'secondary' : 'primary';
    const token = (tokensOf(m, actor)[this.tokenPick % Math.max(tokensOf(m, actor).length, 1)]) ?? (await obtainToken(m, w, actor, 'json'));
    const own = numbersOf(m, actor).find((n) => registered(n) === true && capabilityOf(n, 'SMS') === 'enabled');
    if (!own) return;
    const reference = marker(w, 'other-client');
    const body: Record<string, unknown> = { sendFrom: own.numberId, to: [w.options.recipients.delivered[0]!], messageType: 'SMS', text: `Conformance model ${reference}`, externalReference: reference };
    const bytes = spell(body, this.spelling);
    // A key is the client's (IDEM-005): the other client's first send under the key string is a
    // first attempt, judged by rules 1 to 7 alone, and never answered with the first client's messages.
    const ruling = { firings: rulingForSend(m, w, actor, body, true).firings.map((f) => (f.answer.kind === 'accept' && !f.open ? { ...f, id: 'IDEM-005', clause: '4.6 rules 7, 8' } : f)) };
    const what = `the ${actor} client's own send under the ${record.owner} client's key k${record.label} (${bytes})`;
    const { res, accepted, ids } = await sendAndRecord(m, w, { actor, token, key: record.key, body, bytes, ruling, what, refusedAs: 'IDEM-002' });
    if (accepted) {
      const theirs = record.outcome.kind === 'accepted' ? ids.filter((id) => (record.outcome as { messageIds: string[] }).messageIds.includes(id)) : [];
      if (theirs.length > 0) fail('IDEM-005', `${what}: answered with the ${record.owner} client's messageIds ${theirs.join(', ')}`, res);
      recordMessages(m, w, actor, body, ids, res, what);
      m.keys.push({ label: m.keys.length, owner: actor, key: record.key, bytes, canonical: canonicalJson(body), body, outcome: { kind: 'accepted', status: res.status, messageIds: ids } });
    }
    keepAll(m, 'NUM-006');
    await observe(m, w, ['primary', 'secondary'], what);
  }

  toString = () => `Retry(k#${this.keyPick}, ${this.variation}${this.variation === 'changed' ? `:${this.change}` : ''}, t#${this.tokenPick}, ${describeSpelling(this.spelling)})`;
}

/** A payload that differs from `body` in one field (valid, where the field allows). */
function changed(body: Record<string, unknown>, field: PayloadField, w: World, m: ModelState): Record<string, unknown> {
  switch (field) {
    case 'sendFrom': {
      // Another of the client's own numbers: a changed payload under the same key, however the server keys its records.
      const other = [...m.numbers.values()].find((n) => n.numberId !== body.sendFrom && m.numbers.get(String(body.sendFrom))?.owner === n.owner);
      return other ? { ...body, sendFrom: other.numberId } : { ...body, text: `${String(body.text ?? '')} (changed)` };
    }
    case 'media':
      // An MMS's media given twice: still media, and another payload; an SMS gets text instead.
      return Array.isArray(body.media) && body.media.length > 0 ? { ...body, media: [...body.media, ...body.media] } : { ...body, text: `${String(body.text ?? '')} (changed)` };
    case 'externalReference':
      return { ...body, externalReference: `${String(body.externalReference)}-2` };
    case 'text':
      return { ...body, text: `${String(body.text ?? '')} (changed)` };
    case 'recipient': {
      const to = Array.isArray(body.to) ? body.to : [];
      const other = [...w.options.recipients.delivered].find((r) => !to.includes(r));
      return other === undefined ? { ...body, externalReference: `${String(body.externalReference)}-2` } : { ...body, to: [...to.slice(0, -1), other] };
    }
  }
}

/** Whether a callback names `needle` (a messageId, a reference, a marker): as a JSON value, or in its text when it is not JSON. */
function names(callback: Arrival['callback'], needle: string): boolean {
  return callback.text.includes(needle);
}

/**
 * AwaitCallbacks: every message accepted so far whose outcome can only go where the harness
 * sees it is reported there, and only at a destination it could legally take (WH-001, WH-002);
 * inbound traffic likewise (WH-004, WH-005). Then, a quiet period as long as the wait took
 * later, nothing on the model's channels reports a refused send (SEND-015, IDEM-002), and no
 * message retried safely has more distinct events than one sent once (IDEM-001).
 */
export class AwaitCallbacksCommand implements ModelCommand {
  check = (m: Readonly<ModelState>) => [...m.messages.values()].some((x) => !x.reported) || m.inbound.some((x) => !x.reported);

  async run(m: ModelState, w: World): Promise<void> {
    const started = Date.now();
    const observable = (d: Set<Destination>) => !d.has('elsewhere') && !d.has('unshown');
    const due = [...m.messages.values()].filter((x) => !x.reported && observable(x.destinations));
    const inbound = m.inbound.filter((x) => !x.reported && observable(x.destinations));
    const arrivedAt = (needle: string, destinations: Set<Destination>) => w.arrivals().some((a) => destinations.has(a.destination) && names(a.callback, needle));
    // Where the target declares its final statuses, a message is reported by a callback carrying one (WH-008).
    const finalStatuses = w.target.webhooks.finalStatuses;
    const reportedAt = (messageId: string, destinations: Set<Destination>) =>
      w.arrivals().some((a) => destinations.has(a.destination) && names(a.callback, messageId) && (!finalStatuses || carriesFinalStatus(a.callback, finalStatuses)));
    const done = () => due.every((x) => reportedAt(x.messageId, x.destinations)) && inbound.every((x) => arrivedAt(x.marker, x.destinations));
    const timeoutMs = w.target.webhooks.timeoutMs;
    if (!(await w.waitUntil(done, timeoutMs))) {
      const missing = due.filter((x) => !reportedAt(x.messageId, x.destinations));
      const missingInbound = inbound.filter((x) => !arrivedAt(x.marker, x.destinations));
      // Named where it should be, but never with a final status: the outcome was not reported (WH-008).
      const interimOnly = (x: ModelMessage) => arrivedAt(x.messageId, x.destinations);
      const ids = [
        ...missing.map((x) => (interimOnly(x) ? 'WH-008' : [...x.destinations].some((d) => d.startsWith('client:')) ? 'WH-002' : 'WH-001')),
        ...missingInbound.map((x) => ([...x.destinations].some((d) => d.startsWith('client:')) ? 'WH-005' : 'WH-004')),
      ];
      const lines = [
        ...missing.map((x) =>
          interimOnly(x)
            ? `the outcome of ${x.messageId} (from ${x.sendFrom}) reached ${[...x.destinations].join(' or ')} only in callbacks with none of the final statuses ${finalStatuses!.join(', ')}`
            : `the outcome of ${x.messageId} (from ${x.sendFrom}) never reached ${[...x.destinations].join(' or ')}`,
        ),
        ...missingInbound.map((x) => `inbound traffic "${x.marker}" at ${x.numberId} never reached ${[...x.destinations].join(' or ')}`),
      ];
      fail(ids, `within ${timeoutMs} ms:\n    ${lines.join('\n    ')}\n  received: ${describeArrivals(w.arrivals())}`);
    }
    // A copy on its way to a wrong destination, or a late stray event, has as long again to arrive.
    const quiet = Math.min(2_000, Math.max(200, Date.now() - started));
    await w.sleep(quiet);
    // A message's later events (a status before the final one, then the final one) may still be on
    // their way: a count that looks too high is looked at again after another quiet period.
    if (this.judgeArrivals(m, w, false)) {
      await w.sleep(quiet);
      this.judgeArrivals(m, w, true);
    }
    for (const x of due) x.reported = true;
    for (const x of inbound) x.reported = true;
  }

  /** Judge what arrived; returns whether only the event counts looked wrong (when `final` is false, those are not failed yet). */
  private judgeArrivals(m: ModelState, w: World, final: boolean): boolean {
    const arrivals = w.arrivals();
    const problems: Array<{ id: string; what: string }> = [];
    for (const { destination, callback } of arrivals) {
      const markers = m.inbound.filter((x) => names(callback, x.marker));
      const named = [...m.messages.values()].filter((x) => names(callback, x.messageId));
      for (const message of named) {
        if (message.destinations.has(destination) || message.destinations.has('unshown')) continue;
        // The loopback send's own events, and the inbound event, may carry each other's marks.
        if (markers.some((x) => x.outbound.includes(message.messageId) && x.destinations.has(destination))) continue;
        const id = [...message.destinations].some((d) => d.startsWith('ch:')) ? 'WH-001' : 'WH-002';
        problems.push({ id, what: `the outcome of ${message.messageId} (from ${message.sendFrom}) arrived at ${destination}, which was never its destination (${[...message.destinations].join(', ')}): ${callback.text.slice(0, 200)}` });
      }
      for (const x of markers) {
        if (x.destinations.has(destination) || x.destinations.has('unshown') || named.some((n) => n.destinations.has(destination) || n.destinations.has('unshown'))) continue;
        problems.push({ id: [...x.destinations].some((d) => d.startsWith('client:')) ? 'WH-005' : 'WH-004', what: `inbound traffic for ${x.numberId} arrived at ${destination}, not at ${[...x.destinations].join(' or ')}` });
      }
      // An event that names no message the answers reported, but the externalReference of a
      // refused request, reports a message that request queued. (A changed retry may keep the
      // first send's externalReference: an event of the first send's messages names them.)
      if (destination.startsWith('ch:') && named.length === 0 && markers.length === 0) {
        for (const [reference, id] of m.refused) {
          if (names(callback, reference)) problems.push({ id, what: `a refused request (externalReference ${reference}) is reported at ${destination}, by a message no answer named: it was queued: ${callback.text.slice(0, 200)}` });
        }
      }
    }
    // IDEM-001: a message retried safely gets no more distinct events than one sent once.
    const eventsOf = (x: ModelMessage) => new Set(arrivals.filter((a) => x.destinations.has(a.destination) && names(a.callback, x.messageId) && a.callback.answered >= 200 && a.callback.answered < 300).map((a) => a.callback.headers['webhook-id'] || a.callback.text)).size;
    const reported = [...m.messages.values()].filter((x) => !x.destinations.has('elsewhere') && !x.destinations.has('unshown') && eventsOf(x) > 0);
    const once = reported.filter((x) => !x.retried);
    if (once.length > 0) {
      const most = Math.max(...once.map(eventsOf));
      for (const x of reported.filter((r) => r.retried && eventsOf(r) > most)) {
        problems.push({ id: 'IDEM-001', what: `${x.messageId}, retried safely, is reported by ${eventsOf(x)} distinct events; a message sent once by at most ${most}` });
      }
    }
    const countsOnly = problems.length > 0 && problems.every((p) => p.id === 'IDEM-001');
    if (countsOnly && !final) return true;
    if (problems.length > 0) fail(problems.map((p) => p.id), `the callbacks received:\n    ${problems.map((p) => `${p.id}: ${p.what}`).join('\n    ')}`);
    return false;
  }

  toString = () => 'AwaitCallbacks()';
}

function describeArrivals(arrivals: readonly Arrival[]): string {
  if (arrivals.length === 0) return '(nothing)';
  return arrivals
    .slice(-10)
    .map((a) => `\n    ${a.destination}: ${a.callback.text.slice(0, 160)}`)
    .join('');
}

/**
 * AwaitExpiry: wait until one of the short-lived client's tokens (triggers.expireToken, kind
 * wait) has certainly outlived its expires_in, then use it: every core route refuses it 401
 * UNAUTHORIZED (AUTH-003), and a token obtained now is accepted (AUTH-005).
 */
export class AwaitExpiryCommand implements ModelCommand {
  /**
   * `patience`: the longest this step waits for the token to run out; a drawn step waits little
   * (the tour's, run after the drawn sequences, uses the token obtained before them, which has
   * run out by then), so that the short-lived token costs a run no more than it must.
   */
  constructor(
    readonly tokenPick: number,
    readonly patienceMs = 500,
  ) {}
  check = (m: Readonly<ModelState>) => tokensOf(m as ModelState, 'brief').length > 0;
  async run(m: ModelState, w: World): Promise<void> {
    // The token to expire first (one obtained before the sequences, when there is one): the shortest wait.
    const tokens = tokensOf(m, 'brief').sort((a, b) => a.receivedAt + a.expiresInSeconds * 1000 - (b.receivedAt + b.expiresInSeconds * 1000));
    const token = tokens[this.tokenPick % tokens.length]!;
    const maxWaitMs = Math.min((w.options.brief?.maxWaitSeconds ?? 0) * 1000, this.patienceMs);
    const waitMs = token.receivedAt + token.expiresInSeconds * 1000 + 1_100 - Date.now();
    if (waitMs > maxWaitMs) return;
    if (waitMs > 0) await w.sleep(waitMs);
    for (const operation of ['whoami', 'numbers'] as const) {
      const res = await w.core(operation, { token: token.value });
      expectRuling(withToken(token, { firings: [] }), res, `${operation} with the expired token t${token.label} of the short-lived client`);
    }
    const fresh = await obtainToken(m, w, 'brief', 'json');
    await checkContext(m, w, 'brief', fresh, 'a token obtained after another expired');
  }
  toString = () => `AwaitExpiry(t#${this.tokenPick})`;
}

// ---- the arbitrary -------------------------------------------------------------------------

export interface ModelCommandsConstraints {
  /** The clients the run has credentials for. */
  roles: readonly Role[];
  /** Whether MMS can be sent (an MMS-capable number and a media sample). */
  mms: boolean;
  /** Whether a loopback send brings inbound traffic (triggers.inbound, kind loopback). */
  loopback: boolean;
  /** Whether the control plane brings inbound traffic (triggers.inbound, kind control). */
  inboundByControl: boolean;
  /** Most commands per sequence. */
  maxCommands: number;
  /** fast-check's replay hint (printed with a failure). */
  replayPath?: string;
}

const FIELD_CONDITIONS: readonly FieldCondition[] = ['absent', 'value', 'null', 'wrong-type'];

/**
 * Sequences of every operation of the document, across the clients and their numbers: what
 * `fc.commands` draws from. Sends and updates are drawn more often than reads, and most of
 * them are valid, so that state builds up between the refusals.
 */
export function modelCommands(c: ModelCommandsConstraints): fc.Arbitrary<Iterable<ModelCommand>> {
  const actors = c.roles.filter((r): r is 'primary' | 'secondary' => r === 'primary' || r === 'secondary');
  const anyRole = fc.constantFrom(...c.roles);
  const actor = fc.constantFrom(...actors);
  const pick = fc.nat({ max: 11 });
  const fieldCondition = fc.oneof({ weight: 4, arbitrary: fc.constant<FieldCondition>('absent') }, { weight: 3, arbitrary: fc.constant<FieldCondition>('value') }, { weight: 1, arbitrary: fc.constantFrom<FieldCondition>(...FIELD_CONDITIONS) });
  const fields = fc.record(Object.fromEntries(SETTABLE.map((f) => [f, fieldCondition])) as Record<Settable, fc.Arbitrary<FieldCondition>>);
  const update = fc
    .tuple(actor, fc.oneof({ weight: 5, arbitrary: pick.map((p) => ({ whose: 'own' as const, pick: p })) }, { weight: 1, arbitrary: pick.map((p) => ({ whose: 'other' as const, pick: p })) }, { weight: 1, arbitrary: fc.constant({ whose: 'unknown' as const }) }), fields, fc.nat(), pick, jsonSpelling())
    .map(([a, number, f, v, t, sp]) => new UpdateCommand(a, number, f, v, t, sp));
  const defect = fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom<SendDefect>(...SEND_DEFECTS) });
  const send = fc
    .record({
      actor,
      from: fc.oneof({ weight: 6, arbitrary: pick.map((p) => ({ whose: 'own' as const, pick: p })) }, { weight: 1, arbitrary: pick.map((p) => ({ whose: 'any' as const, pick: p })) }),
      messageType: c.mms ? fc.constantFrom<'SMS' | 'MMS'>('SMS', 'SMS', 'MMS') : fc.constant<'SMS' | 'MMS'>('SMS'),
      defect,
      recipients: fc.constantFrom<1 | 2>(1, 2),
      recipientPick: pick,
      loopback: c.loopback ? fc.boolean() : fc.constant(false),
      tokenPick: pick,
      spelling: jsonSpelling(),
    })
    .map((shape) => new SendCommand(shape));
  const retry = fc
    .tuple(fc.nat({ max: 7 }), fc.constantFrom<RetryVariation>(...RETRY_VARIATIONS), fc.constantFrom<PayloadField>(...PAYLOAD_FIELDS), pick, jsonSpelling())
    .map(([k, v, ch, t, sp]) => new RetryCommand(k, v, ch, t, sp));
  const commands: Array<fc.Arbitrary<ModelCommand>> = [
    fc.tuple(anyRole, fc.constantFrom<TokenStyle>('json', 'form', 'basic')).map(([r, s]) => new ObtainTokenCommand(r, s)),
    fc.tuple(anyRole, pick).map(([r, t]) => new WhoamiCommand(r, t)),
    fc.tuple(anyRole, pick).map(([r, t]) => new ListCommand(r, t)),
    update,
    update,
    send,
    send,
    send,
    retry,
    retry,
    fc.constant(new AwaitCallbacksCommand()),
    fc.tuple(fc.option(pick, { nil: null, freq: 2 }), pick, jsonSpelling(), fc.option(pick, { nil: null })).map(([f, t, sp, c]) => new SearchCommand(f, t, sp, c)),
  ];
  if (c.roles.includes('brief')) commands.push(pick.map((t) => new AwaitExpiryCommand(t)));
  if (c.inboundByControl) commands.push(fc.constant(new InboundCommand()));
  return fc.commands(commands, { maxCommands: c.maxCommands, ...(c.replayPath === undefined ? {} : { replayPath: c.replayPath }) });
}

/**
 * A sequence that tries each kind of step once, in an order where each has something to act on:
 * the run's first case, so that even the shortest run tries every operation. Later cases are
 * drawn.
 */
export function tourOfEveryStep(c: Omit<ModelCommandsConstraints, 'maxCommands' | 'replayPath'>): ModelCommand[] {
  const actors = c.roles.filter((r): r is 'primary' | 'secondary' => r === 'primary' || r === 'secondary');
  const other = actors.includes('secondary') ? 'secondary' : 'primary';
  const valid = (over: Partial<SendShape> = {}): SendShape => ({ actor: 'primary', from: { whose: 'own', pick: 0 }, messageType: 'SMS', defect: null, recipients: 1, recipientPick: 0, loopback: false, tokenPick: 0, spelling: PLAIN_SPELLING, ...over });
  const none = Object.fromEntries(SETTABLE.map((f) => [f, 'absent'])) as Record<Settable, FieldCondition>;
  const steps: ModelCommand[] = [
    new ObtainTokenCommand('primary', 'form'),
    new ObtainTokenCommand('primary', 'basic'),
    ...(c.roles.includes('brief') ? [new ObtainTokenCommand('brief', 'json')] : []),
    new WhoamiCommand('primary', 1),
    new ListCommand(other, 0),
    // Both overrides set before the sends from that number: a send must leave every setting as it is (NUM-006).
    new UpdateCommand('primary', { whose: 'own', pick: 0 }, { ...none, webhookDeliveryOverride: 'value', webhookInboundOverride: 'value' }, 0, 0, PLAIN_SPELLING),
    new UpdateCommand('primary', { whose: 'own', pick: 1 }, { ...none, webhookDeliveryOverride: 'value', smsEnabled: 'value' }, 3, 1, { ...PLAIN_SPELLING, whitespace: ' ', reverseMembers: true }),
    new SendCommand(valid()),
    new SendCommand(valid({ recipients: 2, recipientPick: 1, spelling: { ...PLAIN_SPELLING, escapes: 'first-letter' } })),
    new RetryCommand(0, 'same', 'text', 1, PLAIN_SPELLING),
    new RetryCommand(0, 'new-token', 'text', 0, PLAIN_SPELLING),
    new RetryCommand(1, 'respelled', 'text', 0, { ...PLAIN_SPELLING, whitespace: '\n' }),
    new RetryCommand(1, 'changed', 'recipient', 0, PLAIN_SPELLING),
    new SendCommand(valid({ defect: 'mixed-recipients' })),
    new UpdateCommand('primary', { whose: 'own', pick: 0 }, { ...none, campaignregId: 'null', smsEnabled: 'wrong-type' }, 1, 0, PLAIN_SPELLING),
    new UpdateCommand('primary', { whose: 'other', pick: 0 }, { ...none, webhookInboundOverride: 'value' }, 0, 0, PLAIN_SPELLING),
    new UpdateCommand('primary', { whose: 'own', pick: 0 }, { ...none, campaignregId: 'null' }, 0, 0, PLAIN_SPELLING),
    // An update naming no attribute: accepted changing nothing, or refused as a request defect; never a 5xx, never a change.
    new UpdateCommand('primary', { whose: 'own', pick: 1 }, none, 0, 0, PLAIN_SPELLING),
    new SendCommand(valid()),
    new UpdateCommand('primary', { whose: 'own', pick: 0 }, { ...none, campaignregId: 'value' }, 0, 0, PLAIN_SPELLING),
    new SendCommand(valid({ from: { whose: 'any', pick: 0 }, recipientPick: 2 })),
    ...(c.mms ? [new SendCommand(valid({ messageType: 'MMS', from: { whose: 'own', pick: 0 } }))] : []),
    ...(c.loopback ? [new SendCommand(valid({ loopback: true, from: { whose: 'own', pick: 0 } }))] : []),
    ...(c.inboundByControl ? [new InboundCommand()] : []),
    // Every identity takes every step the other does: the secondary client updates its own
    // number and the primary's, sends from its own and from the primary's, and reads its context.
    ...(actors.includes('secondary')
      ? [
          new RetryCommand(0, 'other-client', 'text', 0, PLAIN_SPELLING),
          new UpdateCommand('secondary', { whose: 'own', pick: 0 }, { ...none, webhookInboundOverride: 'value', mmsEnabled: 'value' }, 0, 0, PLAIN_SPELLING),
          new SendCommand(valid({ actor: 'secondary' })),
          new UpdateCommand('secondary', { whose: 'other', pick: 0 }, { ...none, webhookDeliveryOverride: 'value' }, 0, 0, PLAIN_SPELLING),
          new UpdateCommand('secondary', { whose: 'other', pick: 1 }, { ...none, campaignregId: 'null' }, 0, 0, PLAIN_SPELLING),
          new SendCommand(valid({ actor: 'secondary', from: { whose: 'any', pick: 0 } })),
          new WhoamiCommand('secondary', 0),
          new ListCommand('primary', 0),
        ]
      : []),
    new SearchCommand(null, 1, { ...PLAIN_SPELLING, escapes: 'every-letter' }),
    new SearchCommand(0, 0, PLAIN_SPELLING),
    new SearchCommand(null, 0, PLAIN_SPELLING, 2),
    new AwaitCallbacksCommand(),
    ...(c.roles.includes('brief') ? [new AwaitExpiryCommand(0, Number.POSITIVE_INFINITY)] : []),
  ];
  return steps;
}


// ---- a sequence ----------------------------------------------------------------------------

/**
 * Run one sequence against the target. The model starts from what the lists show now (a
 * sequence judges changes, not the state a vendor's sandbox starts in); each client gets a token
 * and its context is read. After the last command, the callbacks of what the sequence sent are
 * awaited and judged, so no sequence leaves a message unchecked.
 */
export async function runModelSequence(w: World, commands: Iterable<ModelCommand>): Promise<void> {
  let model: ModelState | undefined;
  const setup = async () => {
    const roles = w.roles();
    const tokens: ModelToken[] = [];
    const lists: Partial<Record<Role, Array<Record<string, unknown>>>> = {};
    const bare = initialState({}, new Set());
    // Each client's token and list, the clients at once; judged in the order of the roles.
    const started = await Promise.all(
      roles.map(async (role) => {
        const token = await obtainToken(bare, w, role, 'json');
        return { token, list: await w.list(token.value) };
      }),
    );
    for (const [i, role] of roles.entries()) {
      const { token, list: { res, items } } = started[i]!;
      tokens.push(token);
      if (!isSuccess(res.status) || items === null) fail('NUM-001', `the ${role} client's numbers list did not answer a list`, res);
      lists[role] = items!;
    }
    const m = initialState(lists, w.visibleClientHooks());
    m.channels = w.channelNames;
    m.tokens.push(...tokens, ...(w.options.earlyTokens ?? []).map((t) => ({ ...t, label: 0 })));
    m.tokens.forEach((t, label) => (t.label = label));
    const contexts = await Promise.all(m.tokens.map((token) => askContext(w, token)));
    for (const [i, token] of m.tokens.entries()) judgeContext(m, token.role, token, 'the start of the sequence', contexts[i]!);
    model = m;
    return { model: m, real: w };
  };
  await fc.asyncModelRun(setup, commands);
  const last = new AwaitCallbacksCommand();
  if (model !== undefined && last.check(model)) await last.run(model, w);
}
