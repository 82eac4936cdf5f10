import { itemsAt } from '../../harness/config.ts';
import { readNumbers, type NumberRecord } from '../../harness/known-numbers.ts';
import { HOLDS_EVERY_NUMBER, expect, notTestable, test } from '../../harness/fixtures.ts';
import { admittedPhoneOf, deliveredRecipients, send, smsNumber, smsPayload } from '../support/sends.ts';
import { everyClientsNumbers, recordOf } from '../support/settings.ts';

// Sections 1, 2 and 4.3: the numbers list. Its method and envelope are not shown: the api
// client reads the items where the target's config says they are (routes.numbers.itemsPath).

const E164 = /^\+[1-9]\d{1,14}$/;

/** How many numbers requests of the two clients, interleaved, are sent at once. */
const CONCURRENT_LISTS = 20;
/**
 * How many such bursts: on a loaded machine the requests of one burst may reach the server too
 * far apart to overlap (the kill matrix missed numbers.client-race with three, under load 7).
 */
const CONCURRENT_ROUNDS = 10;

/** The settable attributes of section 2 and the types it gives them. */
const SETTABLE: ReadonlyArray<{ field: keyof NumberRecord & string; types: ReadonlyArray<'string' | 'null' | 'boolean'> }> = [
  { field: 'campaignregId', types: ['string', 'null'] },
  { field: 'smsEnabled', types: ['boolean'] },
  { field: 'mmsEnabled', types: ['boolean'] },
  { field: 'webhookInboundOverride', types: ['string', 'null'] },
  { field: 'webhookDeliveryOverride', types: ['string', 'null'] },
];

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

