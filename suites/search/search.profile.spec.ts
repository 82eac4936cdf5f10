import { expect, notTestable, profileOnly, test } from '../../harness/fixtures.ts';
import { routeRequested } from '../support/core-routes.ts';

// The reference profile's search (spec/profile.yaml search.route, search.request,
// search.groups): POST /api/core/numbers/search, 200, every field optional with fixed formats,
// unknown fields refused, groups by exchange, requestedQuantity 10.

const E164 = /^\+[1-9]\d{1,14}$/;

/** Bodies that break search.request in exactly one way each. */
const INVALID_SEARCHES: ReadonlyArray<{ name: string; body: unknown }> = [
  { name: 'npa given as a number', body: { npa: 202 } },
  { name: 'npa of two digits', body: { npa: '20' } },
  { name: 'npa with letters', body: { npa: 'abc' } },
  { name: 'nxx of four digits', body: { npa: '202', nxx: '5555' } },
  { name: 'state of one letter', body: { state: 'D' } },
  { name: 'state with a digit', body: { state: 'D1' } },
  { name: 'zipCode of four digits', body: { zipCode: '2000' } },
  { name: 'zipCode given as a number', body: { zipCode: 20001 } },
  { name: 'city given as an array', body: { city: ['Washington'] } },
  { name: 'rateCenter given as null', body: { rateCenter: null } },
  { name: 'an unknown field', body: { npa: '202', areaCode: '202' } },
  { name: 'a misspelt field', body: { zipcode: '20001' } },
];

