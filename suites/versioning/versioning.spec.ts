import { answerOf, type ApiResponse } from '../../harness/api-client.ts';
import type { OperationId } from '../../harness/config.ts';
import { expect, test } from '../../harness/fixtures.ts';
import { ACCEPTED_BY, acceptedRequestFor } from '../support/core-routes.ts';
import { anyOwnNumber, deliveredRecipients, smsPayload } from '../support/sends.ts';

// Section 9: the paths carry no version segment. The document fixes four paths outright
// (/api/auth/token, /api/core/whoami, /api/core/numbers, /api/core/messages/send); search and
// update only share the /api/core/ prefix, so their configured paths are checked for that.

/** The paths the document writes down (sections 4.1, 4.2, 4.3, 4.6). */
const FIXED_PATHS: Partial<Record<OperationId, string>> = {
  token: '/api/auth/token',
  whoami: '/api/core/whoami',
  numbers: '/api/core/numbers',
  send: '/api/core/messages/send',
};

/** A path segment that names a version: v1, V2, v0.2, 0.2.0, 2024-01-01. */
const VERSION_SEGMENT = /^(?:v\d+(?:[._-]\d+)*|\d+(?:\.\d+)+|\d{4}-\d{2}-\d{2})$/i;

function expectUnversioned(op: OperationId, path: string): void {
  const versioned = path.split('/').filter((s) => VERSION_SEGMENT.test(s));
  expect(versioned, `VER-001: the ${op} path ${path} carries no version segment`).toEqual([]);
  const fixed = FIXED_PATHS[op];
  if (fixed) expect(path, `VER-001: the ${op} path is the document's ${fixed}`).toBe(fixed);
  else expect(path.startsWith('/api/core/'), `VER-001: the ${op} path ${path} lies under /api/core/`).toBe(true);
}

/**
 * The route is served where it was asked: not a 404 or 405 from a router that does not know it.
 * Checked before the answer's schema, which a router's 404 body breaks too.
 */
async function servedAnswer(call: Promise<ApiResponse>, op: OperationId): Promise<ApiResponse> {
  const { res, violation } = await answerOf(call);
  expect([404, 405], `VER-001: ${op} answers at ${new URL(res.request.url).pathname}; got ${res.describe()} ${res.text.slice(0, 200)}`).not.toContain(res.status);
  if (violation) throw violation;
  return res;
}

test.describe('9 Versioning: paths carry no version segment', () => {
  test('the token endpoint answers at /api/auth/token', { tag: ['@VER-001', '@TOKEN-001'] }, async ({ api, target }) => {
    expectUnversioned('token', target.routes.token.path);
    const { clientId, clientSecret } = target.clients.primary;
    const res = await servedAnswer(api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } }), 'token');
    // Served there (servedAnswer judged it); whether the token is issued is TOKEN-001's.
    expect(res).toSucceed('TOKEN-001: a token is issued at the unversioned path');
  });

  for (const op of ['whoami', 'numbers', 'search', 'update'] as const) {
    test(`${op} answers at an /api/core/ path with no version segment`, { tag: ['@VER-001'] }, async ({ api, target, knownNumbers, newKey }) => {
      expectUnversioned(op, target.routes[op].path);
      const res = await servedAnswer(api.call(op, await acceptedRequestFor(op, { api, target, knownNumbers, newKey })), op);
      expect(res).toSucceed(`${ACCEPTED_BY[op]}: ${op} accepts a valid request at the unversioned path`);
    });
  }

  test('send answers at /api/core/messages/send', { tag: ['@VER-001'] }, async ({ api, target, knownNumbers }) => {
    expectUnversioned('send', target.routes.send.path);
    // Without an Idempotency-Key nothing is queued (4.6 rule 1), yet the answer shows the route exists.
    const res = await servedAnswer(api.call('send', { json: smsPayload(anyOwnNumber(knownNumbers), deliveredRecipients(target), 'ver') }), 'send');
    expect(res).toBeCoreError(400, 'INVALID_REQUEST', 'VER-001: the send route answers at the unversioned path (a send without Idempotency-Key is 400 INVALID_REQUEST, rule 1)');
  });
});
