// What the interface document says a client can observe, and how each operation changes it:
// the model the stateful tests (harness/model/commands.ts) compare a server with after every
// step. Written from messaging-service-interface-0.2.0.md; catalogue IDs name the clauses.
//
// It holds:
// - clients and their context (2, 4.2): the apiClientId each token acts for, and the two
//   webhook flags, which no operation of the interface changes (CTX-002, CTX-004);
// - tokens and their lifetimes (4.1, 5): a token acts for the client it was issued to until its
//   expires_in is out, and is refused after (TOKEN-011, AUTH-003, AUTH-007);
// - numbers and their settable attributes (2, 4.3, 4.5): each client's list, changed only by an
//   accepted update of that number, and only in the fields the update names (UPD-001, UPD-003,
//   UPD-007, NUM-006);
// - idempotency records (4.6 rule 8), held by the client: the first payload under a key and its
//   answer (IDEM-001, IDEM-002, IDEM-004);
// - accepted messages and where their outcome may be reported (4.6 rule 7, 6): the number's
//   webhookDeliveryOverride, else the client's delivery webhook (WH-001, WH-002), and inbound
//   traffic at the number's webhookInboundOverride, else the client's inbound webhook (WH-004,
//   WH-005);
// - refused requests, which queue nothing (SEND-015, IDEM-002).
//
// Where the document leaves a choice open, the model holds every legal answer (harness/model/
// rules.ts): a refused send may or may not claim its key, an override changed while a message
// is on its way may take its outcome or not, a retry spelled in other bytes may be read as the
// same payload or as a changed one.
import { NULLABLE, SETTABLE, type Settable, type TokenTiming } from './rules.ts';

export type Role = 'primary' | 'secondary' | 'brief';
export const ROLES: readonly Role[] = ['primary', 'secondary', 'brief'];

/** A number as its owner's list shows it. */
export interface ModelNumber {
  numberId: string;
  owner: Role;
  /** The settable attributes the list shows, as the model expects them now. */
  settings: Partial<Record<Settable, unknown>>;
  /** For each attribute, the requirement whose clause fixed its expected value last: what a divergence fails. */
  why: Partial<Record<Settable, string>>;
  /** E.164 values the record carries (its phone number, under any field name). */
  phones: string[];
}

export interface ModelToken extends TokenTiming {
  /** Index in the order tokens were obtained, for the failure report. */
  label: number;
  role: Role;
  value: string;
}

/** What the client holds under one Idempotency-Key (4.6 rule 8). */
export interface KeyRecord {
  label: number;
  owner: Role;
  key: string;
  /** The bytes first sent, and the JSON they spell, canonically (sorted members, no whitespace). */
  bytes: string;
  canonical: string;
  body: Record<string, unknown>;
  outcome: { kind: 'accepted'; status: number; messageIds: string[] } | { kind: 'refused'; status: number };
}

/**
 * Where a callback may go: `ch:NAME` is a channel of the harness's receiver, `client:ROLE:KIND`
 * the client's own webhook when it points at the harness's run receiver, `elsewhere` anywhere
 * the harness cannot see (a vendor's own URL, a client webhook pointing elsewhere, none),
 * `unshown` where the number's list record does not show the override (a legal record shape):
 * the harness cannot know the destination, so any arrival is legal and none can be awaited.
 */
export type Destination = `ch:${string}` | `client:${Role}:${'delivery' | 'inbound'}` | 'elsewhere' | 'unshown';

export interface ModelMessage {
  messageId: string;
  owner: Role;
  sendFrom: string;
  externalReference: string;
  /** Every destination its outcome may legally take: the number's while the message was on its way. */
  destinations: Set<Destination>;
  /** Retried safely at least once (IDEM-001 compares its events with those of messages sent once). */
  retried: boolean;
  /** Its outcome has been seen at a legal destination. */
  reported: boolean;
}

/** Inbound traffic brought about by a loopback send or the control plane, awaited at a number. */
export interface InboundExpectation {
  marker: string;
  numberId: string;
  destinations: Set<Destination>;
  /** messageIds of the loopback send, whose own delivery events may carry the marker too. */
  outbound: string[];
  reported: boolean;
}

export interface ModelClient {
  /** What whoami said the first time, with its flags; later answers must agree. */
  apiClientId?: string;
  flags?: { inboundWebhookConfigured: unknown; deliveryWebhookConfigured: unknown };
}

export interface ModelState {
  clients: Partial<Record<Role, ModelClient>>;
  numbers: Map<string, ModelNumber>;
  tokens: ModelToken[];
  keys: KeyRecord[];
  messages: Map<string, ModelMessage>;
  /** externalReferences of refused sends, with the requirement that refused each: a callback naming one is stray. */
  refused: Map<string, string>;
  inbound: InboundExpectation[];
  /** Channel names by the URL the target is given. */
  channels: Map<string, string>;
  /** Which client webhooks the harness can see (triggers.clientWebhooks, declared). */
  visibleClientHooks: ReadonlySet<`${Role}:${'delivery' | 'inbound'}`>;
}

/** The first state: what the lists showed when the sequence began. */
export function initialState(lists: Partial<Record<Role, ReadonlyArray<Record<string, unknown>>>>, visibleClientHooks: ReadonlySet<`${Role}:${'delivery' | 'inbound'}`>): ModelState {
  const numbers = new Map<string, ModelNumber>();
  for (const role of ROLES) {
    for (const record of lists[role] ?? []) {
      const numberId = record.numberId as string;
      const settings: Partial<Record<Settable, unknown>> = {};
      for (const field of SETTABLE) if (field in record) settings[field] = record[field];
      const phones = Object.entries(record)
        .filter(([k, v]) => k !== 'numberId' && typeof v === 'string' && /^\+[1-9]\d{1,14}$/.test(v))
        .map(([, v]) => v as string);
      numbers.set(numberId, { numberId, owner: role, settings, why: {}, phones });
    }
  }
  return { clients: {}, numbers, tokens: [], keys: [], messages: new Map(), refused: new Map(), inbound: [], channels: new Map(), visibleClientHooks };
}