test.describe('profile: number search', () => {
  test.beforeEach(({ target }) => profileOnly(target));

  test('POST /api/core/numbers/search answers 200', { tag: ['@SEARCH-201'] }, async ({ api, target }) => {
    const res = await api.call('search', { json: {} });
    expect(routeRequested(target, res), 'SEARCH-201: the profile route is POST /api/core/numbers/search').toBe('POST /api/core/numbers/search');
    expect(res).toHaveStatus(200, 'SEARCH-201: a search with no criteria (every field is optional) is answered 200');
  });

  test('every field is optional: a search with each single field is answered 200', { tag: ['@SEARCH-201'] }, async ({ api }) => {
    for (const body of [{ npa: '202' }, { nxx: '555' }, { city: 'Washington' }, { state: 'DC' }, { zipCode: '20001' }, { rateCenter: 'WSHNGTNZN1' }]) {
      const res = await api.call('search', { json: body });
      expect.soft(res).toHaveStatus(200, `SEARCH-201: the search ${JSON.stringify(body)} is answered 200`);
    }
  });

  test('groups carry npa, nxx, city, state, rateCenter, count and phoneNumbers', { tag: ['@SEARCH-201'] }, async ({ api }) => {
    const res = await api.call('search', { json: { npa: '202' } });
    expect(res).toHaveStatus(200, 'SEARCH-201');
    const groups: Array<Record<string, unknown>> = res.body.groups;
    if (groups.length === 0) notTestable('the search found no inventory, so there is no group whose fields could be checked');
    for (const [i, g] of groups.entries()) {
      for (const field of ['npa', 'nxx', 'city', 'state', 'rateCenter']) {
        expect.soft(typeof g[field], `SEARCH-201: group ${i}: ${field} is a string; group ${JSON.stringify(g).slice(0, 200)}`).toBe('string');
      }
      expect.soft(Number.isInteger(g.count), `SEARCH-201: group ${i}: count is an integer; got ${JSON.stringify(g.count)}`).toBe(true);
      const phones = g.phoneNumbers;
      expect.soft(Array.isArray(phones) && phones.every((p) => typeof p === 'string' && E164.test(p)), `SEARCH-201: group ${i}: phoneNumbers is an array of E.164 numbers; got ${JSON.stringify(phones).slice(0, 200)}`).toBe(true);
    }
  });

  // Grouping by exchange (profile search.groups) partitions what the provider returned: a group
  // per exchange, its count the length of its phoneNumbers, each number of its exchange; and where
  // the provider found no more than it was asked for, it returned them all, so the counts add up
  // to providerResultCount. A server that keeps one number per group, or splits an exchange, is
  // right on a search that finds one number per exchange.
  test('groups partition the numbers found: one per exchange, each count its phoneNumbers, adding up to providerResultCount when that is at most requestedQuantity', { tag: ['@SEARCH-201'] }, async ({ api }) => {
    let judged = 0;
    for (const body of [{}, { npa: '202' }, { state: 'DC' }, { city: 'Washington' }]) {
      const res = await api.call('search', { json: body });
      expect(res).toHaveStatus(200, `SEARCH-201: the search ${JSON.stringify(body)} is answered 200`);
      const groups: Array<{ npa?: unknown; nxx?: unknown; rateCenter?: unknown; count?: unknown; phoneNumbers?: unknown }> = Array.isArray(res.body?.groups) ? res.body.groups : [];
      const exchanges = groups.map((g) => `${String(g.npa)}-${String(g.nxx)}-${String(g.rateCenter)}`);
      expect.soft(new Set(exchanges).size, `SEARCH-201: the search ${JSON.stringify(body)} gives one group per exchange; got ${exchanges.join(', ')}`).toBe(exchanges.length);
      for (const g of groups) {
        const phones = Array.isArray(g.phoneNumbers) ? (g.phoneNumbers as unknown[]) : [];
        expect.soft(g.count, `SEARCH-201: the group ${String(g.npa)}-${String(g.nxx)} counts the ${phones.length} phoneNumbers it lists`).toBe(phones.length);
        const foreign = phones.filter((p) => typeof p !== 'string' || !p.startsWith(`+1${String(g.npa)}${String(g.nxx)}`));
        expect.soft(foreign, `SEARCH-201: every number of the group ${String(g.npa)}-${String(g.nxx)} is of its exchange`).toEqual([]);
      }
      const found = res.body?.providerResultCount;
      if (typeof found === 'number' && typeof res.body?.requestedQuantity === 'number' && found <= res.body.requestedQuantity) {
        judged++;
        const listed = groups.reduce((sum, g) => sum + (typeof g.count === 'number' ? g.count : 0), 0);
        expect.soft(listed, `SEARCH-201: the search ${JSON.stringify(body)} found ${found} numbers (providerResultCount), no more than it asked for (requestedQuantity ${res.body.requestedQuantity}), so its groups hold them all`).toBe(found);
      }
    }
    if (judged === 0) notTestable('every search found more numbers than it asked the provider for, so none shows whether the groups hold all it returned');
  });

  test('requestedQuantity is 10', { tag: ['@SEARCH-201'] }, async ({ api }) => {
    const res = await api.call('search', { json: { npa: '202' } });
    expect(res).toHaveStatus(200, 'SEARCH-201');
    expect(res.body.requestedQuantity, 'SEARCH-201: the profile asks the provider for 10 numbers').toBe(10);
  });

  for (const { name, body } of INVALID_SEARCHES) {
    test(`a search with ${name} is answered 400 INVALID_REQUEST`, { tag: ['@SEARCH-202'] }, async ({ api }) => {
      const res = await api.call('search', { json: body });
      expect(res).toBeCoreError(400, 'INVALID_REQUEST', `SEARCH-202: a search with ${name} (${JSON.stringify(body)})`);
    });
  }

  test('a stalled upstream is answered 502 UPSTREAM_ERROR within the request timeout', { tag: ['@SEARCH-203'] }, async ({ api, triggers, target }) => {
    const stalled = triggers.upstreamStall();
    // The profile bounds the wait without naming a figure; the harness's request timeout is the bound.
    const boundMs = target.timeouts.requestMs;
    const started = performance.now();
    const res = await stalled(api, { npa: '202' }).catch((e: Error) => e);
    const elapsed = Math.round(performance.now() - started);
    if (res instanceof Error) throw new Error(`SEARCH-203: the search with a stalled upstream got no answer within ${boundMs} ms: ${res.message}`);
    expect(res).toBeCoreError(502, 'UPSTREAM_ERROR', 'SEARCH-203: a stalled upstream');
    // No status came from the provider: the profile names why instead (search.upstreamFailure).
    expect(res.body?.error?.details?.providerStatus, 'SEARCH-203: details.providerStatus says the provider did not answer in time').toBe('TIMEOUT');
    expect(elapsed, `SEARCH-203: the 502 came within ${boundMs} ms (it took ${elapsed} ms)`).toBeLessThan(boundMs);
  });
});
