import { randomUUID } from 'node:crypto';
import type { ApiResponse } from '../../harness/api-client.ts';
import { basicCredentials } from '../../harness/basic-auth.ts';
import { HOLDS_EVERYTHING, expect, notTestable, test } from '../../harness/fixtures.ts';
import { CASES_AT_ONCE } from '../../harness/property.ts';
import { readNumbers, unknownNumberIdLike, type NumberRecord } from '../../harness/known-numbers.ts';
import { judgeRuling, SETTABLE, sendRuling, tokenRuling, updateRuling, type FieldCondition, type Ruling, type SendConditions, type Settable, type TokenConditions } from '../../harness/model/rules.ts';
import { everyCombination, pairwiseCombinations, type Row } from '../../generators/combinations.ts';
import { reportsQueued } from '../../generators/send-port.ts';
import { deliverTo, expectNoStrayCallbacks } from '../support/callbacks.ts';
import { deliveredRecipients, externalRef, messageIdsOf, secondSmsNumber, smsNumber } from '../support/sends.ts';
import { everyClientsNumbers, NULLABLE_FIELDS } from '../support/settings.ts';

// Decision tables: the document's rules (harness/model/rules.ts) applied to every combination of
// the conditions they distinguish. Each rule is tried over the full product of its own
// conditions with everything else valid, so that a rule with conditions A and B is seen with
// A∧¬B, ¬A∧B and ¬A∧¬B; all the rules of a section together are tried pairwise (every pair of
// conditions of any two factors in some row), where the full product would be thousands of
// requests. Where several rules fire at once the document gives no order among them (section
// 4.6 lists its rules without precedence; 7.3 sorts answers into classes, not into an order), so
// an answer is legal when it is the answer of any rule that fires. A table keeps going past a
// failing row (each row is a soft check naming its rules) so one run shows every row that fails.

/** Judge one row: legal, or a soft failure naming the rules the answer broke, the row and the exchange. */
function judgeRow(ruling: Ruling, res: ApiResponse, row: string): boolean {
  const judged = judgeRuling(ruling, { status: res.status, body: res.body });
  expect.soft(judged.legal, `${judged.ids.join(', ') || 'ERR-002'}: ${row} was answered ${res.status} ${res.text.slice(0, 200)}; the document allows ${judged.expected}`).toBe(true);
  return judged.legal;
}

// ---- 4.6 ---------------------------------------------------------------------------------------

type SendRow = Omit<SendConditions, 'capability'>;

/** Each rule of section 4.6 with its own conditions (full product), the rest valid. */
const SEND_RULE_TABLES: ReadonlyArray<{ rule: string; factors: Partial<Record<keyof SendRow, readonly string[]>> }> = [
  { rule: 'rule 1 (Idempotency-Key)', factors: { key: ['present', 'absent'], messageType: ['SMS', 'MMS'] } },
  { rule: 'rules 2 and 3 (media and messageType)', factors: { messageType: ['SMS', 'MMS'], media: ['absent', 'present', 'empty'], text: ['present', 'absent'] } },
  { rule: 'messageType (the table)', factors: { messageType: ['other', 'absent', 'wrong-type'], media: ['absent', 'present'] } },
  { rule: 'rules 4, 5 and 6 (sendFrom)', factors: { sendFrom: ['owned', 'unregistered', 'foreign', 'unknown', 'e164', 'absent', 'wrong-type'], messageType: ['SMS', 'MMS'] } },
  { rule: 'rule 6 and the table (to)', factors: { to: ['valid', 'empty', 'invalid', 'mixed', 'absent', 'wrong-type'], messageType: ['SMS', 'MMS'] } },
  { rule: 'the table (externalReference, text)', factors: { externalReference: ['present', 'absent', 'wrong-type'], text: ['present', 'wrong-type'], messageType: ['SMS', 'MMS'] } },
];

const VALID_SEND: SendRow = { key: 'present', messageType: 'SMS', media: 'absent', sendFrom: 'owned', to: 'valid', externalReference: 'present', text: 'present' };

