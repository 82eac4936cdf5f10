// The interface document's rules as pure functions: given the conditions a request meets, the
// set of answers the document allows. Written clause by clause from
// messaging-service-interface-0.2.0.md, never from a server's code; each rule carries the
// catalogue ID (spec/requirements.yaml) whose clause it is. The decision tables
// (suites/model/decision-tables.spec.ts) apply them to every combination of conditions, the
// stateful model (harness/model/state.ts) to the state a sequence of operations has built.
//
// Where several rules fire at once the document gives no order among them (section 4.6 lists
// its rules without precedence, and section 7.3 sorts answers into classes, not into an
// order), so an answer is legal when it is the answer of at least one rule that fires. Where a
// rule leaves the answer open ("the request is invalid"), the answer is a class of section 7.3
// (harness/answer-classes.ts). Where the document says nothing at all about a condition (a
// number whose smsEnabled is false, an SMS without text), the ruling holds every answer a
// vendor could legally choose, marked `open`, and never a single one.
import { answerClass, type AnswerClass } from '../answer-classes.ts';

/** One legal answer. */
export type Answer =
  /** A 2xx: the document rarely fixes the success status. */
  | { kind: 'accept' }
  /** Exactly this status with this error.code of the CORE wrapper (section 7.2 pairs them). */
  | { kind: 'core'; status: number; code: string }
  /** Any status of these section 7.3 classes. */
  | { kind: 'class'; classes: readonly AnswerClass[] }
  /** A 4xx with the OAuth body (section 7.1) whose error is one of these. */
  | { kind: 'oauth'; errors: readonly string[] };

/** A rule that fires for a request, and the answer it gives. */
export interface Firing {
  /** The requirement whose clause this is. */
  id: string;
  /** Where the document says it. */
  clause: string;
  answer: Answer;
  /**
   * The document leaves the answer to the vendor: the firing adds legal answers, and no failure
   * is counted against it. Set where the document is silent on a condition the request meets.
   */
  open?: boolean;
}

/** Every rule that fires for one request. At least one firing; the document's answer to a valid request is a firing too. */
export interface Ruling {
  firings: readonly Firing[];
}

/** What a server answered: the status, and the body where it parsed as JSON. */
export interface Observed {
  status: number;
  body: unknown;
}

export const REQUEST_DEFECT: Answer = { kind: 'class', classes: ['request-defect'] };
export const UNAUTHORIZED: Answer = { kind: 'core', status: 401, code: 'UNAUTHORIZED' };

/** Whether `observed` is `answer`. */
export function matches(answer: Answer, observed: Observed): boolean {
  const status = observed.status;
  switch (answer.kind) {
    case 'accept':
      return status >= 200 && status < 300;
    case 'core': {
      const code = (observed.body as { error?: { code?: unknown } } | undefined)?.error?.code;
      return status === answer.status && code === answer.code;
    }
    case 'class':
      return answer.classes.includes(answerClass(status));
    case 'oauth': {
      const error = (observed.body as { error?: unknown } | undefined)?.error;
      return status >= 400 && status < 500 && typeof error === 'string' && answer.errors.includes(error);
    }
  }
}

/** How an answer reads in a failure message. */
export function describeAnswer(answer: Answer): string {
  switch (answer.kind) {
    case 'accept':
      return 'accepted (2xx)';
    case 'core':
      return `${answer.status} ${answer.code}`;
    case 'class':
      return answer.classes.map((c) => (c === 'request-defect' ? 'a request defect (a 4xx other than 401, 403, 404, 408, 409, 429)' : c === 'ownership' ? '403 or 404' : c === 'conflict' ? '409' : c)).join(' or ');
    case 'oauth':
      return `a 4xx OAuth error ${answer.errors.join(' or ')}`;
  }
}

