import { answerOf, type ApiClient, type ApiResponse, type SchemaViolationError } from '../../harness/api-client.ts';
import { expect, notTestable, test } from '../../harness/fixtures.ts';
import { readNumbers } from '../../harness/known-numbers.ts';
import { stringsIn } from '../../harness/webhook-receiver.ts';
import { SEARCH_CANDIDATES, SEARCH_PROBE, acceptedSearch } from '../support/core-routes.ts';
import { SETTABLE_FIELDS, differentValue, scratchNumber } from '../support/settings.ts';

// Section 4.4: the number search. Its path, method and success status come from the target's
// config; which request fields are required is not shown, so a search the target accepts is
// found among a few plausible bodies (SEARCH_CANDIDATES) before its answer is checked.

/** A search the target accepts, or a failure that lists every answer it gave. */
async function acceptedAnswer(api: ApiClient): Promise<ApiResponse> {
  const found = await acceptedSearch(api);
  const seen = found.answers.map((r, i) => `    ${JSON.stringify(SEARCH_CANDIDATES[i])} → ${r.status} ${r.text.slice(0, 120)}`).join('\n');
  expect(found.response, `SEARCH-001: a search with a JSON body is answered 2xx for at least one of these bodies:\n${seen}`).toBeDefined();
  return found.response!;
}