/** A valid MMS carries media: a table that varies only messageType keeps media valid for each. */
function withValidMedia(row: SendRow, varied: Partial<Record<keyof SendRow, unknown>>): SendRow {
  if ('media' in varied) return row;
  return { ...row, media: row.messageType === 'MMS' ? 'present' : 'absent' };
}

function sendRows(): Array<{ table: string; row: SendRow }> {
  const rows = SEND_RULE_TABLES.flatMap(({ rule, factors }) => everyCombination(factors as Record<string, readonly string[]>).map((varied) => ({ table: rule, row: withValidMedia({ ...VALID_SEND, ...(varied as Partial<SendRow>) }, factors) })));
  const seen = new Set<string>();
  return rows.filter(({ row }) => !seen.has(JSON.stringify(row)) && !!seen.add(JSON.stringify(row)));
}

const SEND_PAIRWISE_FACTORS = {
  key: ['present', 'absent'],
  messageType: ['SMS', 'MMS', 'other', 'absent'],
  media: ['absent', 'present', 'empty'],
  sendFrom: ['owned', 'unregistered', 'foreign', 'unknown', 'e164', 'absent'],
  to: ['valid', 'empty', 'invalid', 'mixed', 'absent', 'wrong-type'],
  externalReference: ['present', 'absent'],
  text: ['present', 'absent'],
} as const;

interface SendContext {
  /** numberIds by the sendFrom condition they stand for, for each message type (an MMS comes from an MMS-capable number). */
  owned: { SMS: string; MMS?: string };
  unregistered?: string;
  /**
   * For each message type, a number without a campaignregId whose list shows that type on, where
   * the client has one: rule 5 then decides alone, where a number with the type off may be refused
   * for that (section 2 does not say what the setting changes) by a server that skips rule 5 there.
   */
  unregisteredFor: { SMS?: string; MMS?: string };
  foreign?: string;
  ownPhone: string;
  recipients: string[];
  media: unknown[];
  /** Each number's smsEnabled and mmsEnabled, as its list shows them. */
  records: Map<string, NumberRecord>;
}

/** The body and key of a row, or why the target cannot have it. */
function sendRequest(row: SendRow, ctx: SendContext, variant: number): { body: Record<string, unknown>; key?: string; ref: string } | { skip: string } {
  const type = row.messageType === 'MMS' ? 'MMS' : 'SMS';
  let sendFrom: unknown;
  switch (row.sendFrom) {
    case 'owned':
      sendFrom = ctx.owned[type] ?? ctx.owned.SMS;
      break;
    case 'unregistered':
      if (!ctx.unregistered) return { skip: 'no primary number without a campaignregId, and none whose registration could be cleared' };
      sendFrom = ctx.unregisteredFor[type] ?? ctx.unregistered;
      break;
    case 'foreign':
      if (!ctx.foreign) return { skip: 'no second client with a number' };
      sendFrom = ctx.foreign;
      break;
    case 'unknown':
      sendFrom = unknownNumberIdLike(ctx.owned.SMS);
      break;
    case 'e164':
      sendFrom = variant % 2 === 0 ? ctx.ownPhone : '+12025550199';
      break;
    case 'wrong-type':
      sendFrom = [42, null, true, { numberId: ctx.owned.SMS }][variant % 4];
      break;
    case 'absent':
      break;
  }
  const ref = externalRef('table');
  const [first, second] = ctx.recipients;
  const to = { valid: variant % 3 === 2 && second ? [first, second] : [first], empty: [], invalid: [['12025550100', '+1 202 555 0100', '+02025550100', '+1202555010012345'][variant % 4]], mixed: variant % 2 === 0 ? [first, '2025550100'] : ['2025550100', first], absent: undefined, 'wrong-type': first }[row.to];
  const messageType = { SMS: 'SMS', MMS: 'MMS', other: ['TEXT', 'sms', 'Mms', 'SMS '][variant % 4], absent: undefined, 'wrong-type': [1, null, ['SMS']][variant % 3] }[row.messageType];
  const body: Record<string, unknown> = {
    ...(row.sendFrom !== 'absent' && { sendFrom }),
    ...(to !== undefined && { to }),
    ...(messageType !== undefined && { messageType }),
    ...(row.text === 'present' && { text: `Conformance decision table ${ref}` }),
    ...(row.text === 'wrong-type' && { text: 42 }),
    ...(row.media === 'present' && { media: ctx.media }),
    ...(row.media === 'empty' && { media: [] }),
    ...(row.externalReference === 'present' && { externalReference: ref }),
    ...(row.externalReference === 'wrong-type' && { externalReference: 42 }),
  };
  if (row.media === 'present' && ctx.media.length === 0) return { skip: 'no media sample (mediaSample in the target config)' };
  return { body, ref, ...(row.key === 'present' && { key: randomUUID() }) };
}