export interface Judged {
  legal: boolean;
  /** The firing the answer satisfies, when legal. */
  by?: Firing;
  /** When not legal: the requirements the answer broke (the firings that are not open), each ID once. */
  ids: string[];
  /** Every legal answer, for the failure message. */
  expected: string;
}

/** Judge an answer against a ruling: legal when it is the answer of at least one firing. */
export function judgeRuling(ruling: Ruling, observed: Observed): Judged {
  const by = ruling.firings.find((f) => matches(f.answer, observed));
  const expected = ruling.firings.map((f) => `${describeAnswer(f.answer)} (${f.id}, ${f.clause}${f.open ? ', open' : ''})`).join('; or ');
  if (by) return { legal: true, by, ids: [], expected };
  const ids = [...new Set(ruling.firings.filter((f) => !f.open).map((f) => f.id))];
  return { legal: false, ids, expected };
}

/** True when the only legal answers are refusals: nothing may be created. */
export function refuses(ruling: Ruling): boolean {
  return !ruling.firings.some((f) => f.answer.kind === 'accept');
}

// ---- 4.6 Queue an outbound message ----------------------------------------------------------

/**
 * The conditions of section 4.6 a send request meets, one value per condition. Each value is a
 * case the document distinguishes.
 */
export interface SendConditions {
  /** Rule 1. */
  key: 'present' | 'absent';
  /** Rules 2 and 3, and the table: SMS or MMS. `absent`: the required field is left out. */
  messageType: 'SMS' | 'MMS' | 'other' | 'absent' | 'wrong-type';
  /** Rules 2 and 3: "must be omitted for SMS"; an empty array is still present. */
  media: 'absent' | 'present' | 'empty';
  /**
   * Rules 4, 5 and 6. `owned`: a number of the client with a campaignregId; `unregistered`: of
   * the client, without one; `foreign`: another client's; `unknown`: a numberId never issued;
   * `e164`: an E.164 number (rule 6 names it).
   */
  sendFrom: 'owned' | 'unregistered' | 'foreign' | 'unknown' | 'e164' | 'absent' | 'wrong-type';
  /** Rule 6 and the table: non-empty, each element E.164. `mixed`: one invalid among valid ones. */
  to: 'valid' | 'empty' | 'invalid' | 'mixed' | 'absent' | 'wrong-type';
  /** The table: required. */
  externalReference: 'present' | 'absent' | 'wrong-type';
  /** The table: optional. */
  text: 'present' | 'absent' | 'wrong-type';
  /**
   * Whether the sendFrom number has the setting of its message type (smsEnabled, mmsEnabled)
   * switched on. Section 2 names the settings without saying what they change: `disabled` makes
   * refusing the send legal too. `unknown` where the list does not show it.
   */
  capability: 'enabled' | 'disabled' | 'unknown';
}

