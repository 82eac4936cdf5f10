import { basicCredentials } from '../../harness/basic-auth.ts';
import type { Target } from '../../harness/config.ts';
import { HOLDS_EVERY_NUMBER, expect, test } from '../../harness/fixtures.ts';
import type { ClientRole } from '../../harness/api-client.ts';
import { anyOwnNumber } from '../support/sends.ts';
import { everyClientsNumbers } from '../support/settings.ts';
import { acceptedPastLifetimeMs, LIFETIME_TOLERANCE_MS } from '../../harness/triggers.ts';
import { ACCEPTED_BY, CORE_OPERATIONS, acceptedRequestFor, caseSwappedToken, issueToken, requestFor, tamperedToken, tokenAlteredAt, unknownToken, unknownTokenShapes } from '../support/core-routes.ts';
import { otherwiseAnswered } from './otherwise-answered.ts';

// Section 5 rules 2 and 3 (and the 7.2 row "invalid or missing bearer token gives 401
// UNAUTHORIZED"): every /api/core route, one test per route per case, so a verdict names the
// route that let a request through.

/**
 * Malformed credentials (AUTH-002). Where a case can carry the client's real token or real
 * secret it does: a server that ignores the scheme, or reads the first word after it, would
 * then let the request through, and the test sees it.
 */
const MALFORMED: ReadonlyArray<{ name: string; header: (token: string, target: Target) => string }> = [
  { name: 'the Basic scheme carrying the client credentials', header: (_t, target) => basicCredentials(target.clients.primary.clientId, target.clients.primary.clientSecret) },
  { name: 'the Token scheme carrying a valid token', header: (t) => `Token ${t}` },
  { name: 'a valid token with no scheme', header: (t) => t },
  { name: 'the "Bearer" scheme with no token', header: () => 'Bearer' },
  { name: 'the "Bearer" scheme followed by spaces only', header: () => 'Bearer     ' },
  { name: 'two tokens after the Bearer scheme', header: (t) => `Bearer ${t} ${t}` },
  { name: 'two Bearer credentials in one header', header: (t) => `Bearer ${t}, Bearer ${t}` },
  { name: 'garbage bytes after the "Bearer" scheme', header: () => 'Bearer \u00ff\u00fe\u0080%%{}<>"\\' },
];

test.describe('5 rule 3: a missing bearer token is 401 UNAUTHORIZED', () => {
  for (const op of CORE_OPERATIONS) {
    test(`${op} answers a request without an Authorization header with 401 UNAUTHORIZED`, { tag: ['@AUTH-001'] }, async ({ api, target, knownNumbers, newKey, tokens }) => {
      const request = await requestFor(op, { api, target, knownNumbers, newKey });
      const res = await api.call(op, { ...request, as: 'none' });
      expect(res).toBeCoreError(401, 'UNAUTHORIZED', `AUTH-001: ${op} without a bearer token`);
      // The client's valid token carried elsewhere than the Authorization header, as RFC 6750
      // 2.3's access_token query parameter: section 5 rule 2 sends it as a bearer credential in
      // that header, so a request without the header still carries no bearer token.
      const token = await tokens.primary!.token();
      const inQuery = await api.call(op, { ...request, as: 'none', query: { ...request.query, access_token: token } });
      expect(inQuery).toBeCoreError(401, 'UNAUTHORIZED', `AUTH-001: ${op} without an Authorization header, its valid token given as the access_token query parameter`);
      // Another method on the same path: HEAD, which a framework answers from the GET route,
      // sometimes before the hook that checks the token. Without a token nothing is served
      // (no 2xx), whatever the route's method; its status beyond that is ERR-105's.
      const head = await api.call(op, { ...(request.params && { params: request.params }), method: 'HEAD', as: 'none' });
      expect(head.status < 200 || head.status >= 300, `AUTH-001: HEAD on the path of ${op} without a bearer token is not served; got ${head.describe()}`).toBe(true);
    });
  }
});