/** A row's conditions, with the sendFrom number's own setting for the message type (section 2 does not say what it changes). */
function conditionsOf(row: SendRow, ctx: SendContext, body: Record<string, unknown>): SendConditions {
  const record = typeof body.sendFrom === 'string' ? ctx.records.get(body.sendFrom) : undefined;
  const field = row.messageType === 'MMS' ? 'mmsEnabled' : 'smsEnabled';
  const capability = record === undefined || !(field in record) ? 'unknown' : record[field] === true ? 'enabled' : 'disabled';
  return { ...row, capability: row.sendFrom === 'owned' || row.sendFrom === 'unregistered' ? capability : 'enabled' };
}

test.describe('4.6 as a decision table', () => {
  for (const which of ['each rule over every combination of its own conditions', 'all the rules together, every pair of conditions'] as const) {
    test(`sends of ${which} are answered as the document allows, and no refused one is ever reported by a callback`, { tag: ['@SEND-001', '@SEND-002', '@SEND-003', '@SEND-004', '@SEND-005', '@SEND-006', '@SEND-007', '@SEND-008', '@SEND-011', '@SEND-012', '@SEND-013', '@SEND-014', '@SEND-015', '@SEND-016'], ...HOLDS_EVERYTHING }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
      const sms = smsNumber(knownNumbers);
      const recipients = deliveredRecipients(target, 1);
      const records = new Map([...(await readNumbers(api)), ...(target.clients.secondary ? await readNumbers(api, 'secondary') : [])].map((r) => [r.numberId, r]));
      // A number without a campaignregId: the target's own, or one whose registration the settings fixture clears and puts back.
      let unregistered = knownNumbers.withoutCampaign;
      if (!unregistered) {
        const scratch = secondSmsNumber(knownNumbers);
        if (scratch && scratch !== knownNumbers.mms) {
          const cleared = await settings.change(scratch, { campaignregId: null });
          expect(cleared).toSucceed('UPD-004: precondition: clearing campaignregId through the update route');
          unregistered = scratch;
          records.set(scratch, { ...records.get(scratch)!, campaignregId: null });
        }
      }
      const ownPhone = knownNumbers.primary.flatMap(({ numberId: _, ...fields }) => Object.values(fields)).find((v): v is string => typeof v === 'string' && /^\+[1-9]\d{1,14}$/.test(v)) ?? '+12025550199';
      const unregisteredWith = (field: 'smsEnabled' | 'mmsEnabled') => knownNumbers.primary.find((n) => n.campaignregId === null && n[field] === true)?.numberId;
      const [unregisteredSms, unregisteredMms] = [unregisteredWith('smsEnabled'), unregisteredWith('mmsEnabled')];
      const unregisteredFor = { ...(unregisteredSms && { SMS: unregisteredSms }), ...(unregisteredMms && { MMS: unregisteredMms }) };
      const ctx: SendContext = { owned: { SMS: sms, ...(knownNumbers.mms && { MMS: knownNumbers.mms }) }, ...(unregistered && { unregistered }), unregisteredFor, ...(knownNumbers.foreign && { foreign: knownNumbers.foreign }), ownPhone, recipients, media: target.mediaSample, records };
      // Every number a row sends from reports to one channel, so a refused send that was queued shows there.
      const channel = webhooks.channel('decision-table');
      for (const numberId of new Set([sms, knownNumbers.mms, unregistered, unregisteredFor.SMS, unregisteredFor.MMS].filter((n): n is string => n !== undefined))) await deliverTo(settings, numberId, channel.url, 'SEND-015');
      if (knownNumbers.foreign && target.clients.secondary) {
        const set = await settings.change(knownNumbers.foreign, { webhookDeliveryOverride: channel.url }, 'secondary');
        expect(set).toSucceed(`UPD-001: precondition: the second client points its number ${knownNumbers.foreign}'s delivery callbacks at the harness`);
      }
      const rows = which === 'each rule over every combination of its own conditions'
        ? sendRows()
        : pairwiseCombinations(SEND_PAIRWISE_FACTORS).map((row) => ({ table: 'pairwise', row: row as SendRow }));
      const refused: string[] = [];
      const accepted: string[] = [];
      const skipped = new Set<string>();
      // Rows share nothing (each its own key and externalReference): they go out CASES_AT_ONCE at a time.
      const sendRow = async ({ table, row }: (typeof rows)[number], i: number) => {
        const request = sendRequest(row, ctx, i);
        if ('skip' in request) {
          skipped.add(request.skip);
          return;
        }
        const ruling = sendRuling(conditionsOf(row, ctx, request.body));
        const res = await api.call('send', { json: request.body, ...(request.key !== undefined && { headers: { 'idempotency-key': request.key } }) });
        const name = `row ${i + 1} of ${rows.length} (${table}: ${Object.entries(row).map(([k, v]) => `${k} ${v}`).join(', ')}), ${JSON.stringify(request.body).slice(0, 200)}`;
        const legal = judgeRow(ruling, res, name);
        const ids = messageIdsOf(res);
        if (res.status >= 200 && res.status < 300) {
          accepted.push(...ids);
          if (legal) {
            expect.soft(ids.length > 0 && reportsQueued(res.body), `SEND-008: ${name} was accepted: the answer names its messages and reports QUEUED; got ${res.text.slice(0, 200)}`).toBe(true);
          }
        } else {
          refused.push(request.ref);
          expect.soft(ids, `${judgeRuling(ruling, { status: res.status, body: res.body }).by?.id ?? 'SEND-015'}: ${name} was refused: the answer names no accepted message`).toEqual([]);
        }
      };
      for (let i = 0; i < rows.length; i += CASES_AT_ONCE) await Promise.all(rows.slice(i, i + CASES_AT_ONCE).map((row, j) => sendRow(row, i + j)));
      if (skipped.size === rows.length) notTestable([...skipped].join('; '));
      if (skipped.size > 0) test.info().annotations.push({ type: 'note', description: `rows left out: ${[...skipped].join('; ')}` });
      await expectNoStrayCallbacks(api, target, channel, sms, newKey(), refused, 'SEND-015', 'a refused send of the table', accepted);
    });
  }
});

