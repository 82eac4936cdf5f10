import { expect, profileOnly, test } from '../../harness/fixtures.ts';
import { routeRequested } from '../support/core-routes.ts';

// The reference profile's numbers list (spec/profile.yaml numbers.route, numbers.record):
// GET, 200, {numbers: [...]}, every item with phoneNumber and all five settable fields.
const E164 = /^\+[1-9]\d{1,14}$/;
const NULLABLE_STRINGS = ['campaignregId', 'webhookInboundOverride', 'webhookDeliveryOverride'];
const BOOLEANS = ['smsEnabled', 'mmsEnabled'];

test.describe('profile: numbers list', () => {
  test.beforeEach(({ target }) => profileOnly(target));

  test('GET /api/core/numbers answers 200 with the items under numbers', { tag: ['@NUM-201'] }, async ({ api, target }) => {
    const res = await api.call('numbers');
    expect(routeRequested(target, res), 'NUM-201: the profile route is GET /api/core/numbers').toBe('GET /api/core/numbers');
    expect(res).toHaveStatus(200, 'NUM-201: the list is answered 200');
    // The envelope leaves room for paging fields (profile numbers.route), so only `numbers` is checked.
    expect(Array.isArray(res.body?.numbers), 'NUM-201: the envelope is an object whose numbers property is the array of items').toBe(true);
  });

  test('every item carries numberId, an E.164 phoneNumber and all five settable fields', { tag: ['@NUM-201'] }, async ({ api }) => {
    const res = await api.call('numbers');
    const items: Array<Record<string, unknown>> = res.body?.numbers ?? [];
    expect(items.length, 'NUM-201: precondition: the primary client has numbers to inspect').toBeGreaterThan(0);
    for (const item of items) {
      const id = String(item.numberId);
      expect.soft(typeof item.numberId === 'string' && item.numberId !== '', `NUM-201: ${id}: numberId is a non-empty string`).toBe(true);
      expect.soft(typeof item.phoneNumber === 'string' && E164.test(item.phoneNumber), `NUM-201: ${id}: expected phoneNumber to be E.164; got ${JSON.stringify(item.phoneNumber)}`).toBe(true);
      for (const field of NULLABLE_STRINGS) {
        expect.soft(field in item && (item[field] === null || typeof item[field] === 'string'), `NUM-201: ${id}: ${field} is present, a string or null; got ${JSON.stringify(item[field])}`).toBe(true);
      }
      for (const field of BOOLEANS) {
        expect.soft(typeof item[field], `NUM-201: ${id}: ${field} is present and boolean`).toBe('boolean');
      }
    }
  });
});
