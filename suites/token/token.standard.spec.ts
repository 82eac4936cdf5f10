import { basicCredentials, tokenRequest } from '../../harness/basic-auth.ts';
import { expect, notTestable, test } from '../../harness/fixtures.ts';
import { failingClient } from './failing-clients.ts';
import { malformedParts, parseChallenges } from '../support/challenge.ts';

// What RFC 6749 and RFC 9110 add where the document leaves the token endpoint open.
// Level standard: a failure here is non-strict unless the run is strict.
test.describe('RFC 6749 5.1 Successful response', () => {
  // In each way a client authenticates (section 5 rule 1): a server that answers one way's
  // requests with another 2xx is right on the others.
  test('a token is issued with status 200, asked for by a JSON body, by form fields and by HTTP Basic', { tag: ['@TOKEN-101'] }, async ({ api, target }) => {
    for (const how of ['json', 'form', 'basic'] as const) {
      const res = await api.call('token', tokenRequest(how, target.clients.primary));
      expect.soft(res).toHaveStatus(200, `TOKEN-101: RFC 6749 5.1 success is 200 (a token asked for by ${how})`);
    }
  });

  test('token answers carry Cache-Control: no-store, on success and on error', { tag: ['@TOKEN-102'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    // Each way a client authenticates (section 5 rule 1): a server that sets the header on one path only is right on one and wrong on the others.
    const ok = await Promise.all([
      api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } }),
      api.call('token', { form: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } }),
      api.call('token', { form: { grant_type: 'client_credentials' }, headers: { authorization: basicCredentials(clientId, clientSecret) } }),
    ]);
    const failed = await api.call('token', { json: { grant_type: 'client_credentials', client_id: failingClient(target, 4).clientId, client_secret: 'wrong' } });
    for (const res of [...ok, failed]) {
      expect(res.headers['cache-control'] ?? '', `TOKEN-102: expected ${res.describe()} to carry Cache-Control: no-store`).toMatch(/(^|,)\s*no-store\s*(,|$)/i);
    }
  });

  test('the client_credentials grant issues no refresh_token', { tag: ['@TOKEN-111'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const res = await api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
    expect(res.body.refresh_token, 'TOKEN-111: RFC 6749 4.4.3 no refresh token for client_credentials').toBeUndefined();
  });
});