// ---- 4.5 ---------------------------------------------------------------------------------------

const UPDATE_FACTORS = {
  number: ['own', 'foreign', 'unknown'],
  campaignregId: ['absent', 'value', 'null', 'wrong-type'],
  smsEnabled: ['absent', 'value', 'null', 'wrong-type'],
  mmsEnabled: ['absent', 'value', 'null', 'wrong-type'],
  webhookInboundOverride: ['absent', 'value', 'null', 'wrong-type'],
  webhookDeliveryOverride: ['absent', 'value', 'null', 'wrong-type'],
} as const;
type UpdateRow = Row<typeof UPDATE_FACTORS>;

const WRONG: Record<'string' | 'boolean', readonly unknown[]> = { string: [42, true, { value: 'x' }, ['x']], boolean: ['true', 1, { value: true }, [false]] };

test.describe('4.5 as a decision table', () => {
  test('updates of every pair of attribute conditions, on the client\'s own number, another client\'s and one never issued, change exactly what the document says, and nothing else anywhere', { tag: ['@UPD-001', '@UPD-002', '@UPD-003', '@UPD-004', '@UPD-005', '@UPD-006', '@UPD-007'], ...HOLDS_EVERYTHING }, async ({ api, target, knownNumbers, settings, webhooks }) => {
    const roles = target.clients.secondary ? (['primary', 'secondary'] as const) : (['primary'] as const);
    const lists = () => everyClientsNumbers(api, target);
    const start = await lists();
    for (const role of roles) for (const record of start[role]!) settings.remember(record, role);
    // The own numbers the table changes, each in turn, and the other client's likewise: a server
    // whose numbers share state (one settings object for several) is right on one number and wrong
    // on its neighbours. Those other suites send from come last (the test holds everything, and
    // the settings fixture puts every number back).
    const reserved = new Set([knownNumbers.sms, knownNumbers.mms]);
    const owns = [...start.primary!.filter((n) => !reserved.has(n.numberId)), ...start.primary!.filter((n) => reserved.has(n.numberId))];
    if (owns.length === 0) notTestable('the primary client has no numbers');
    const foreigns = start.secondary ?? [];
    const registrations = [...new Set(start.primary!.map((n) => n.campaignregId).filter((c): c is string => typeof c === 'string' && c !== ''))];
    // Each attribute alone in each condition (the full product of one attribute), then every pair of conditions of the whole update.
    const single = (['own', 'foreign', 'unknown'] as const).flatMap((number) => SETTABLE.flatMap((field) => (['value', 'null', 'wrong-type'] as const).map((c) => ({ number, ...Object.fromEntries(SETTABLE.map((f) => [f, f === field ? c : 'absent'])) }) as UpdateRow)));
    const pairs = pairwiseCombinations(UPDATE_FACTORS, (row) => SETTABLE.some((f) => row[f] !== 'absent'));
    // A pairwise row that holds two new values may be refused for a third condition or aimed at
    // another number: every pair of new values, and all of them, on the client's own number, are
    // rows of their own, so an update that drops one of several fields is seen applying.
    const together = (fields: readonly Settable[]) => ({ number: 'own', ...Object.fromEntries(SETTABLE.map((f) => [f, fields.includes(f) ? 'value' : 'absent'])) }) as UpdateRow;
    const valuesTogether = [...SETTABLE.flatMap((a, i) => SETTABLE.slice(i + 1).map((b) => together([a, b]))), together(SETTABLE)];
    // Likewise a null beside another attribute's value or null, on the client's own number (the
    // null given to a number that holds a value, below): a server that drops a null when the body
    // names more is right on the null alone.
    const withNull = (nulled: Settable, other: Settable, condition: 'value' | 'null') => ({ number: 'own', ...Object.fromEntries(SETTABLE.map((f) => [f, f === nulled ? 'null' : f === other ? condition : 'absent'])) }) as UpdateRow;
    const nullsBeside = NULLABLE_FIELDS.flatMap((nulled, i) => [
      ...SETTABLE.filter((other) => other !== nulled).map((other) => withNull(nulled, other, 'value')),
      ...NULLABLE_FIELDS.slice(i + 1).map((other) => withNull(nulled, other, 'null')),
    ]);
    // The update naming no attribute at all, on each kind of number (UPD-003: every field is optional, so none is a request too).
    const empty = (['own', 'foreign', 'unknown'] as const).map((number) => ({ number, ...Object.fromEntries(SETTABLE.map((f) => [f, 'absent'])) }) as UpdateRow);
    const rows = [...single, ...valuesTogether, ...nullsBeside, ...empty, ...pairs];
    let before = start;
    for (const [i, row] of rows.entries()) {
      const own = owns[i % owns.length]!;
      const foreign = foreigns[i % Math.max(foreigns.length, 1)];
      const target_ = row.number === 'own' ? own : row.number === 'foreign' ? foreign : undefined;
      if (row.number === 'foreign' && !target_) continue;
      const numberId = row.number === 'unknown' ? unknownNumberIdLike(own.numberId) : target_!.numberId;
      const shownRecord = target_ ?? own;
      // A null the number already holds shows nothing: where the row sets a nullable attribute of
      // the client's own number to null and the number holds null, it is given a value first (an
      // update of its own, judged as one), so that a server that drops the null beside other
      // attributes is seen keeping the value.
      if (row.number === 'own') {
        const current = before.primary!.find((n) => n.numberId === numberId) ?? shownRecord;
        const prep: Record<string, unknown> = {};
        for (const field of NULLABLE_FIELDS) {
          if (row[field] !== 'null' || !(field in current) || current[field] !== null) continue;
          if (field !== 'campaignregId') prep[field] = webhooks.channel(`table-${i}-${field}-before`).url;
          else if (registrations.length > 0) prep[field] = registrations[i % registrations.length];
        }
        if (Object.keys(prep).length > 0) {
          expect.soft(await api.call('update', { params: { numberId }, json: prep }), `UPD-001: precondition of row ${i + 1}: ${numberId} is given ${JSON.stringify(prep)} before the row sets it to null`).toSucceed('UPD-001');
          before = await lists();
        }
      }
      const body: Record<string, unknown> = {};
      const conditions = {} as Record<Settable, FieldCondition>;
      for (const [k, field] of SETTABLE.entries()) {
        let condition: FieldCondition = row[field];
        // Only what the list shows can be seen to change and be put back.
        if (!(field in shownRecord)) condition = 'absent';
        conditions[field] = condition;
        if (condition === 'absent') continue;
        const boolean = field === 'smsEnabled' || field === 'mmsEnabled';
        if (condition === 'null') body[field] = null;
        else if (condition === 'wrong-type') body[field] = WRONG[boolean ? 'boolean' : 'string'][(i + k) % 4];
        else if (boolean) body[field] = (before.primary!.find((n) => n.numberId === numberId) ?? shownRecord)[field] !== true;
        else if (field === 'campaignregId') {
          // A server may accept only registrations it knows: one the client's numbers carry.
          if (registrations.length === 0) {
            body[field] = null;
            conditions[field] = 'null';
          } else body[field] = registrations[i % registrations.length];
        } else body[field] = webhooks.channel(`table-${i}-${field}`).url;
      }
      // A row whose attributes the list does not show sends nothing it could judge beyond the empty rows.
      if (Object.keys(body).length === 0 && !empty.includes(row)) continue;
      const ruling = updateRuling({ number: row.number, fields: conditions });
      const res = await api.call('update', { params: { numberId }, json: body });
      const name = `row ${i + 1} of ${rows.length} (${row.number} number ${numberId}: ${SETTABLE.map((f) => `${f} ${conditions[f]}`).join(', ')}), body ${JSON.stringify(body)}`;
      const legal = judgeRow(ruling, res, name);
      const after = await lists();
      // What every number of every client must show now: the named attributes of the number, if accepted; nothing else.
      const changed = legal && res.status >= 200 && res.status < 300 && row.number === 'own';
      // Every difference from what the row allows, by the requirement it breaks; a soft check only where there is one.
      const problems = new Map<string, string[]>();
      const note = (id: string, what: string) => problems.set(id, [...(problems.get(id) ?? []), what]);
      const refusedBy = judgeRuling(ruling, { status: res.status, body: res.body }).by?.id ?? ruling.firings[0]!.id;
      for (const role of roles) {
        for (const was of before[role]!) {
          const now = after[role]!.find((n) => n.numberId === was.numberId);
          const mine = changed && was.numberId === numberId;
          for (const field of SETTABLE) {
            if (!(field in was)) continue;
            const expected = mine && field in body ? body[field] : was[field];
            if (JSON.stringify(now?.[field]) === JSON.stringify(expected)) continue;
            const id = mine ? (field in body ? 'UPD-001' : 'UPD-003') : changed ? 'UPD-007' : refusedBy;
            note(id, `the ${role} client's ${was.numberId}.${field} is ${JSON.stringify(now?.[field])}, expected ${JSON.stringify(expected)}`);
          }
        }
        const ids = (l: NumberRecord[]) => JSON.stringify(l.map((n) => n.numberId).sort());
        if (ids(after[role]!) !== ids(before[role]!)) note(row.number === 'unknown' ? 'UPD-006' : 'UPD-007', `the ${role} client's list holds ${ids(after[role]!)}, it held ${ids(before[role]!)}`);
      }
      for (const [id, what] of problems) expect.soft(what, `${id}: after ${name}, only what the update names may change`).toEqual([]);
      before = after;
    }
  });
});