test.describe('4.4 Search available numbers', () => {
  test('a search answers groups as an array', { tag: ['@SEARCH-001'] }, async ({ api }) => {
    const res = await acceptedAnswer(api);
    expect(Array.isArray(res.body.groups), `SEARCH-001: groups is an array; body ${res.text.slice(0, 200)}`).toBe(true);
  });

  test('a search answers providerResultCount as a number', { tag: ['@SEARCH-001'] }, async ({ api }) => {
    const res = await acceptedAnswer(api);
    expect(typeof res.body.providerResultCount, `SEARCH-001: providerResultCount is a number; body ${res.text.slice(0, 200)}`).toBe('number');
  });

  test('a search answers requestedQuantity as a number', { tag: ['@SEARCH-001'] }, async ({ api }) => {
    const res = await acceptedAnswer(api);
    expect(typeof res.body.requestedQuantity, `SEARCH-001: requestedQuantity is a number; body ${res.text.slice(0, 200)}`).toBe('number');
  });

  // Siblings of the accepted search: which fields a search needs is not shown, so any of these
  // may be refused; one that is answered 2xx answers all three fields (section 4.4) whichever
  // criteria it named. Each field alone, every pair, all of them and none.
  test('a search naming any field, any pair of fields, all or none, when accepted, answers groups, providerResultCount and requestedQuantity', { tag: ['@SEARCH-001'] }, async ({ api }) => {
    const fields = SEARCH_CANDIDATES.at(-2)!;
    const names = Object.keys(fields);
    const pick = (chosen: string[]) => Object.fromEntries(chosen.map((k) => [k, fields[k]!]));
    const bodies = [{}, pick(names), ...names.map((k) => pick([k])), ...names.flatMap((a, i) => names.slice(i + 1).map((b) => pick([a, b])))];
    const answers = await Promise.all(bodies.map(async (body) => ({ body, res: await api.call('search', { json: body }) })));
    const accepted = answers.filter(({ res }) => res.status >= 200 && res.status < 300);
    if (accepted.length === 0) notTestable('the target accepted none of these searches (SEARCH-001 reports the accepted search it needs)');
    for (const { body, res } of accepted) {
      const b = res.body ?? {};
      expect.soft(Array.isArray(b.groups) && typeof b.providerResultCount === 'number' && typeof b.requestedQuantity === 'number', `SEARCH-001: the search ${JSON.stringify(body)} was answered ${res.status} with groups ${JSON.stringify(b.groups)?.slice(0, 40)}, providerResultCount ${JSON.stringify(b.providerResultCount)}, requestedQuantity ${JSON.stringify(b.requestedQuantity)}`).toBe(true);
    }
  });

  // Siblings in the values: each criterion is a string (section 4.4), and a place name may hold
  // letters outside ASCII, or a space. Which values a search takes is not shown, so each may be
  // refused as a request defect, or fail upstream (502, SEARCH-002); what it may not be is the
  // server's own failure: a server whose upstream query is built for ASCII alone answers 500.
  test('a search whose criterion holds letters outside ASCII or a space is answered as a search, refused as a request defect or failed upstream, never a 5xx of its own', { tag: ['@SEARCH-001'] }, async ({ api }) => {
    const bodies = [{ city: 'Montr\u00e9al' }, { city: 'San Francisco' }, { state: 'Qu\u00e9bec' }, { rateCenter: 'S\u00e3o Paulo' }, { city: '\u6771\u4eac' }];
    const answers = await Promise.all(bodies.map(async (body) => ({ body, res: await api.call('search', { json: body }) })));
    for (const { body, res } of answers) {
      expect.soft(res.status >= 500 && res.status !== 502, `SEARCH-001: the search ${JSON.stringify(body)} was answered ${res.describe()} ${res.text.slice(0, 160)}: a search is answered, refused as a request defect, or failed upstream (502), not failed by the server itself`).toBe(false);
      if (res.status >= 200 && res.status < 300) {
        const b = res.body ?? {};
        expect.soft(Array.isArray(b.groups) && typeof b.providerResultCount === 'number' && typeof b.requestedQuantity === 'number', `SEARCH-001: the search ${JSON.stringify(body)} was answered ${res.status} with groups ${JSON.stringify(b.groups)?.slice(0, 40)}, providerResultCount ${JSON.stringify(b.providerResultCount)}, requestedQuantity ${JSON.stringify(b.requestedQuantity)}`).toBe(true);
      }
    }
  });

  // The sibling of a search that finds numbers: one that finds none. groups is still an array
  // (an empty one), providerResultCount and requestedQuantity still numbers, not null or absent:
  // a server right on the first can be wrong on this.
  test('a search that finds nothing answers groups as an array, providerResultCount and requestedQuantity as numbers, too', { tag: ['@SEARCH-001'] }, async ({ api }) => {
    const found = await acceptedSearch(api);
    if (!found.body) notTestable('no search body among the candidates was accepted (SEARCH-001 reports why)');
    const NOWHERE: Record<string, string> = { npa: '999', nxx: '999', city: 'Nowhere', state: 'ZZ', zipCode: '00000', rateCenter: 'NOWHERE' };
    const body = Object.fromEntries(Object.keys(found.body!).map((k) => [k, NOWHERE[k] ?? 'nowhere']));
    if (Object.keys(body).length === 0) notTestable('the accepted search has no criteria to point at nothing');
    const res = await api.call('search', { json: body });
    if (!(res.status >= 200 && res.status < 300)) notTestable(`the target refused a search for ${JSON.stringify(body)} (${res.status}): nothing to read`);
    expect.soft(Array.isArray(res.body?.groups), `SEARCH-001: a search for ${JSON.stringify(body)} answers groups as an array; body ${res.text.slice(0, 200)}`).toBe(true);
    for (const field of ['providerResultCount', 'requestedQuantity']) {
      expect.soft(typeof res.body?.[field], `SEARCH-001: a search for ${JSON.stringify(body)} answers ${field} as a number; body ${res.text.slice(0, 200)}`).toBe('number');
    }
  });
});