test.describe('5 rule 3: without a valid token, 401 whatever else the request carries', () => {
  for (const op of ['search', 'update', 'send'] as const) {
    test(`${op} answers requests it would otherwise answer differently, sent without a token or with one never issued, with 401 UNAUTHORIZED`, { tag: ['@AUTH-001', '@AUTH-004'] }, async ({ api, target, knownNumbers, newKey }) => {
      const cases = await otherwiseAnswered(op, { api, target, knownNumbers, newKey });
      const answers = await Promise.all(
        cases.flatMap(({ name, request, alsoDefect }) => [
          (async () => ({ id: 'AUTH-001' as const, what: `${name}, without a bearer token`, alsoDefect, res: await api.call(op, { ...request, as: 'none' }) }))(),
          (async () => ({ id: 'AUTH-004' as const, what: `${name}, with a token never issued`, alsoDefect, res: await api.call(op, { ...request, as: 'none', headers: { ...request.headers, authorization: `Bearer ${unknownToken()}` } }) }))(),
        ]),
      );
      for (const { id, what, alsoDefect, res } of answers) {
        if (alsoDefect && res.status !== 401) expect.soft(res).toBeRequestDefect(`${id}: ${op} with ${what}: 401 UNAUTHORIZED, or the request defect's answer`);
        else expect.soft(res).toBeCoreError(401, 'UNAUTHORIZED', `${id}: ${op} with ${what}`);
      }
    });
  }
});

test.describe('5 rule 3: a request refused for its credentials has no effect', () => {
  // The neighbour of a 401: what the refused request asked for. An update of the client's own
  // number, and of another client's, that would change them (SMS turned over, an inbound override
  // set), sent without a token, with one never issued and with the client's credentials under
  // Basic, is answered 401 and changes nothing: a server that answers 401 after applying it is
  // right on every status check. Every number of both clients is compared before and after (the
  // settings fixture puts back anything that moved).
  test('an update refused 401 for its credentials changes no number', { tag: ['@AUTH-001'], ...HOLDS_EVERY_NUMBER }, async ({ api, target, knownNumbers, settings, webhooks }) => {
    const lists = () => everyClientsNumbers(api, target);
    const before = await lists();
    for (const [role, records] of Object.entries(before)) for (const record of records) settings.remember(record, role as ClientRole);
    const targets = [anyOwnNumber(knownNumbers), ...(knownNumbers.foreign ? [knownNumbers.foreign] : [])];
    const credentials: Array<{ what: string; headers: Record<string, string> }> = [
      { what: 'without an Authorization header', headers: {} },
      { what: 'with a token never issued', headers: { authorization: `Bearer ${unknownToken()}` } },
      { what: "with the client's credentials under Basic", headers: { authorization: basicCredentials(target.clients.primary.clientId, target.clients.primary.clientSecret) } },
    ];
    const refused: string[] = [];
    for (const numberId of targets) {
      const record = Object.values(before).flat().find((n) => n.numberId === numberId);
      const patch = { smsEnabled: record?.smsEnabled !== true, webhookInboundOverride: webhooks.channel('refused-update').url };
      for (const { what, headers } of credentials) {
        const res = await api.call('update', { params: { numberId }, json: patch, as: 'none', headers });
        expect.soft(res).toBeCoreError(401, 'UNAUTHORIZED', `AUTH-001: an update of ${numberId} ${what}`);
        refused.push(`${numberId} ${what} (answered ${res.status})`);
      }
    }
    expect(await lists(), `AUTH-001: after updates refused for their credentials (${refused.join('; ')}), every number of every client is as the lists showed it`).toEqual(before);
  });
});

test.describe('5 rule 3: a malformed bearer credential is 401 UNAUTHORIZED', () => {
  for (const op of CORE_OPERATIONS) {
    for (const { name, header } of MALFORMED) {
      test(`${op} answers ${name} with 401 UNAUTHORIZED`, { tag: ['@AUTH-002'] }, async ({ api, target, knownNumbers, newKey, tokens }) => {
        const request = await requestFor(op, { api, target, knownNumbers, newKey });
        const token = await tokens.primary!.token();
        const res = await api.call(op, { ...request, as: 'none', headers: { ...request.headers, authorization: header(token, target) } });
        expect(res).toBeCoreError(401, 'UNAUTHORIZED', `AUTH-002: ${op} with ${name}`);
      });
    }
  }
});

