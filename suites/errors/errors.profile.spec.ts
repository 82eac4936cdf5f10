import { expect, profileOnly, test } from '../../harness/fixtures.ts';
import { BODY_OPERATIONS } from '../support/core-routes.ts';
import { MALFORMED_JSON } from '../support/malformed-json.ts';
import { ERROR_PROBES, malformedRequest } from './error-probes.ts';

// The reference profile's error format (spec/profile.yaml errors.format): malformed JSON is
// 400 INVALID_REQUEST, and every CORE error repeats its requestId in x-request-id.

test.describe('profile: error format', () => {
  test.beforeEach(({ target }) => profileOnly(target));

  for (const op of BODY_OPERATIONS) {
    for (const { name, spoil } of MALFORMED_JSON) {
      test(`${op} answers ${name} with 400 INVALID_REQUEST`, { tag: ['@ERR-201'] }, async ({ api, target, knownNumbers, newKey }) => {
        const res = await api.call(op, await malformedRequest(op, { api, target, knownNumbers, newKey }, spoil));
        expect(res).toBeCoreError(400, 'INVALID_REQUEST', `ERR-201: ${op} with ${name}`);
      });
    }
  }

  for (const probe of ERROR_PROBES) {
    test(`${probe.name}: the answer repeats its requestId in the x-request-id header`, { tag: ['@ERR-201'] }, async ({ api, target, knownNumbers, newKey }) => {
      const res = await api.call(probe.op, await probe.build({ api, target, knownNumbers, newKey }));
      expect(res.status, `ERR-201: precondition: ${probe.name} is an error; got ${res.describe()}`).toBeGreaterThanOrEqual(400);
      expect(res.headers['x-request-id'], `ERR-201: x-request-id repeats the body's requestId ${JSON.stringify(res.body?.requestId)}`).toBe(res.body?.requestId);
    });
  }
});