test.describe('4.4 and 7.2: an upstream failure of the search is 502 UPSTREAM_ERROR', () => {
  test('every declared upstream failure is answered 502 UPSTREAM_ERROR with details.providerStatus carrying the upstream status, for each client', { tag: ['@SEARCH-002'] }, async ({ api, target, triggers }) => {
    // Through the control plane: several upstream statuses, so a server that reports a fixed
    // providerStatus is caught; by request: each search the target declares (triggers.upstreamFailure).
    const failures = triggers.upstreamFailures();
    // Bodies the target accepts when the upstream is well, so only the upstream is at fault: each
    // criterion alone, all of them and none, those the target accepts. Section 4.4 makes an
    // upstream failure 502 whatever the search named; a server that falls back to an empty result
    // for one kind of criterion is right on the others.
    const all = SEARCH_CANDIDATES.at(-2)!;
    const candidates = [...Object.entries(all).map(([k, v]) => ({ [k]: v })), all, {}];
    const tried = await Promise.all(candidates.map(async (body) => ({ body, res: await api.call('search', { json: body }) })));
    const accepted = tried.filter(({ res }) => res.status >= 200 && res.status < 300).map(({ body }) => body);
    const bodies = accepted.length > 0 ? accepted : [(await acceptedSearch(api)).body ?? SEARCH_PROBE];
    // Each answer is judged on SEARCH-002 first; a breach of the OpenAPI document by the same
    // answer (a 502 with another code breaks ERR-002 too) is raised after, so it counts as well
    // and does not stop the test before SEARCH-002 is judged.
    const violations: SchemaViolationError[] = [];
    for (const failure of failures) {
      for (const body of bodies) {
        const label = `${failure.label}, with the criteria ${JSON.stringify(body)}`;
        const { res, violation } = await answerOf(failure.search(api, body));
        if (violation) violations.push(violation);
        expect.soft(res).toBeCoreError(502, 'UPSTREAM_ERROR', `SEARCH-002: ${label}`);
        const providerStatus: unknown = res.body?.error?.details?.providerStatus;
        const details = JSON.stringify(res.body?.error?.details);
        if (failure.providerStatus === undefined) {
          expect.soft(providerStatus ?? undefined, `SEARCH-002: ${label}: details.providerStatus carries the upstream status; details ${details}`).toBeDefined();
        } else {
          expect.soft(String(providerStatus), `SEARCH-002: ${label}: details.providerStatus carries the upstream status ${failure.providerStatus}; details ${details}`).toBe(String(failure.providerStatus));
        }
      }
    }
    // Another identity: the secondary client's search, where it may search at all (a search of
    // its while the upstream is well succeeds). The upstream's failure is the service's, whoever
    // asked: a server that falls back to an empty result for one client is right on the other.
    if (target.clients.secondary && (await api.call('search', { json: bodies[0]!, as: 'secondary' })).status < 300) {
      for (const failure of failures) {
        const { res, violation } = await answerOf(failure.search(api, bodies[0]!, 'secondary'));
        if (violation) violations.push(violation);
        expect.soft(res).toBeCoreError(502, 'UPSTREAM_ERROR', `SEARCH-002: ${failure.label}, searched by the secondary client`);
      }
    }
    if (violations[0]) throw violations[0];
  });
});

/**
 * Whether a string of an answer is `phone` (E.164) in any spelling of its digits: the same digits
 * whatever stands between them, or a North American number's without its country code.
 */
function spells(text: string, phone: string): boolean {
  const digitsOf = (value: string) => value.replace(/[^0-9]/g, '');
  const digits = digitsOf(text);
  return digits.length >= 7 && (digits === digitsOf(phone) || (phone.startsWith('+1') && digits === digitsOf(phone).slice(1)));
}