test.describe('4.3 List active numbers', () => {
  test('the list answers 2xx with the client\'s numbers, each carrying a numberId string, every one the config or the client context names among them', { tag: ['@NUM-001'] }, async ({ api, target }) => {
    const res = await api.call('numbers');
    expect(res).toSucceed('NUM-001: the numbers route answers 2xx');
    const path = target.routes.numbersItemsPath;
    const items = itemsAt(res.body, path);
    expect(Array.isArray(items), `NUM-001: the items are an array at ${path ? `'${path}'` : 'the top level'} (routes.numbers.itemsPath)`).toBe(true);
    for (const [i, item] of (items as Array<Record<string, unknown>>).entries()) {
      expect.soft(typeof item?.numberId === 'string' && item.numberId !== '', `NUM-001: item ${i} carries a non-empty numberId string; got ${JSON.stringify(item).slice(0, 200)}`).toBe(true);
    }
    // Where the config names the client's numbers, they are known to be assigned: each is listed.
    // (A separate test would be "not testable" on every target that names none.)
    const ids = (items as Array<Record<string, unknown>>).map((item) => item?.numberId);
    for (const [role, id] of Object.entries(target.numbers)) {
      if (role !== 'foreign' && typeof id === 'string') expect.soft(ids, `NUM-001: the configured ${role} number ${id} is listed`).toContain(id);
    }
    // The pool likewise, each client's numbers in its own list: a list cut short (a page size
    // off by one) is right for a client with few numbers and leaves out another client's last.
    const pool = target.numbers.pool;
    for (const id of pool?.primary ?? []) expect.soft(ids, `NUM-001: the primary client's pool number ${id} (numbers.pool.primary) is listed`).toContain(id);
    if (target.clients.secondary && pool?.secondary?.length) {
      const secondary = await api.call('numbers', { as: 'secondary' });
      expect(secondary).toSucceed("NUM-001: the numbers route answers the secondary client 2xx");
      const theirs = (itemsAt(secondary.body, path) as Array<Record<string, unknown>> | undefined)?.map((item) => item?.numberId) ?? [];
      for (const id of pool.secondary) expect.soft(theirs, `NUM-001: the secondary client's pool number ${id} (numbers.pool.secondary) is listed`).toContain(id);
    }
    // The client context's assignedNumbers is an object whose shape section 2 does not show. Where
    // it names numberIds (an array of strings, one of them listed), it names the client's
    // numbers, and the list holds every one: a list cut short (a page size left in a query) is
    // right for a client with few numbers and wrong for one with more.
    const context = await api.call('whoami');
    const assigned: unknown = context.status >= 200 && context.status < 300 ? context.body?.assignedNumbers : undefined;
    const named = assigned !== null && typeof assigned === 'object' && !Array.isArray(assigned)
      ? Object.values(assigned).filter((v): v is string[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string') && v.some((x) => ids.includes(x)))
      : [];
    for (const id of named.flat()) expect.soft(ids, `NUM-001: ${id}, which the client context names in assignedNumbers, is listed`).toContain(id);
  });

  test('every listed numberId with a campaignregId is accepted as sendFrom, for every client the config names', { tag: ['@NUM-002'], ...HOLDS_EVERY_NUMBER }, async ({ api, target, newKey }) => {
    // A number with SMS disabled may rightly be refused for SMS; the document does not say.
    // Every client's own list, each client sending from its own: a server that checks ownership
    // against the client id in another form (encoded, decoded) refuses the client whose id has
    // characters that need encoding, and only that one.
    // Another client is tried where its context names SMS among its capabilities (their shape is
    // not shown, so any mention counts): a client without it may be refused for a rule not shown.
    const sends = async (role: 'secondary' | 'special') => JSON.stringify((await api.call('whoami', { as: role })).body?.capabilities ?? null).includes('SMS');
    const roles = [
      'primary' as const,
      ...(await Promise.all((['secondary', 'special'] as const).filter((role) => target.clients[role] !== undefined).map(async (role) => ((await sends(role)) ? [role] : [])))).flat(),
    ];
    const usable = (await Promise.all(roles.map(async (role) => (await readNumbers(api, role)).map((n) => ({ role, n })))))
      .flat()
      .filter(({ n }) => typeof n.campaignregId === 'string' && n.campaignregId !== '' && n.smsEnabled !== false);
    if (usable.length === 0) notTestable('no listed number has a campaignregId with SMS enabled, so none is expected to be usable as sendFrom');
    for (const { role, n: { numberId } } of usable) {
      const res = await api.call('send', { headers: { 'idempotency-key': newKey() }, json: smsPayload(numberId, deliveredRecipients(target), 'num-002'), as: role });
      expect.soft(res).toSucceed(`NUM-002: a send by the ${role} client from its listed number ${numberId} is accepted`);
      const ids = Array.isArray(res.body?.results) ? res.body.results.map((r: { messageId?: unknown }) => r?.messageId).filter((m: unknown) => typeof m === 'string') : [];
      expect.soft(ids.length, `NUM-002: the send from ${numberId} returns a messageId; body ${res.text.slice(0, 200)}`).toBeGreaterThan(0);
    }
  });

  test("another client's numbers never appear in the list", { tag: ['@NUM-003'] }, async ({ api, secondClient }) => {
    const mine = await readNumbers(api, 'primary');
    const theirs = await readNumbers(api, 'secondary');
    if (theirs.length === 0) notTestable('the second client has no numbers, so none could leak into the primary client\'s list');
    const leaked = mine.filter((n) => theirs.some((t) => t.numberId === n.numberId)).map((n) => n.numberId);
    expect(leaked, `NUM-003: the primary client's list holds none of the numberIds of the second client (${secondClient.clientId})`).toEqual([]);
  });

  test("numbers requests of two clients sent at once each answer only the caller's numbers", { tag: ['@NUM-003'] }, async ({ api, secondClient }) => {
    // The list is the authenticated client's however many requests are in flight: a server that
    // keeps "the current client" anywhere but in the request answers one client with another's.
    const alone = { primary: (await readNumbers(api, 'primary')).map((n) => n.numberId), secondary: (await readNumbers(api, 'secondary')).map((n) => n.numberId) };
    if (alone.primary.length + alone.secondary.length === 0) notTestable('neither client has numbers, so none could appear in the wrong list');
    const who = { primary: 'the primary client', secondary: `the second client (${secondClient.clientId})` };
    const roles = Array.from({ length: CONCURRENT_LISTS }, (_, i) => (i % 2 === 0 ? 'primary' : 'secondary') as 'primary' | 'secondary');
    // Several bursts: on a loaded machine one burst's requests may reach the server too far apart to overlap.
    for (let round = 1; round <= CONCURRENT_ROUNDS; round++) {
      const answers = await Promise.all(roles.map(async (as) => ({ as, ids: (await readNumbers(api, as)).map((n) => n.numberId) })));
      for (const [i, { as, ids }] of answers.entries()) {
        const other = as === 'primary' ? 'secondary' : 'primary';
        const foreign = ids.filter((id) => !alone[as].includes(id)).map((id) => (alone[other].includes(id) ? `${id} (the ${other} client's)` : id));
        expect.soft(foreign, `NUM-003: request ${i + 1} of ${roles.length} sent at once (burst ${round}), by ${who[as]}, lists none but the numbers it lists alone (${alone[as].join(', ') || 'none'})`).toEqual([]);
      }
    }
  });

  // The neighbour of a send: its recipient, where that is a number the service holds. A send to
  // another of the client's own numbers (traffic that stays in the service) must not change the
  // recipient's settings either: a server that turns SMS on for a number SMS arrives at is right
  // on every recipient whose SMS is already on. So the recipient's SMS is turned off first (the
  // settings fixture puts it back), and every number of both clients is compared, before and
  // after the send and a moment for the traffic to arrive.
  test("a send to another of the client's own numbers, whose SMS is off, leaves every number as the lists showed it", { tag: ['@NUM-006'], ...HOLDS_EVERY_NUMBER }, async ({ api, target, knownNumbers, settings, newKey }) => {
    const sendFrom = smsNumber(knownNumbers);
    const phoneOf = admittedPhoneOf(target);
    const recipient = knownNumbers.primary.find((n) => n.numberId !== sendFrom && phoneOf(n) !== undefined);
    if (!recipient) notTestable("no other number of the primary client lists a phone number recipients.allowPattern admits: there is no own number to send to");
    const off = await settings.change(recipient!.numberId, { smsEnabled: false });
    expect(off).toSucceed(`NUM-006: precondition: turning SMS off on ${recipient!.numberId} through the update route`);
    const everything = () => everyClientsNumbers(api, target);
    const before = await everything();
    const started = Date.now();
    const res = await send(api, newKey(), smsPayload(sendFrom, [phoneOf(recipient!)!], 'num-006-own-recipient'));
    await new Promise((resolve) => setTimeout(resolve, Math.max(1_000, 2 * (Date.now() - started))));
    expect(await everything(), `NUM-006: after a send from ${sendFrom} to ${phoneOf(recipient!)}, the client's own number ${recipient!.numberId} whose SMS was off (answered ${res.status}), every number of every client is as the lists showed it`).toEqual(before);
  });

  // Section 4.5: a number's settings change through the update, and only through it. A server
  // that writes a registration back in its own spelling when it sends (trimmed, in upper case)
  // is right on registrations already spelled so, and wrong on one that is not.
  test('a campaignregId the update set in other letter case is listed as set, and a send leaves it so', { tag: ['@NUM-006', '@UPD-001'] }, async ({ api, target, knownNumbers, settings, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const current = (await recordOf(api, numberId, 'primary', 'NUM-006')).campaignregId;
    if (typeof current !== 'string' || current.toLowerCase() === current.toUpperCase()) notTestable(`the campaignregId of ${numberId} (${JSON.stringify(current)}) has no letters whose case could change`);
    const spelled = current!.toLowerCase() !== current ? current!.toLowerCase() : current!.toUpperCase();
    const set = await settings.change(numberId, { campaignregId: spelled });
    if (set.status < 200 || set.status >= 300) notTestable(`the update of ${numberId}'s campaignregId to ${JSON.stringify(spelled)} was refused (${set.status}): a server may take only the registrations it knows`);
    // An update the server took shows the value it was given (a server that knows only some
    // registrations refuses the others, above): one stored in its own spelling is not the value set.
    const listed = (await recordOf(api, numberId, 'primary', 'NUM-006')).campaignregId;
    expect(listed, `UPD-001: the update of ${numberId}'s campaignregId to ${JSON.stringify(spelled)} was accepted (${set.status}), and the list shows that value`).toBe(spelled);
    // Accepted or refused (a server may not know the registration in this spelling), the send must not change the number.
    const res = await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'num-006-spelling'));
    const after = (await recordOf(api, numberId, 'primary', 'NUM-006')).campaignregId;
    expect(after, `NUM-006: after a send from ${numberId} (answered ${res.status}), its campaignregId is still ${JSON.stringify(spelled)}, as the update set it`).toBe(spelled);
  });

  test('no numberId is an E.164 phone number', { tag: ['@NUM-004'] }, async ({ api, target }) => {
    const records = [...(await readNumbers(api, 'primary')), ...(target.clients.secondary ? await readNumbers(api, 'secondary') : [])];
    if (records.length === 0) notTestable('no client has numbers to inspect');
    for (const record of records) {
      expect.soft(E164.test(record.numberId), `NUM-004: numberId ${record.numberId} is not an E.164 number`).toBe(false);
      // The record's own phone numbers (any E.164 string in it), with or without the '+'.
      const phones = Object.values(record).filter((v): v is string => typeof v === 'string' && E164.test(v));
      for (const phone of phones) {
        expect.soft([phone, phone.slice(1)], `NUM-004: numberId ${record.numberId} is not the number's phone number ${phone}`).not.toContain(record.numberId);
      }
    }
  });

  test('the campaign registration field is spelled campaignregId', { tag: ['@NUM-005'] }, async ({ api }) => {
    const records = await readNumbers(api);
    if (records.length === 0) notTestable('the primary client has no numbers to inspect');
    for (const record of records) {
      const misspelt = Object.keys(record).filter((k) => k !== 'campaignregId' && /^campaign[\W_]*reg/i.test(k));
      expect.soft(misspelt, `NUM-005: number ${record.numberId} carries the campaign registration as campaignregId only`).toEqual([]);
    }
  });

  test('the settable fields, where a listed number carries them, have the types of section 2', { tag: ['@NUM-005'] }, async ({ api }) => {
    const records = await readNumbers(api);
    if (records.length === 0) notTestable('the primary client has no numbers to inspect');
    // "Where present": a field a target leaves out of its records is not a failure here.
    for (const record of records) {
      for (const { field, types } of SETTABLE) {
        if (!(field in record)) continue;
        expect.soft(types as readonly string[], `NUM-005: ${field} of ${record.numberId} is ${types.join(' or ')}; got ${JSON.stringify(record[field])}`).toContain(typeOf(record[field]));
      }
    }
  });
});