/** The document's ruling on a send (section 4.6, rules 1–7 and the field table). */
export function sendRuling(c: SendConditions): Ruling {
  const firings: Firing[] = [];
  // Rule 1: the answer is named.
  if (c.key === 'absent') firings.push({ id: 'SEND-001', clause: '4.6 rule 1', answer: { kind: 'core', status: 400, code: 'INVALID_REQUEST' } });
  // Rules 2 and 3: "the request is invalid".
  if (c.messageType === 'SMS' && c.media !== 'absent') firings.push({ id: 'SEND-002', clause: '4.6 rule 2', answer: REQUEST_DEFECT });
  // Rule 3 and the table ("required for MMS"): an MMS whose media array is empty carries no media,
  // as one without the field does. (For SMS the same empty array is media present: rule 2.)
  if (c.messageType === 'MMS' && (c.media === 'absent' || c.media === 'empty')) firings.push({ id: 'SEND-003', clause: '4.6 rule 3', answer: REQUEST_DEFECT });
  // The table: messageType is SMS or MMS, and required.
  if (c.messageType === 'other') firings.push({ id: 'SEND-012', clause: '4.6 table (messageType)', answer: REQUEST_DEFECT });
  if (c.messageType === 'absent') firings.push({ id: 'SEND-014', clause: '4.6 table (messageType required)', answer: REQUEST_DEFECT });
  if (c.messageType === 'wrong-type') firings.push({ id: 'SEND-016', clause: '4.6 table (messageType string)', answer: REQUEST_DEFECT });
  // Rule 4: the answer is named, whatever else the request carries (7.2 lists it).
  if (c.sendFrom === 'foreign' || c.sendFrom === 'unknown') firings.push({ id: 'SEND-004', clause: '4.6 rule 4', answer: { kind: 'core', status: 403, code: 'FORBIDDEN' } });
  // Rule 5: the answer is named.
  if (c.sendFrom === 'unregistered') firings.push({ id: 'SEND-005', clause: '4.6 rule 5', answer: { kind: 'core', status: 400, code: 'INVALID_REQUEST' } });
  // Rule 6 (7.3 names "E.164 in sendFrom" and "invalid E.164" request defects).
  if (c.sendFrom === 'e164') firings.push({ id: 'SEND-006', clause: '4.6 rule 6', answer: REQUEST_DEFECT });
  if (c.sendFrom === 'absent') firings.push({ id: 'SEND-014', clause: '4.6 table (sendFrom required)', answer: REQUEST_DEFECT });
  if (c.sendFrom === 'wrong-type') firings.push({ id: 'SEND-016', clause: '4.6 table (sendFrom string)', answer: REQUEST_DEFECT });
  if (c.to === 'invalid' || c.to === 'mixed') firings.push({ id: 'SEND-007', clause: '4.6 rule 6', answer: REQUEST_DEFECT });
  if (c.to === 'empty') firings.push({ id: 'SEND-011', clause: '4.6 table (to non-empty)', answer: REQUEST_DEFECT });
  if (c.to === 'absent') firings.push({ id: 'SEND-014', clause: '4.6 table (to required)', answer: REQUEST_DEFECT });
  if (c.to === 'wrong-type') firings.push({ id: 'SEND-016', clause: '4.6 table (to array of strings)', answer: REQUEST_DEFECT });
  if (c.externalReference === 'absent') firings.push({ id: 'SEND-013', clause: '4.6 table (externalReference required)', answer: REQUEST_DEFECT });
  if (c.externalReference === 'wrong-type') firings.push({ id: 'SEND-016', clause: '4.6 table (externalReference string)', answer: REQUEST_DEFECT });
  if (c.text === 'wrong-type') firings.push({ id: 'SEND-016', clause: '4.6 table (text string)', answer: REQUEST_DEFECT });
  if (firings.length > 0) return { firings };
  // Rule 7: nothing breaks a rule, so the send is accepted with QUEUED. Two conditions the
  // document is silent on may let a vendor refuse it instead: an SMS with no text (the table
  // makes text optional, but an SMS without it is an empty message: SEND-017's reason), and a
  // number whose setting for the message type is off (section 2 does not say what it does).
  const accepted: Firing = { id: 'SEND-008', clause: '4.6 rule 7', answer: { kind: 'accept' } };
  const open: Firing[] = [];
  if (c.messageType === 'SMS' && c.text === 'absent') open.push({ id: 'SEND-017', clause: '4.6 table (text optional; an empty SMS is not shown)', answer: REQUEST_DEFECT, open: true });
  if (c.capability !== 'enabled') {
    open.push({ id: 'SEND-008', clause: `2 (${c.messageType === 'MMS' ? 'mmsEnabled' : 'smsEnabled'} ${c.capability}: what it changes is not shown)`, answer: { kind: 'class', classes: ['request-defect', 'ownership'] }, open: true });
  }
  return { firings: [accepted, ...open] };
}

// ---- 4.5 Update number settings -------------------------------------------------------------