test.describe('RFC 6749 5.2 Error response', () => {
  test('invalid_request is answered 400', { tag: ['@TOKEN-103'] }, async ({ api, target }) => {
    const res = await api.call('token', { json: { grant_type: 'client_credentials', client_id: target.clients.primary.clientId } });
    expect(res).toHaveStatus(400, 'TOKEN-103: invalid_request is 400');
  });

  // Each way a client authenticates: RFC 6749 5.2 lets invalid_client alone be 401, so a server
  // that answers every error after HTTP Basic with 401 (and a challenge) is right on the body's
  // credentials and wrong on Basic's.
  test('unsupported_grant_type is answered 400, in a JSON body, a form body and beside HTTP Basic', { tag: ['@TOKEN-103'] }, async ({ api, target }) => {
    const answers = await Promise.all((['json', 'form', 'basic'] as const).map(async (way) => ({ way, res: await api.call('token', tokenRequest(way, target.clients.primary, 'password')) })));
    for (const { way, res } of answers) expect.soft(res.status, `TOKEN-103: unsupported_grant_type (grant_type password, credentials by ${way === 'basic' ? 'HTTP Basic' : `a ${way} body`}) is 400; got ${res.describe()}`).toBe(400);
  });

  // A known client with a wrong secret, and a client id nobody was given: both fail client
  // authentication by the Authorization header (RFC 6749 5.2), whichever the server finds first.
  test('invalid_client after HTTP Basic is 401 with a Basic challenge, for a wrong secret and for an unknown client id', { tag: ['@TOKEN-104', '@TOKEN-105'] }, async ({ api, target }) => {
    const cases = [
      { what: 'a wrong secret', header: basicCredentials(failingClient(target, 4, 'basic').clientId, 'wrong') },
      { what: 'an unknown client id', header: basicCredentials(`nobody-${Date.now()}`, 'x') },
    ];
    const answers = await Promise.all(cases.map(async ({ what, header }) => ({ what, res: await api.call('token', { form: { grant_type: 'client_credentials' }, headers: { authorization: header } }) })));
    for (const { what, res } of answers) {
      expect.soft(res).toHaveStatus(401, `TOKEN-104: invalid_client via the Authorization header (${what}) is 401`);
      const value = res.headers['www-authenticate'] ?? '';
      expect.soft(value, `TOKEN-104: WWW-Authenticate names the Basic scheme (${what})`).toMatch(/^\s*basic\b/i);
      // RFC 7617 2: the Basic challenge's realm is REQUIRED, and RFC 9110 11.5 has a sender write it
      // as a quoted string; the header parses whole (RFC 9110 11.6.1).
      const basic = parseChallenges(value).find((c) => c.scheme.toLowerCase() === 'basic');
      expect.soft(basic?.params.realm, `TOKEN-104: the Basic challenge carries a realm (RFC 7617 2) (${what}); got ${JSON.stringify(value)}`).toBeDefined();
      if (basic?.params.realm !== undefined) expect.soft(value, `TOKEN-104: the Basic challenge's realm is a quoted string (RFC 9110 11.5) (${what})`).toMatch(/\brealm\s*=\s*"/i);
      expect.soft(malformedParts(value), `TOKEN-104: every part of WWW-Authenticate parses as RFC 9110 11.6.1 writes a challenge (${what}); got ${JSON.stringify(value)}`).toEqual([]);
    }
  });

  test('every 401 from the token endpoint carries WWW-Authenticate', { tag: ['@TOKEN-105'] }, async ({ api, target }) => {
    // Independent requests: they go out together.
    const answers = await Promise.all([
      api.call('token', { json: { grant_type: 'client_credentials', client_id: failingClient(target, 5).clientId, client_secret: 'wrong' } }),
      api.call('token', { form: { grant_type: 'client_credentials', client_id: `nobody-${Date.now()}`, client_secret: 'x' } }),
      api.call('token', { form: { grant_type: 'client_credentials' }, headers: { authorization: basicCredentials(failingClient(target, 5, 'basic').clientId, 'wrong') } }),
    ]);
    const unauthorized = answers.filter((r) => r.status === 401);
    expect(unauthorized.length, 'TOKEN-105: at least one of these failures is a 401 (else RFC 9110 15.5.2 has nothing to check)').toBeGreaterThan(0);
    for (const res of unauthorized) {
      expect(res.headers['www-authenticate'], `TOKEN-105: expected ${res.describe()} to carry WWW-Authenticate`).toBeTruthy();
    }
  });
});

test.describe('RFC 6749 2.3 and 3.2 Client authentication and parameters', () => {
  test('two authentication methods in one request are invalid_request', { tag: ['@TOKEN-106'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const res = await api.call('token', {
      form: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
      headers: { authorization: basicCredentials(clientId, clientSecret) },
    });
    expect(res).toBeOAuthError('invalid_request', 'TOKEN-106: Basic and body credentials together (RFC 6749 2.3)');
  });

  // The sibling where the Basic credentials do not decode: the client still tried HTTP Basic, so
  // the body's valid credentials are a second method (invalid_request), or the Basic attempt
  // failed (invalid_client). A server that ignores a Basic header it cannot read, and goes by the
  // body, issues a token to a request that authenticated two ways.
  test('Basic credentials that do not decode, beside valid body credentials, get no token', { tag: ['@TOKEN-106'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const undecodable: ReadonlyArray<[string, string]> = [
      ['not base64', 'Basic ***'],
      ['base64 without the colon', `Basic ${Buffer.from('no-colon-here').toString('base64')}`],
      // RFC 6749 2.3.1 form-encodes the id and the secret before they are joined: one whose
      // percent-encoding is broken decodes to no credentials, and is a Basic attempt all the same.
      ['a client id whose form encoding is broken (%E0%A4%A)', `Basic ${Buffer.from(`%E0%A4%A:${clientSecret}`).toString('base64')}`],
      ['a secret whose form encoding is broken (%zz)', `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:%zz`).toString('base64')}`],
    ];
    const answers = await Promise.all(
      undecodable.map(async ([name, authorization]) => ({ name, res: await api.call('token', { form: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }, headers: { authorization } }) })),
    );
    for (const { name, res } of answers) {
      expect.soft(['invalid_request', 'invalid_client'].includes(res.body?.error) && res.status >= 400 && res.status < 500, `TOKEN-106: Basic credentials with ${name}, beside the client's valid credentials in the body, are two methods or a failed one: invalid_request or invalid_client, no token; got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(true);
    }
  });

  // The other side of the same rule: a client_id alone authenticates nothing, and RFC 6749 3.2.1
  // lets a client send it to identify itself. Beside Basic credentials of the same client it is
  // one method, in a form body and in a JSON one. (A client_id naming another client is left
  // open: a server may refuse the request or go by the Basic credentials.)
  test('a client_id naming the Basic client beside its Basic credentials is one method: a token is issued', { tag: ['@TOKEN-106'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const authorization = basicCredentials(clientId, clientSecret);
    const [form, json] = await Promise.all([
      api.call('token', { form: { grant_type: 'client_credentials', client_id: clientId }, headers: { authorization } }),
      api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId }, headers: { authorization } }),
    ]);
    for (const [how, res] of [['a form body', form], ['a JSON body', json]] as const) {
      expect.soft(res.status, `TOKEN-106: HTTP Basic with the same client's client_id alone in ${how} is one authentication method (RFC 6749 2.3, 3.2.1); got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(200);
    }
  });

  test("a ':' or '+' in a client id or secret survives Basic encoding", { tag: ['@TOKEN-107'] }, async ({ api, target }) => {
    const special = target.clients.special;
    if (!special) notTestable("needs a client whose id or secret contains ':' or '+' (clients.special in the target config)");
    expect(`${special.clientId}${special.clientSecret}`, 'TOKEN-107: the special client really has a : or +').toMatch(/[:+]/);
    const res = await api.call('token', { form: { grant_type: 'client_credentials' }, headers: { authorization: basicCredentials(special.clientId, special.clientSecret) } });
    expect(res).toHaveStatus(200, 'TOKEN-107: form-urlencoded Basic credentials are decoded (RFC 6749 2.3.1)');
  });

  // The same credentials, written another way (RFC 9110 11.4: the scheme, then 1*SP; RFC 6749
  // 2.3.1: id and secret form-urlencoded, and a decoder reads any %XX): each percent-encoded
  // character adds two to the encoded length, so none, one and two of them end the base64 in
  // each kind of padding.
  test('the same Basic credentials written another way each issue a token', { tag: ['@TOKEN-114'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const percent = (value: string, count: number) => [...value].map((c, i) => (i < count && /[A-Za-z0-9]/.test(c) ? `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}` : encodeURIComponent(c))).join('');
    const basic = (id: string, secret: string, gap = ' ') => `Basic${gap}${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    const ways: Array<[string, string]> = [
      ['two spaces after the scheme name', basicCredentials(clientId, clientSecret).replace(/^Basic /, 'Basic  ')],
      // The scheme name is case-insensitive (RFC 9110 11.1).
      ['the scheme name in lower case', basicCredentials(clientId, clientSecret).replace(/^Basic /, 'basic ')],
      ['the scheme name in capitals', basicCredentials(clientId, clientSecret).replace(/^Basic /, 'BASIC ')],
      ...[0, 1, 2].map((count): [string, string] => {
        const header = basic(percent(clientId, count), clientSecret);
        return [`the client id with ${count} more character${count === 1 ? '' : 's'} percent-encoded (base64 ending ${/==$/.test(header) ? '"=="' : /=$/.test(header) ? '"="' : 'without padding'})`, header];
      }),
      ['every letter and digit of the secret percent-encoded', basic(encodeURIComponent(clientId), percent(clientSecret, clientSecret.length))],
    ];
    const answers = await Promise.all(ways.map(async ([how, authorization]) => ({ how, res: await api.call('token', { form: { grant_type: 'client_credentials' }, headers: { authorization } }) })));
    for (const { how, res } of answers) expect.soft(res.status, `TOKEN-114: Basic credentials with ${how} are the client's own; got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(200);
  });

  // The other side of the rule above: the scheme is the header's first token (RFC 9110 11.4), so
  // the same credentials after another scheme's name, or under a scheme whose name merely ends in
  // Basic, are not Basic credentials, and with none in the body no client authenticated.
  test('valid credentials under a scheme that is not Basic issue no token', { tag: ['@TOKEN-115'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const encoded = basicCredentials(clientId, clientSecret).replace(/^Basic /, '');
    const headers = [`NotBasic ${encoded}`, `Digest Basic ${encoded}`];
    const answers = await Promise.all(headers.map(async (authorization) => ({ authorization, res: await api.call('token', { form: { grant_type: 'client_credentials' }, headers: { authorization } }) })));
    for (const { authorization, res } of answers) expect.soft(res.status >= 400 && res.status < 500, `TOKEN-115: Authorization: ${authorization.replace(encoded, '<the client\'s Basic credentials>')} is not HTTP Basic, and the body has no credentials: no token; got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(true);
  });

  // The grant's own parameter missing, with credentials that would issue a token, each way a
  // client authenticates: invalid_request (RFC 6749 5.2), not unsupported_grant_type.
  test('a token request without grant_type, with valid credentials, is 400 invalid_request', { tag: ['@TOKEN-116'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const answers = await Promise.all([
      api.call('token', { json: { client_id: clientId, client_secret: clientSecret } }).then((res) => ({ how: 'a JSON body', res })),
      api.call('token', { form: { client_id: clientId, client_secret: clientSecret } }).then((res) => ({ how: 'a form body', res })),
      api.call('token', { form: {}, headers: { authorization: basicCredentials(clientId, clientSecret) } }).then((res) => ({ how: 'HTTP Basic', res })),
    ]);
    for (const { how, res } of answers) expect.soft(res).toBeOAuthError('invalid_request', `TOKEN-116: a token request by ${how} without grant_type is missing a required parameter (RFC 6749 5.2)`);
  });

  // Its sibling: grant_type given with no value, which RFC 6749 3.2 counts as absent (as TOKEN-108
  // does an empty client_secret). A server that reads "" as a grant type it does not support
  // answers unsupported_grant_type for what is a missing parameter.
  test('a token request whose grant_type is empty, with valid credentials, is 400 invalid_request', { tag: ['@TOKEN-116', '@TOKEN-108'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const answers = await Promise.all([
      api.call('token', { form: `grant_type=&client_id=${encodeURIComponent(clientId)}&client_secret=${encodeURIComponent(clientSecret)}` }).then((res) => ({ how: 'a form body', res })),
      api.call('token', { form: 'grant_type=', headers: { authorization: basicCredentials(clientId, clientSecret) } }).then((res) => ({ how: 'HTTP Basic', res })),
    ]);
    for (const { how, res } of answers) expect.soft(res).toBeOAuthError('invalid_request', `TOKEN-116: a token request by ${how} whose grant_type is empty counts as one without it (RFC 6749 3.2), a required parameter missing (5.2)`);
  });

  test('an empty client_secret counts as absent: invalid_request', { tag: ['@TOKEN-108'] }, async ({ api, target }) => {
    const res = await api.call('token', { form: { grant_type: 'client_credentials', client_id: target.clients.primary.clientId, client_secret: '' } });
    expect(res).toBeOAuthError('invalid_request', 'TOKEN-108: empty parameters count as absent (RFC 6749 3.2)');
  });

  // The other side of the same rule: an empty client_id or client_secret beside HTTP Basic is no
  // second authentication method (TOKEN-106), since it counts as absent; the Basic credentials alone decide.
  test('an empty client_id or client_secret beside HTTP Basic counts as absent: a token is issued', { tag: ['@TOKEN-108'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const answers = await Promise.all(
      ['client_id', 'client_secret'].map(async (empty) => ({ empty, res: await api.call('token', { form: `grant_type=client_credentials&${empty}=`, headers: { authorization: basicCredentials(clientId, clientSecret) } }) })),
    );
    for (const { empty, res } of answers) expect.soft(res.status, `TOKEN-108: HTTP Basic with an empty ${empty} in the body is one method (the empty parameter is absent, RFC 6749 3.2); got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(200);
  });

  test('unknown parameters are ignored, in a form body, a JSON body and beside HTTP Basic, and one of another JSON type is never a 5xx', { tag: ['@TOKEN-109', '@TOKEN-010'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const fields = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
    const answers = await Promise.all([
      api.call('token', { form: { ...fields, colour: 'blue' } }).then((res) => ({ how: 'a form body', res })),
      api.call('token', { json: { ...fields, audience: 'x' } }).then((res) => ({ how: 'a JSON body', res })),
      api.call('token', { form: { grant_type: 'client_credentials', colour: 'blue' }, headers: { authorization: basicCredentials(clientId, clientSecret) } }).then((res) => ({ how: 'HTTP Basic', res })),
    ]);
    for (const { how, res } of answers) expect.soft(res).toSucceed(`TOKEN-109: an unknown parameter in a token request by ${how} does not stop the grant (RFC 6749 3.2)`);
    // In a JSON body an unknown member may be of any JSON type. RFC 6749's parameters are
    // strings, so whether one of another type is ignored or refused is the server's to say; what
    // it may not do is fail on it: a token error is a client error (TOKEN-010, document level).
    // A server that reads every member as a string (trimming it, say) answers 5xx.
    const typed = await Promise.all(
      ([['an object', { a: 1 }], ['a number', 5], ['an array', ['x']], ['true', true], ['null', null]] as const).map(async ([what, value]) => ({ what, res: await api.call('token', { json: { ...fields, extra: value } }) })),
    );
    for (const { what, res } of typed) expect.soft(res.status, `TOKEN-010: a JSON token request with an unknown member whose value is ${what} is answered ${res.describe()}: a token error is a 4xx`).toBeLessThan(500);
  });

  test('a repeated parameter is invalid_request', { tag: ['@TOKEN-110'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const form = new URLSearchParams([['grant_type', 'client_credentials'], ['client_id', clientId], ['client_secret', clientSecret], ['client_id', clientId]]);
    const res = await api.call('token', { form: form.toString() });
    expect(res).toBeOAuthError('invalid_request', 'TOKEN-110: parameters must not repeat (RFC 6749 3.2)');
  });
});

test.describe('RFC 6749 2.3.1: client credentials never in the URI', () => {
  // The body carries grant_type alone: the query's credentials are all the request has, and a
  // server that reads client_id and client_secret from the query as well as the body issues a
  // token on them. A form body and a JSON body, at once.
  test('client credentials only in the query string issue no token', { tag: ['@TOKEN-117'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const query = { client_id: clientId, client_secret: clientSecret };
    const answers = await Promise.all([
      api.call('token', { form: { grant_type: 'client_credentials' }, query }),
      api.call('token', { json: { grant_type: 'client_credentials' }, query }),
    ]);
    for (const res of answers) {
      expect.soft(res.body?.access_token, `TOKEN-117: ${res.describe()} with the client's credentials in the query string only issues no token; got ${res.text.slice(0, 120)}`).toBeUndefined();
      expect.soft(res.status, `TOKEN-117: ${res.describe()} with the credentials in the query string only is refused`).toBeGreaterThanOrEqual(400);
    }
  });
});

test.describe('RFC 6749 3.2 and RFC 9110 15.5.6: the token endpoint takes POST only', () => {
  test('another method at the token endpoint issues no token, and a 405 names POST in Allow', { tag: ['@TOKEN-113'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    // GET and DELETE also with the request's fields in the query, as a client that puts them in the
    // URI would: RFC 6749 3.2 takes them by POST only (and 2.3.1 never in the URI).
    const query = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
    const answers = await Promise.all([
      ...['GET', 'PUT', 'DELETE'].map((method) => api.call('token', { method, ...(method === 'PUT' ? { form: query } : {}) })),
      ...['GET', 'DELETE'].map((method) => api.call('token', { method, query })),
    ]);
    for (const res of answers) {
      expect.soft(res.body?.access_token, `TOKEN-113: ${res.describe()} issues no token`).toBeUndefined();
      if (res.status === 405) expect.soft(res.headers['allow'] ?? '', `TOKEN-113: ${res.describe()} names POST in its Allow header`).toMatch(/(^|,)\s*POST\s*(,|$)/);
    }
  });
});