test.describe('5 rule 3: an expired token is 401 UNAUTHORIZED', () => {
  for (const op of CORE_OPERATIONS) {
    test(`${op} answers an expired token with 401 UNAUTHORIZED`, { tag: ['@AUTH-003'] }, async ({ api, target, knownNumbers, newKey, triggers }) => {
      // Tokens of one worker, expired as the target declares (triggers.expireToken). The one
      // watched until it was refused has been presented since it expired; each route gets one
      // that has not: a server that forgets an expired token the first time it refuses it would
      // refuse it on every later route as an unknown token, whatever those routes check.
      const expired = await triggers.expiredToken();
      const own = expired.unseen[CORE_OPERATIONS.indexOf(op)] ?? { token: expired.token, acceptedBefore: expired.acceptedBefore };
      const request = await requestFor(op, { api, target, knownNumbers, newKey });
      // Precondition: the token worked before it expired, so the 401 below is the expiry's doing.
      expect(own.acceptedBefore, 'AUTH-003: precondition: the fresh token was accepted (whoami 2xx) before it expired').toBeLessThan(300);
      const res = await api.call(op, { ...request, as: 'none', headers: { ...request.headers, authorization: `Bearer ${own.token}` } });
      expect(res).toBeCoreError(401, 'UNAUTHORIZED', `AUTH-003: ${op} with an expired token${own.token === expired.token ? '' : ' not presented since it expired'}`);
    });
  }

  // The other side: the token that was watched, presented throughout its lifetime and after it.
  // Expiry is counted from the issue, not from the last use: a server that moves a token's expiry
  // forward with each request keeps a token in use alive for ever, and refuses only tokens left
  // alone (the unseen ones above). Its last use was a moment ago, when the watch ended.
  test('a token presented throughout its lifetime is refused once its expires_in is out', { tag: ['@AUTH-003'] }, async ({ api, target, triggers, tokenWaysWatch, evidence }) => {
    const expired = await triggers.expiredToken();
    expect(expired.acceptedBefore, 'AUTH-003: precondition: the fresh token was accepted (whoami 2xx) before it expired').toBeLessThan(300);
    // Where the token was waited out (kind wait), the watch itself presented it until it was
    // refused, or until its expires_in and a margin were out: still taken then is an expired token
    // taken, whatever happens on the later request below (a sliding lifetime lapses once idle).
    if (target.triggers.expireToken?.kind === 'wait') {
      const lifetime = await triggers.watchedLifetime();
      if (lifetime) {
        const late = acceptedPastLifetimeMs(lifetime);
        expect(late, `AUTH-003: the token of ${lifetime.clientId} (expires_in ${lifetime.reportedSeconds} s), presented throughout its lifetime, was still accepted ${lifetime.lastAcceptedMs} ms after it was asked for, ${late} ms beyond its lifetime and the ${LIFETIME_TOLERANCE_MS} ms allowed`).toBe(0);
      }
      // The same client's tokens asked for the other ways (form fields, HTTP Basic; TOKEN-011's
      // watch), each presented once more when its expires_in and a margin were out: a server that
      // expires the tokens of one way of asking and not another's is right on the token above.
      test.setTimeout(test.info().timeout + 2 * target.triggers.expireToken.maxWaitSeconds * 1000);
      const watch = await tokenWaysWatch();
      for (const exchange of watch?.evidence.exchanges ?? []) evidence.record(exchange);
      for (const w of watch?.watched ?? []) {
        expect.soft(w.acceptedAfterMs, `AUTH-003: the token of ${target.triggers.expireToken.client.clientId} obtained by ${w.how} reported expires_in ${w.seconds} s, but was still accepted ${((w.acceptedAfterMs ?? 0) / 1000).toFixed(1)} s after it was requested`).toBeUndefined();
      }
    }
    const res = await api.call('whoami', { as: 'none', headers: { authorization: `Bearer ${expired.token}` } });
    expect(res).toBeCoreError(401, 'UNAUTHORIZED', 'AUTH-003: whoami with the expired token the harness presented throughout its lifetime (expiry runs from the issue, not from the last use)');
  });
});