test.describe('4.4 search available numbers: none the service has assigned', () => {
  // Section 4.4 searches available numbers (section 1: "available number inventory"); a number
  // the service has assigned to a client is not available, whatever the provider behind it still
  // lists. The harness knows a number is assigned where the target shows its phone number: in a
  // numbers list record of either client (a field whose value is an E.164 number), or as the
  // inbound trigger's number. Each is searched for by its own area code and exchange, beside the
  // candidate searches, and every string of every accepted answer is read for it, in any spelling
  // of its digits: the group's fields are not shown.
  test('no search offers a phone number the service has assigned to a client', { tag: ['@SEARCH-004'] }, async ({ api, target }) => {
    const assigned = new Set<string>();
    const roles = target.clients.secondary ? (['primary', 'secondary'] as const) : (['primary'] as const);
    for (const role of roles) {
      for (const record of await readNumbers(api, role)) {
        for (const value of Object.values(record)) if (typeof value === 'string' && /^\+[1-9][0-9]{6,14}$/.test(value)) assigned.add(value);
      }
    }
    const inbound = target.triggers.inbound?.kind === 'loopback' ? target.triggers.inbound.to.phoneNumber : undefined;
    if (inbound !== undefined) assigned.add(inbound);
    if (assigned.size === 0) notTestable('neither client\'s numbers list shows a phone number, and no inbound trigger names one: which numbers are assigned cannot be known');
    const all = SEARCH_CANDIDATES.at(-2)!;
    const nanp = [...assigned].filter((n) => /^\+1[0-9]{10}$/.test(n));
    const bodies: Array<Record<string, string>> = [
      ...Object.entries(all).map(([k, v]) => ({ [k]: v })),
      all,
      {},
      ...nanp.flatMap((n): Array<Record<string, string>> => [{ npa: n.slice(2, 5) }, { npa: n.slice(2, 5), nxx: n.slice(5, 8) }]),
    ];
    const unique = [...new Map(bodies.map((b) => [JSON.stringify(b), b])).values()];
    const answers = await Promise.all(unique.map(async (body) => ({ body, res: await api.call('search', { json: body }) })));
    const accepted = answers.filter(({ res }) => res.status >= 200 && res.status < 300);
    if (accepted.length === 0) notTestable('the target accepted none of these searches (SEARCH-001 reports the accepted search it needs)');
    const offered: string[] = [];
    for (const { body, res } of accepted) {
      for (const text of stringsIn(res.body)) {
        const hit = [...assigned].find((n) => spells(text, n));
        if (hit !== undefined) offered.push(`${hit} (as ${JSON.stringify(text)}) in the answer to ${JSON.stringify(body)}`);
      }
    }
    expect(offered, `SEARCH-004: no search offers a number the service has assigned (${[...assigned].join(', ')})`).toEqual([]);
  });

  // A later moment: the same number after each change of its settings. An update changes a
  // number's attributes, never whom it is assigned to (section 4.5), so a server that keeps
  // "assigned" as a state the first change moves on from (or that reads a number turned off for
  // SMS as free) is right on the search above and wrong here.
  test('a number whose settings were just changed is still assigned: no search offers it after each change', { tag: ['@SEARCH-004'] }, async ({ api, knownNumbers, settings, webhooks }) => {
    const numberId = scratchNumber(knownNumbers);
    const record = (await readNumbers(api)).find((n) => n.numberId === numberId);
    const phone = Object.values(record ?? {}).find((v): v is string => typeof v === 'string' && /^\+1[0-9]{10}$/.test(v));
    if (phone === undefined) notTestable(`the numbers list shows no North American phone number for ${numberId}, so no search by its area code and exchange can look for it`);
    const bodies = [{ npa: phone!.slice(2, 5) }, { npa: phone!.slice(2, 5), nxx: phone!.slice(5, 8) }];
    const offered: string[] = [];
    let searched = 0;
    for (const field of SETTABLE_FIELDS.filter((f) => f in record!)) {
      const value = differentValue(field, record![field], knownNumbers, () => webhooks.channel(`search4-${field}`).url);
      const changed = await settings.change(numberId, { [field]: value });
      if (changed.status < 200 || changed.status >= 300) continue;
      for (const body of bodies) {
        const res = await api.call('search', { json: body });
        if (res.status < 200 || res.status >= 300) continue;
        searched += 1;
        const hits = stringsIn(res.body).filter((text) => spells(text, phone!));
        if (hits.length > 0) offered.push(`after ${field} was set to ${JSON.stringify(value)}, the answer to ${JSON.stringify(body)} offered ${phone} (as ${hits.map((h) => JSON.stringify(h)).join(', ')})`);
      }
    }
    if (searched === 0) notTestable(`no change of ${numberId} was accepted, or no search by its area code was (UPD-001 and SEARCH-001 judge those)`);
    expect(offered, `SEARCH-004: ${phone}, assigned to the primary client as ${numberId}, is never offered by a search, whatever its settings`).toEqual([]);
  });
});