/** The settable attributes of sections 2 and 4.5. */
export const SETTABLE = ['campaignregId', 'smsEnabled', 'mmsEnabled', 'webhookInboundOverride', 'webhookDeliveryOverride'] as const;
export type Settable = (typeof SETTABLE)[number];
/** Attributes that are "string or null"; the other two are booleans. */
export const NULLABLE: readonly Settable[] = ['campaignregId', 'webhookInboundOverride', 'webhookDeliveryOverride'];

/** One field of an update body: left out, a value of its type (`null` only where null is allowed), or a value of another JSON type. */
export type FieldCondition = 'absent' | 'value' | 'null' | 'wrong-type';

export interface UpdateConditions {
  /** Whose number the path names: the caller's own, another client's, or a numberId never issued. */
  number: 'own' | 'foreign' | 'unknown';
  fields: Readonly<Record<Settable, FieldCondition>>;
}

/** Whether a field condition is a value the document allows for that field. */
export function allowedValue(field: Settable, condition: FieldCondition): boolean {
  if (condition === 'wrong-type') return false;
  if (condition === 'null') return NULLABLE.includes(field);
  return true;
}

/** The document's ruling on an update (section 4.5). Every refusal changes nothing. */
export function updateRuling(c: UpdateConditions): Ruling {
  const firings: Firing[] = [];
  // "Applies only to a number owned by the authenticated API client." 403 and 404 both send a
  // client of 7.3 to check its numbers (UPD-002's reason).
  if (c.number === 'foreign') firings.push({ id: 'UPD-002', clause: '4.5', answer: { kind: 'class', classes: ['ownership'] } });
  // A numberId nobody was given: not owned, or a request defect (UPD-006's reason).
  if (c.number === 'unknown') firings.push({ id: 'UPD-006', clause: '4.5', answer: { kind: 'class', classes: ['ownership', 'request-defect'] } });
  // Sections 2 and 4.5 type every attribute: another type is a request defect (UPD-005).
  const misTyped = SETTABLE.filter((f) => !allowedValue(f, c.fields[f]));
  if (misTyped.length > 0) firings.push({ id: 'UPD-005', clause: `4.5 (${misTyped.join(', ')})`, answer: REQUEST_DEFECT });
  // "All optional as far as shown": an update naming no attribute is a request the document
  // allows, accepted and changing nothing (UPD-003). "As far as shown" leaves a vendor room to
  // refuse it as a request defect (nothing to update): open, and never a 5xx.
  const namesNone = SETTABLE.every((f) => c.fields[f] === 'absent');
  const nothingToUpdate: Firing = { id: 'UPD-003', clause: '4.5 (no attribute named)', answer: REQUEST_DEFECT, open: true };
  if (firings.length > 0) return { firings: namesNone ? [...firings, nothingToUpdate] : firings };
  if (namesNone) return { firings: [{ id: 'UPD-003', clause: '4.5 (every attribute optional, none named)', answer: { kind: 'accept' } }, nothingToUpdate] };
  // Accepted, with exactly the fields given changed (UPD-001, UPD-003, UPD-004).
  const nulls = SETTABLE.filter((f) => c.fields[f] === 'null');
  return { firings: [{ id: nulls.length > 0 ? 'UPD-004' : 'UPD-001', clause: '4.5', answer: { kind: 'accept' } }] };
}

// ---- 4.1 and 7.1 Issue an access token ------------------------------------------------------

export interface TokenConditions {
  /** How the client authenticates: body fields (JSON or form), or HTTP Basic with a form body (section 5 rule 1). */
  style: 'json' | 'form' | 'basic';
  /** `other-case`: client_credentials in other letters, another value all the same (RFC 6749 compares values as strings). */
  grantType: 'client_credentials' | 'other' | 'other-case' | 'absent';
  /** `empty`: given as an empty string (in Basic, an empty user). */
  clientId: 'valid' | 'unknown' | 'absent' | 'empty';
  secret: 'valid' | 'wrong' | 'absent' | 'empty';
}