// ---- 4.1 and 7.1 -------------------------------------------------------------------------------

/** Each condition of section 7.1 over every way of authenticating (section 5 rule 1), the rest valid. */
const TOKEN_TABLES: ReadonlyArray<Partial<Record<keyof TokenConditions, readonly string[]>>> = [
  { style: ['json', 'form', 'basic'], secret: ['valid', 'wrong', 'absent', 'empty'] },
  { style: ['json', 'form', 'basic'], clientId: ['valid', 'unknown', 'absent', 'empty'] },
  { style: ['json', 'form', 'basic'], grantType: ['client_credentials', 'other', 'other-case', 'absent'] },
];
const VALID_TOKEN: TokenConditions = { style: 'json', grantType: 'client_credentials', clientId: 'valid', secret: 'valid' };

test.describe('7.1 as a decision table', () => {
  test('token requests of each condition of section 7.1, in each way a client authenticates, get the error the document names or a token', { tag: ['@TOKEN-003', '@TOKEN-004', '@TOKEN-005', '@TOKEN-006', '@TOKEN-007', '@TOKEN-008', '@TOKEN-009', '@TOKEN-002'] }, async ({ api, target }) => {
    const rows = TOKEN_TABLES.flatMap((factors) => everyCombination(factors as Record<string, readonly string[]>).map((varied) => ({ ...VALID_TOKEN, ...(varied as Partial<TokenConditions>) })));
    const unique = [...new Map(rows.map((r) => [JSON.stringify(r), r])).values()];
    // Failed authentications of a known client are spread over the clients the config names, so a
    // server's per-client failure limit is met as late as it can be.
    const known = [target.clients.primary, target.clients.secondary].filter((c) => c !== undefined);
    // Rows are independent requests: CASES_AT_ONCE at a time.
    const tokenRow = async (row: TokenConditions, i: number) => {
      const client = known[i % known.length]!;
      const id = { valid: client.clientId, unknown: `no-such-client-${randomUUID().slice(0, 8)}`, absent: undefined, empty: '' }[row.clientId];
      const secret = { valid: client.clientSecret, wrong: `${client.clientSecret}-wrong`, absent: undefined, empty: '' }[row.secret];
      // 'other-case': client_credentials in capitals, another value all the same (OAuth compares values as strings).
      const grant = { client_credentials: 'client_credentials', other: 'password', 'other-case': 'CLIENT_CREDENTIALS', absent: undefined }[row.grantType];
      const fields = Object.fromEntries(Object.entries({ grant_type: grant, ...(row.style !== 'basic' && { client_id: id, client_secret: secret }) }).filter(([, v]) => v !== undefined)) as Record<string, string>;
      let res: ApiResponse;
      if (row.style === 'json') res = await api.call('token', { json: fields });
      else if (row.style === 'form') res = await api.call('token', { form: fields });
      else {
        // Basic: an absent secret is a user with no colon, an empty one "id:"; an absent id sends no credentials at all.
        const header = id === undefined ? undefined : secret === undefined ? `Basic ${Buffer.from(id).toString('base64')}` : basicCredentials(id, secret);
        res = await api.call('token', { form: fields, ...(header !== undefined && { headers: { authorization: header } }) });
      }
      const name = `row ${i + 1} of ${unique.length} (${Object.entries(row).map(([k, v]) => `${k} ${v}`).join(', ')})`;
      const ruling = tokenRuling(row);
      judgeRow(ruling, res, name);
      if (res.status >= 200 && res.status < 300) {
        expect.soft(typeof res.body?.access_token, `TOKEN-002: ${name} was accepted: it carries an access_token`).toBe('string');
      } else {
        expect.soft(typeof res.body?.error_description, `TOKEN-006: ${name} was refused in the OAuth body, with error_description; got ${res.text.slice(0, 200)}`).toBe('string');
      }
    };
    for (let i = 0; i < unique.length; i += CASES_AT_ONCE) await Promise.all(unique.slice(i, i + CASES_AT_ONCE).map((row, j) => tokenRow(row, i + j)));
  });
});