/** The numbers a client owns, in list order. */
export function numbersOf(m: ModelState, role: Role): ModelNumber[] {
  return [...m.numbers.values()].filter((n) => n.owner === role);
}

/** Whether a number's campaignregId is set, as far as its list shows (rule 5). */
export function registered(n: ModelNumber): boolean | 'unknown' {
  if (!('campaignregId' in n.settings)) return 'unknown';
  const value = n.settings.campaignregId;
  return typeof value === 'string' && value !== '';
}

/** The settable attribute a message type depends on (section 2 names them; what they change is not shown). */
export function capabilityOf(n: ModelNumber, messageType: 'SMS' | 'MMS'): 'enabled' | 'disabled' | 'unknown' {
  const field = messageType === 'MMS' ? 'mmsEnabled' : 'smsEnabled';
  if (!(field in n.settings)) return 'unknown';
  return n.settings[field] === true ? 'enabled' : 'disabled';
}

/** Where a number's callbacks of `kind` go now (section 6): its override, else its client's webhook. */
export function destinationOf(m: ModelState, numberId: string, kind: 'delivery' | 'inbound'): Destination {
  const n = m.numbers.get(numberId);
  if (!n) return 'elsewhere';
  const field = kind === 'delivery' ? 'webhookDeliveryOverride' : 'webhookInboundOverride';
  if (!(field in n.settings)) return 'unshown';
  const value = n.settings[field];
  if (value === null) return m.visibleClientHooks.has(`${n.owner}:${kind}`) ? `client:${n.owner}:${kind}` : 'elsewhere';
  const channel = typeof value === 'string' ? m.channels.get(value) : undefined;
  return channel !== undefined ? `ch:${channel}` : 'elsewhere';
}

/**
 * An accepted update (4.5): exactly the given fields change, to the given values (UPD-001,
 * UPD-004); the number's other fields keep their values (UPD-003), every other number its own
 * (UPD-007). Messages of the number still on their way may now go to the new override as well.
 */
export function applyUpdate(m: ModelState, numberId: string, patch: Readonly<Partial<Record<Settable, unknown>>>): void {
  const n = m.numbers.get(numberId)!;
  for (const field of SETTABLE) {
    if (field in patch) {
      n.settings[field] = patch[field];
      n.why[field] = patch[field] === null && NULLABLE.includes(field) ? 'UPD-004' : 'UPD-001';
    } else if (field in n.settings) {
      n.why[field] = 'UPD-003';
    }
  }
  for (const other of m.numbers.values()) {
    if (other.numberId === numberId) continue;
    for (const field of Object.keys(other.settings) as Settable[]) other.why[field] = 'UPD-007';
  }
  const delivery = destinationOf(m, numberId, 'delivery');
  for (const message of m.messages.values()) if (message.sendFrom === numberId && !message.reported) message.destinations.add(delivery);
  const inbound = destinationOf(m, numberId, 'inbound');
  for (const expectation of m.inbound) if (expectation.numberId === numberId && !expectation.reported) expectation.destinations.add(inbound);
}

/** A refused request changes nothing: every attribute is expected as it was, for the refusal's requirement. */
export function keepAll(m: ModelState, id: string): void {
  for (const n of m.numbers.values()) for (const field of Object.keys(n.settings) as Settable[]) n.why[field] = id;
}

/** The JSON a body spells, written one way: members sorted, no whitespace. Two spellings of one value give one string. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** One difference between what the lists show and what the model expects, with the requirement it breaks. */
export interface Divergence {
  id: string;
  what: string;
}

/**
 * Compare a client's numbers list with the model: the same numberIds (NUM-001: the client's
 * numbers, no more; NUM-003: none of another client's), and every settable attribute the model
 * knows as expected (the requirement that fixed it).
 */
export function diffList(m: ModelState, role: Role, listed: ReadonlyArray<Record<string, unknown>>): Divergence[] {
  const out: Divergence[] = [];
  const mine = numbersOf(m, role);
  const ids = listed.map((r) => r?.numberId);
  for (const n of mine) if (!ids.includes(n.numberId)) out.push({ id: 'NUM-001', what: `the ${role} client's number ${n.numberId} is missing from its list` });
  for (const id of ids) {
    const n = typeof id === 'string' ? m.numbers.get(id) : undefined;
    if (n === undefined) out.push({ id: 'NUM-001', what: `the ${role} client's list shows ${JSON.stringify(id)}, a number it did not list before and no operation assigned` });
    else if (n.owner !== role) out.push({ id: 'NUM-003', what: `the ${role} client's list shows ${n.numberId}, the ${n.owner} client's number` });
  }
  for (const record of listed) {
    const n = m.numbers.get(record?.numberId as string);
    if (!n || n.owner !== role) continue;
    for (const field of Object.keys(n.settings) as Settable[]) {
      const expected = n.settings[field];
      if (!(field in record)) {
        out.push({ id: n.why[field] ?? 'NUM-005', what: `${n.numberId}.${field} is no longer shown (was ${JSON.stringify(expected)})` });
      } else if (canonicalJson(record[field]) !== canonicalJson(expected)) {
        out.push({ id: n.why[field] ?? 'NUM-006', what: `${n.numberId}.${field} is ${JSON.stringify(record[field])}, expected ${JSON.stringify(expected)}` });
      }
    }
  }
  return out;
}