/** The document's ruling on a token request (sections 4.1, 5 and 7.1). */
export function tokenRuling(c: TokenConditions): Ruling {
  const firings: Firing[] = [];
  // "grant type is not client_credentials". A missing grant_type is not client_credentials
  // either, and it is a missing parameter, which RFC 6749 5.2 calls invalid_request: both.
  if (c.grantType === 'other' || c.grantType === 'other-case') firings.push({ id: 'TOKEN-008', clause: '7.1', answer: { kind: 'oauth', errors: ['unsupported_grant_type'] } });
  if (c.grantType === 'absent') firings.push({ id: 'TOKEN-008', clause: '7.1', answer: { kind: 'oauth', errors: ['unsupported_grant_type', 'invalid_request'] } });
  const idMissing = c.clientId === 'absent' || c.clientId === 'empty';
  const secretMissing = c.secret === 'absent' || c.secret === 'empty';
  // "client_id or client_secret missing". A client that gave no secret has also failed to
  // authenticate, so invalid_client is legal beside it (a server may look the client up first).
  if (idMissing || secretMissing) firings.push({ id: 'TOKEN-009', clause: '7.1', answer: { kind: 'oauth', errors: ['invalid_request', 'invalid_client'] } });
  // "client authentication failed": an unknown client, or a wrong secret.
  if (!idMissing && !secretMissing && (c.clientId === 'unknown' || c.secret === 'wrong')) firings.push({ id: 'TOKEN-007', clause: '7.1', answer: { kind: 'oauth', errors: ['invalid_client'] } });
  if (firings.length > 0) return { firings };
  const style = { json: 'TOKEN-003', form: 'TOKEN-004', basic: 'TOKEN-005' }[c.style];
  return { firings: [{ id: style, clause: '4.1; 5 rule 1', answer: { kind: 'accept' } }] };
}

// ---- 5 Bearer tokens on /api/core ----------------------------------------------------------

/**
 * How long before its expires_in a token may already be refused, and how long after it may
 * still be accepted (milliseconds). expires_in is whole seconds (RFC 6749 5.1), a server may keep
 * expiry in whole seconds and count from when it issued the token, and answers take time on the
 * way: within these bounds either answer is the document's.
 */
export const EARLY_EXPIRY_TOLERANCE_MS = 2_000;
export const LATE_EXPIRY_TOLERANCE_MS = 1_000;

/** A token as the model knows it: when it was asked for and came, and the lifetime it reported. */
export interface TokenTiming {
  requestedAt: number;
  receivedAt: number;
  expiresInSeconds: number;
}

/** Where a token stands at `now`: certainly valid, certainly expired, or too close to its expiry to say. */
export function tokenStanding(token: TokenTiming, now: number): 'valid' | 'expired' | 'either' {
  const lifetime = token.expiresInSeconds * 1000;
  if (now < token.requestedAt + lifetime - EARLY_EXPIRY_TOLERANCE_MS) return 'valid';
  if (now > token.receivedAt + lifetime + LATE_EXPIRY_TOLERANCE_MS) return 'expired';
  return 'either';
}

/**
 * The document's ruling on the credential of a core request (section 5 rules 2 and 3, 7.2):
 * what the token's standing allows, to be combined with the operation's own ruling when the
 * token may be accepted.
 */
export function bearerRuling(standing: 'valid' | 'expired' | 'either'): Ruling | null {
  if (standing === 'valid') return null;
  const expired: Firing = { id: 'AUTH-003', clause: '5 rule 3', answer: UNAUTHORIZED };
  return { firings: [standing === 'expired' ? expired : { ...expired, open: true }] };
}

/** The union of rulings: any answer one of them allows. */
export function either(...rulings: Array<Ruling | null>): Ruling {
  return { firings: rulings.flatMap((r) => r?.firings ?? []) };
}