test.describe('7.2: a well-formed but unknown token is 401 UNAUTHORIZED', () => {
  for (const op of CORE_OPERATIONS) {
    test(`${op} answers a token the server never issued, in each shape tokens come in, with 401 UNAUTHORIZED`, { tag: ['@AUTH-004'] }, async ({ api, target, knownNumbers, newKey }) => {
      const request = await requestFor(op, { api, target, knownNumbers, newKey });
      const answers = await Promise.all(
        unknownTokenShapes(target.clients.primary.clientId).map(async ({ shape, token }) => ({ shape, res: await api.call(op, { ...request, as: 'none', headers: { ...request.headers, authorization: `Bearer ${token}` } }) })),
      );
      for (const { shape, res } of answers) expect.soft(res).toBeCoreError(401, 'UNAUTHORIZED', `AUTH-004: ${op} with an unknown token of ${shape}`);
    });

    test(`${op} answers the issued token altered in one character, lengthened, shortened, or in the case of its letters, with 401 UNAUTHORIZED`, { tag: ['@AUTH-004'] }, async ({ api, target, knownNumbers, newKey, tokens }) => {
      const issued = await tokens.primary!.token();
      // A token is an opaque string: one differing in a character, or only in letter case, is
      // another string, a token never issued. The case of the letters is checked only where the
      // issued token's case is its own (caseSwappedToken): hex and base32 tokens may be read in
      // either case without accepting anything the server did not issue.
      const swapped = caseSwappedToken(issued);
      // Altered at its first, middle and last character: a server that compares a prefix, or a
      // column too short for the token, is right on one and wrong on another.
      const altered: Array<[string, string]> = [
        ['the token altered in its middle', tamperedToken(issued)],
        ['the token altered at its first character', tokenAlteredAt(issued, 0)],
        ['the token altered at its last character', tokenAlteredAt(issued, -1)],
        // Longer or shorter: a server that looks a token up by its first characters, or by as
        // many as the presented one has, takes these for the issued one.
        ['the token with one more character after it', `${issued}${issued.endsWith('A') ? 'B' : 'A'}`],
        ['the token without its last character', issued.slice(0, -1)],
      ];
      const variants: Array<[string, string]> = [...altered, ...(swapped === undefined ? [] : [['the issued token in swapped letter case', swapped] as [string, string]])];
      for (const [what, token] of variants) {
        const request = await requestFor(op, { api, target, knownNumbers, newKey });
        const res = await api.call(op, { ...request, as: 'none', headers: { ...request.headers, authorization: `Bearer ${token}` } });
        expect.soft(res).toBeCoreError(401, 'UNAUTHORIZED', `AUTH-004: ${op} with ${what}`);
      }
    });
  }
});

test.describe('5 rule 2: a token from the token endpoint is accepted as a bearer credential', () => {
  for (const op of CORE_OPERATIONS) {
    test(`${op} accepts "Authorization: Bearer <token>" with a token just issued`, { tag: ['@AUTH-005'] }, async ({ api, target, knownNumbers, newKey }) => {
      const { clientId, clientSecret } = target.clients.primary;
      const request = await acceptedRequestFor(op, { api, target, knownNumbers, newKey });
      const token = await issueToken(api, clientId, clientSecret, 'AUTH-005');
      const res = await api.call(op, { ...request, as: 'none', headers: { ...request.headers, authorization: `Bearer ${token}` } });
      // The token is taken as a credential unless the answer is 401; whether the rest of the
      // request is accepted is the route's own requirement.
      expect(res.status, `AUTH-005: ${op} takes the issued token as a credential (any answer but 401); got ${res.describe()}`).not.toBe(401);
      expect(res).toSucceed(`${ACCEPTED_BY[op]}: ${op} accepts a valid request carrying the issued token`);
    });
  }
});
