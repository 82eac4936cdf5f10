import { answerOf } from '../../harness/api-client.ts';
import { basicCredentials, tokenRequest, type TokenStyle } from '../../harness/basic-auth.ts';
import { MALFORMED_JSON } from '../support/malformed-json.ts';
import { expect, notTestable, test } from '../../harness/fixtures.ts';
import { reasonFor } from '../../harness/plan.ts';
import { LIFETIME_TOLERANCE_MS, loadPrimaryIssuedEarly } from '../../harness/triggers.ts';
import { failingClient } from './failing-clients.ts';

/** Each way a client authenticates (section 5 rule 1), as a check's message names it. */
const WAYS: Readonly<Record<TokenStyle, string>> = { json: 'JSON body', form: 'form body', basic: 'HTTP Basic' };

/** How old the worker's token is, at least, when the client obtains new ones (TOKEN-011's later moment). */
const OLDER_THAN_MS = 4_000;

/** How long after the client obtained new ones its older token is presented once more (TOKEN-011's later moment still). */
const AFTER_RENEWAL_MS = 6_000;

/** How many requests one token authenticates in TOKEN-011's check of a token's use, and how many at once. */
const USES = 300;
const USES_AT_ONCE = 10;

/**
 * How much sooner than its expires_in says a token may be refused, counted from the moment it
 * was requested: a server may keep expiry times in whole seconds (a token then lives up to a
 * second less than expires_in) and round expires_in up to the next second.
 */

/**
 * The ways of being one character away from a secret, each named without showing the secret:
 * with a character appended, without its last character (when one is left: an empty secret is a
 * missing one, TOKEN-009), and with its first letter's case flipped (when it has a letter whose
 * case can be). Each gives null for a secret it cannot be applied to.
 */
const NEAR_MISSES: ReadonlyArray<{ name: string; of(secret: string): string | null }> = [
  { name: 'the real secret with a character appended', of: (secret) => `${secret}x` },
  // Whitespace is a character too: a server that trims what it was given before comparing
  // takes the secret with spaces around it, or with a line feed after it, for the secret.
  { name: 'the real secret with a space before and after it', of: (secret) => ` ${secret} ` },
  { name: 'the real secret with a line feed after it', of: (secret) => `${secret}\n` },
  { name: 'the real secret without its last character', of: (secret) => ([...secret].length > 1 ? [...secret].slice(0, -1).join('') : null) },
  {
    name: "the real secret with one letter's case flipped",
    of: (secret) => {
      const chars = [...secret];
      const flip = (c: string) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase());
      const letter = chars.findIndex((c) => flip(c) !== c && [...flip(c)].length === 1);
      return letter >= 0 ? [...chars.slice(0, letter), flip(chars[letter]!), ...chars.slice(letter + 1)].join('') : null;
    },
  },
];

// Sections 4.1, 5.1 and 5.4: issuing a token. The success status is not shown by the
// document, so a 2xx is what these checks ask (RFC 6749's 200 is TOKEN-101).
test.describe('4.1 Issue an access token', () => {
  test('issues a token for client_credentials with valid credentials, no bearer token needed', { tag: ['@TOKEN-001', '@VER-001'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const res = await api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
    expect(res).toSucceed('TOKEN-001: POST /api/auth/token issues a token');
  });

  test('the token response carries access_token, token_type bearer and expires_in', { tag: ['@TOKEN-002'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const res = await api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
    expect(res).toSucceed('TOKEN-002');
    expect(res.body.access_token, 'TOKEN-002: access_token is a non-empty string').toEqual(expect.stringMatching(/.+/));
    expect(String(res.body.token_type).toLowerCase(), 'TOKEN-002: token_type is bearer (compared case-insensitively, RFC 6749 5.1)').toBe('bearer');
    expect(Number.isInteger(res.body.expires_in) && res.body.expires_in > 0, `TOKEN-002: expires_in is a positive integer lifetime, got ${res.body.expires_in}`).toBe(true);
  });

  test('a token is accepted until the lifetime its expires_in reports is out', { tag: ['@TOKEN-011'] }, async ({ triggers }) => {
    // Section 5 rule 4: expires_in is the token's lifetime. Seen where the target declares a
    // client whose tokens live briefly (triggers.expireToken, kind wait): the harness watches
    // such a token until the server refuses it, the wait AUTH-003 needs anyway, and the token is
    // then AUTH-003's expired token. What the watch saw decides: refused too soon is a failure;
    // taken until its lifetime (less the tolerance) is out is a pass; anything else saw nothing
    // of when it stopped working (another kind of trigger, a token never taken, nobody asking
    // between its issue and its end) and is not testable here, never a pass.
    const lifetime = await triggers.tokenLifetime();
    if (lifetime === undefined) notTestable(reasonFor('tokenLifetime'));
    const { clientId, reportedSeconds, refusedAfterMs, lastAcceptedMs } = lifetime;
    if (lifetime.acceptedBefore < 200 || lifetime.acceptedBefore >= 300) {
      notTestable(`the token of ${clientId} (triggers.expireToken) was not taken right after it was issued (whoami answered ${lifetime.acceptedBefore}), so it has no lifetime to measure`);
    }
    const mustLiveMs = reportedSeconds * 1000 - LIFETIME_TOLERANCE_MS;
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const refusedTooSoon = refusedAfterMs !== null && refusedAfterMs < mustLiveMs;
    if (!refusedTooSoon && (lastAcceptedMs ?? -1) < mustLiveMs) {
      notTestable(
        `the token of ${clientId} (triggers.expireToken, expires_in ${reportedSeconds} s) was last seen taken ${lastAcceptedMs === null ? 'never' : `${seconds(lastAcceptedMs)} after it was requested`} and ${refusedAfterMs === null ? 'never seen refused' : `first seen refused ${seconds(refusedAfterMs)} after`}: no request between showed when it stopped working`,
      );
    }
    expect(
      refusedAfterMs ?? Number.POSITIVE_INFINITY,
      `TOKEN-011: the token of ${clientId} (triggers.expireToken) reported expires_in ${reportedSeconds} s, but was refused ${seconds(refusedAfterMs ?? 0)} after it was requested: expires_in is not its lifetime`,
    ).toBeGreaterThanOrEqual(mustLiveMs);
  });

  // The same rule for the other ways of asking (section 5 rule 1): a server that gives tokens
  // asked for by form fields or by HTTP Basic another lifetime than they report is right on the
  // token watched above and wrong here. Each is watched until its lifetime, less the tolerance, is
  // out, the second asked for STAGGER_MS after the first came: a server that hands a client the
  // token it issued a moment ago again, reporting a full lifetime, gives a token that dies early.
  // The watch starts with the run (harness/triggers.ts, watchTokenWays) and runs beside the other
  // tests; a 401 before the lifetime is out fails.
  test('a token asked for by form fields or by HTTP Basic is accepted until the lifetime its expires_in reports is out', { tag: ['@TOKEN-011'] }, async ({ target, tokenWaysWatch, evidence }) => {
    const trigger = target.triggers.expireToken;
    if (trigger?.kind !== 'wait') notTestable(reasonFor('tokenLifetime'));
    test.setTimeout(test.info().timeout + 2 * trigger!.maxWaitSeconds * 1000);
    const watch = (await tokenWaysWatch())!;
    for (const exchange of watch.evidence.exchanges) evidence.record(exchange);
    const { clientId } = trigger!.client;
    for (const w of watch.watched) expect(w.issued).toSucceed(`TOKEN-001: precondition: ${clientId} obtains a token by ${w.how}`);
    if (watch.watched.some((w) => !Number.isFinite(w.seconds))) notTestable(`a token of ${clientId} reports no usable expires_in`);
    for (const w of watch.watched) {
      expect.soft(w.refusedAfterMs, `TOKEN-011: the token ${clientId} obtained by ${w.how} reported expires_in ${w.seconds} s, but was refused ${((w.refusedAfterMs ?? 0) / 1000).toFixed(1)} s after it was requested`).toBeUndefined();
    }
  });

  // A later moment of the same token: the client has obtained others since. A server that
  // keeps one token per client, or revokes a client's older tokens when it issues a new one,
  // is right on a token used alone and wrong on the worker's, which has been in use a while.
  test('a token obtained a while ago is still accepted after the client obtains new ones, in each way', { tag: ['@TOKEN-011'] }, async ({ api, target, tokens, runSettings }) => {
    const manager = tokens.primary!;
    await manager.token();
    const held = manager.held()!;
    // Old enough: at least OLDER_THAN_MS since it was obtained.
    const age = Date.now() - held.obtainedAt;
    if (age < OLDER_THAN_MS) await new Promise((resolve) => setTimeout(resolve, OLDER_THAN_MS - age));
    const presented = () => api.call('whoami', { as: 'none', headers: { authorization: `Bearer ${held.accessToken}` } });
    expect(await presented()).toSucceed("TOKEN-011: precondition: the worker's token is accepted before the client obtains new ones");
    const { clientId, clientSecret } = target.clients.primary;
    for (const [how, issue] of [
      ['a JSON body', () => api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } })],
      ['form fields', () => api.call('token', { form: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } })],
      ['HTTP Basic', () => api.call('token', { form: { grant_type: 'client_credentials' }, headers: { authorization: basicCredentials(clientId, clientSecret) } })],
    ] as const) {
      expect(await issue()).toSucceed(`TOKEN-001: precondition: the primary client obtains a token by ${how}`);
      const left = held.expiresAt - Date.now();
      if (left < LIFETIME_TOLERANCE_MS) notTestable(`the worker's token has less than ${LIFETIME_TOLERANCE_MS} ms of its lifetime left`);
      const res = await presented();
      expect(res.status, `TOKEN-011: the token the primary client obtained ${((Date.now() - held.obtainedAt) / 1000).toFixed(1)} s ago, with ${(left / 1000).toFixed(0)} s of its expires_in left, is refused once the client obtained another by ${how}`).not.toBe(401);
    }
    // A later moment still: some seconds after the renewals. A server that lets a client's older
    // tokens live a few seconds past a renewal (a grace for requests in flight), not the lifetime
    // their expires_in said, is right on the token presented at once.
    await new Promise((resolve) => setTimeout(resolve, AFTER_RENEWAL_MS));
    if (held.expiresAt - Date.now() > LIFETIME_TOLERANCE_MS) {
      const later = await presented();
      expect(later.status, `TOKEN-011: the token the primary client obtained ${((Date.now() - held.obtainedAt) / 1000).toFixed(1)} s ago is refused ${AFTER_RENEWAL_MS / 1000} s after the client obtained others, with its expires_in not yet out`).not.toBe(401);
    }
    // The run's oldest token: the preflight's, obtained before any test ran, and the client has
    // obtained many since. A server that lets a client's older tokens live on for a grace period
    // after a newer one is issued (not the lifetime their expires_in said) is right on the
    // worker's token a few seconds after a renewal, and wrong on this one, as long ago as the run
    // has lasted. Judged while its own expires_in leaves it time to live.
    const oldest = loadPrimaryIssuedEarly(runSettings.runDir);
    const lifetime = Number(oldest?.expiresIn);
    if (oldest !== null && Number.isFinite(lifetime) && oldest.requestedAt + lifetime * 1000 - Date.now() > LIFETIME_TOLERANCE_MS) {
      const res = await api.call('whoami', { as: 'none', headers: { authorization: `Bearer ${oldest.token}` } });
      expect(res.status, `TOKEN-011: the primary client's first token of the run, obtained ${((Date.now() - oldest.requestedAt) / 1000).toFixed(1)} s ago by the preflight with expires_in ${lifetime}, is refused after the client obtained others: ${res.describe()}`).not.toBe(401);
    }
  });

  // Another dimension of a token's life: how much it was used, not how long. Nothing but its
  // lifetime ends a token (sections 4.1, 5.3): a server that counts a token's uses and refuses it
  // after so many (a quota read as a lifetime) is right on every token used a few times.
  test(`a token is still accepted after it has authenticated ${USES} requests`, { tag: ['@TOKEN-011'] }, async ({ api, target, runSettings }) => {
    // A run paced to a rate limit makes as many as 20 s of its pace allows.
    const pace = runSettings.rateLimit ?? target.rateLimit.requestsPerSecond;
    const uses = pace === null ? USES : Math.max(USES_AT_ONCE, Math.min(USES, Math.floor(pace * 20)));
    if (uses < USES) test.info().annotations.push({ type: 'note', description: `the run keeps to ${pace} requests a second: the token was used ${uses} times, not ${USES}` });
    const { clientId, clientSecret } = target.clients.primary;
    const issued = await api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
    expect(issued).toSucceed('TOKEN-001: precondition: the primary client obtains a token');
    const lifetime = Number(issued.body.expires_in) * 1000;
    const started = Date.now();
    const refused: string[] = [];
    for (let done = 0; done < uses && refused.length === 0; done += USES_AT_ONCE) {
      const answers = await Promise.all(Array.from({ length: USES_AT_ONCE }, () => api.call('whoami', { as: 'none', headers: { authorization: `Bearer ${issued.body.access_token}` } })));
      for (const [i, res] of answers.entries()) if (res.status === 401) refused.push(`request ${done + i + 1}: ${res.describe()}`);
    }
    if (refused.length > 0 && Date.now() - started > lifetime - LIFETIME_TOLERANCE_MS) notTestable(`the token's expires_in (${issued.body.expires_in} s) ran out while it was used ${uses} times`);
    expect(refused, `TOKEN-011: a token with its expires_in (${issued.body.expires_in} s) not yet out is refused once it has authenticated some requests`).toEqual([]);
  });

  test('accepts client credentials in a JSON body', { tag: ['@TOKEN-003'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const res = await api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
    expect(res).toSucceed('TOKEN-003: JSON body credentials are accepted');
  });

  test('accepts client credentials in a form-encoded body', { tag: ['@TOKEN-004'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const res = await api.call('token', { form: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
    expect(res).toSucceed('TOKEN-004: form-encoded credentials are accepted');
    expect(res.body.access_token, 'TOKEN-004: a token is issued').toEqual(expect.stringMatching(/.+/));
  });

  // The same two ways for every client the config names: an id or secret with characters a form
  // must encode (the special client's ':', '+', '@') is read as written, in JSON as in a form
  // body, where a server that decodes '+' after '%2B' (or not at all) fails only that client.
  test("every configured client's credentials are accepted in a JSON body and in a form-encoded body", { tag: ['@TOKEN-003', '@TOKEN-004'] }, async ({ api, target }) => {
    const { primary, secondary, special } = target.clients;
    const brief = target.triggers.expireToken?.kind === 'wait' ? target.triggers.expireToken.client : undefined;
    const clients = new Map<string, { name: string; clientId: string; clientSecret: string }>();
    for (const [name, c] of [['clients.primary', primary], ['clients.secondary', secondary], ['clients.special', special], ['triggers.expireToken.client', brief]] as const) {
      if (c && !clients.has(c.clientId)) clients.set(c.clientId, { name, clientId: c.clientId, clientSecret: c.clientSecret });
    }
    const answers = await Promise.all(
      [...clients.values()].flatMap(({ name, clientId, clientSecret }) => {
        const fields = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
        return [
          api.call('token', { json: fields }).then((res) => ({ id: 'TOKEN-003', how: `${name} in a JSON body`, res })),
          api.call('token', { form: fields }).then((res) => ({ id: 'TOKEN-004', how: `${name} in a form-encoded body`, res })),
        ];
      }),
    );
    for (const { id, how, res } of answers) {
      expect.soft(res.status >= 200 && res.status < 300 && typeof res.body?.access_token === 'string', `${id}: the credentials of ${how} issue a token; got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(true);
    }
  });

  test('accepts client credentials by HTTP Basic client authentication', { tag: ['@TOKEN-005'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const res = await api.call('token', { form: { grant_type: 'client_credentials' }, headers: { authorization: basicCredentials(clientId, clientSecret) } });
    expect(res).toSucceed('TOKEN-005: HTTP Basic client authentication is accepted');
    expect(res.body.access_token, 'TOKEN-005: a token is issued').toEqual(expect.stringMatching(/.+/));
  });

  test('a token issued after Basic authentication opens the core routes', { tag: ['@TOKEN-005', '@AUTH-005'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const issued = await api.call('token', { json: { grant_type: 'client_credentials' }, headers: { authorization: basicCredentials(clientId, clientSecret) } });
    expect(issued).toSucceed('TOKEN-005');
    const res = await api.call('whoami', { as: 'none', headers: { authorization: `Bearer ${issued.body.access_token}` } });
    expect(res).toSucceed('AUTH-005: the issued token is accepted on /api/core');
  });
});

// Section 7.1: the OAuth-style error contract and its three errors. Statuses are not shown
// by the document (only that they are client errors); RFC 6749's are TOKEN-103/104.
test.describe('7.1 Token endpoint errors', () => {
  test('a wrong client secret is invalid_client in the OAuth body', { tag: ['@TOKEN-007', '@TOKEN-006', '@TOKEN-010'] }, async ({ api, target }) => {
    const res = await api.call('token', { json: { grant_type: 'client_credentials', client_id: failingClient(target, 0).clientId, client_secret: 'not-the-secret' } });
    expect(res).toBeOAuthError('invalid_client', 'TOKEN-007: failed client authentication is invalid_client');
    expect(typeof res.body.error_description, 'TOKEN-006: the OAuth body carries error_description').toBe('string');
  });

  test('an unknown client is invalid_client', { tag: ['@TOKEN-007', '@TOKEN-010'] }, async ({ api }) => {
    const res = await api.call('token', { json: { grant_type: 'client_credentials', client_id: `no-such-client-${Date.now()}`, client_secret: 'whatever' } });
    expect(res).toBeOAuthError('invalid_client', 'TOKEN-007: an unknown client is invalid_client');
  });

  test('wrong HTTP Basic credentials are invalid_client', { tag: ['@TOKEN-007', '@TOKEN-010'] }, async ({ api, target }) => {
    const res = await api.call('token', { form: { grant_type: 'client_credentials' }, headers: { authorization: basicCredentials(failingClient(target, 0, 'basic').clientId, 'not-the-secret') } });
    expect(res).toBeOAuthError('invalid_client', 'TOKEN-007: wrong Basic credentials are invalid_client');
  });

  // Basic credentials that do not decode: base64 of text without the colon that separates id
  // and secret, a percent escape that is not one (RFC 6749 2.3.1 has both form-encoded), and
  // text that is not base64. Client authentication fails on them: a 4xx in the OAuth body,
  // never the 500 of a decoder's exception.
  const UNDECODABLE_BASIC: ReadonlyArray<[string, string]> = [
    ['no colon', `Basic ${Buffer.from('no-colon-here').toString('base64')}`],
    ['a broken percent escape', `Basic ${Buffer.from('client%zz:secret%').toString('base64')}`],
    ['not base64', 'Basic ***'],
  ];
  test('Basic credentials that do not decode are refused in the OAuth body, never 5xx', { tag: ['@TOKEN-006', '@TOKEN-010', '@TOKEN-105'] }, async ({ api }) => {
    const answers = await Promise.all(UNDECODABLE_BASIC.map(async ([name, authorization]) => ({ name, res: await api.call('token', { form: { grant_type: 'client_credentials' }, headers: { authorization } }) })));
    for (const { name, res } of answers) {
      expect.soft(res.status, `TOKEN-010: Basic credentials with ${name} are refused with a 4xx; got ${res.describe()}`).toBeGreaterThanOrEqual(400);
      expect.soft(res.status, `TOKEN-010: Basic credentials with ${name} are refused with a 4xx; got ${res.describe()}`).toBeLessThan(500);
      expect.soft(typeof res.body?.error, `TOKEN-006: the refusal of Basic credentials with ${name} is the OAuth body; got ${res.text.slice(0, 200)}`).toBe('string');
      // RFC 9110 15.5.2: a 401 carries a challenge, whatever made the credentials fail.
      if (res.status === 401) expect.soft(res.headers['www-authenticate'], `TOKEN-105: the 401 to Basic credentials with ${name} carries WWW-Authenticate`).toBeTruthy();
    }
  });

  // A body whose bytes are not UTF-8, in each format the endpoint takes: no form fields or JSON
  // text the client could have meant (RFC 8259 8.1; form fields are UTF-8), so a client error in
  // the OAuth body (section 7.1), never the server's failure. A server whose core routes refuse
  // such bytes (ERR-003) may still fail on them at its own token endpoint.
  test('a token request whose body bytes are not UTF-8 is refused in the OAuth body, never 5xx', { tag: ['@TOKEN-006', '@TOKEN-010'] }, async ({ api, target }) => {
    const { clientSecret } = target.clients.primary;
    const bad = Buffer.from([0xff, 0xfe, 0xc3, 0x28]);
    const bodies: Array<[string, string, Uint8Array]> = [
      ['a form body', 'application/x-www-form-urlencoded', Buffer.concat([Buffer.from(`grant_type=client_credentials&client_secret=${encodeURIComponent(clientSecret)}&client_id=`), bad])],
      ['a JSON body', 'application/json', Buffer.concat([Buffer.from(`{"grant_type":"client_credentials","client_secret":${JSON.stringify(clientSecret)},"client_id":"`), bad, Buffer.from('"}')])],
    ];
    const answers = await Promise.all(bodies.map(async ([name, type, body]) => ({ name, res: await api.call('token', { body, headers: { 'content-type': type } }) })));
    for (const { name, res } of answers) {
      expect.soft(res.status >= 400 && res.status < 500, `TOKEN-010: ${name} whose client_id holds bytes that are not UTF-8 is refused with a 4xx; got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(true);
      expect.soft(typeof res.body?.error, `TOKEN-006: the refusal of ${name} with bytes that are not UTF-8 is the OAuth body; got ${res.text.slice(0, 200)}`).toBe('string');
    }
  });

  // A secret one character away from the real one is not the secret: a server that compares
  // only the stored secret's length of what it was given, ignores case, or trims whitespace,
  // takes it for the secret. Twelve failed authentications, in three tests (a JSON body, HTTP
  // Basic, and a form body), each of a client failingClient() picks; a
  // target that limits failures per client id answers 429 with Retry-After, which the harness
  // waits out. The near misses of one test are independent requests: they go out together.
  for (const way of Object.keys(WAYS) as TokenStyle[]) {
    const method = WAYS[way];
    test(`secrets a character away from the real one are invalid_client (${method})`, { tag: ['@TOKEN-007'] }, async ({ api, target }) => {
      // The form body gets the whitespace misses only (its decoding, '+' for a space, is where
      // a server most likely trims), to keep the failed authentications a target may limit few.
      const misses = way === 'form' ? NEAR_MISSES.filter((m) => /space|line feed/.test(m.name)) : NEAR_MISSES;
      const answers = await Promise.all(
        misses.map(async (miss, i) => {
          const { clientId, clientSecret } = failingClient(target, 1 + i, way === 'basic' ? 'basic' : 'body');
          const secret = miss.of(clientSecret);
          if (secret === null) return null;
          return { res: await api.call('token', tokenRequest(way, { clientId, clientSecret: secret })), name: `${miss.name} of ${clientId}` };
        }),
      );
      for (const { res, name } of answers.filter((a) => a !== null)) expect.soft(res).toBeOAuthError('invalid_client', `TOKEN-007: ${name} (${method}) fails client authentication: invalid_client`);
    });
  }

  // The sibling on the other credential: the client id with one letter's case flipped names no
  // client (ids are compared as written; section 4.1 gives no other rule), so with the real
  // secret it is an unknown client. A server that looks ids up without regard to case on one
  // path authenticates it there. Each way a client authenticates, at once.
  test("a client id with one letter's case flipped, or with spaces around it, with the real secret, is invalid_client, in a JSON body, a form body and by HTTP Basic", { tag: ['@TOKEN-007'] }, async ({ api, target }) => {
    const clients = [target.clients.primary, target.clients.secondary].filter((c): c is NonNullable<typeof c> => c !== undefined);
    const flipped = NEAR_MISSES.find((m) => m.name.includes('case flipped'))!;
    const ways = Object.keys(WAYS) as TokenStyle[];
    const cases = ways.map((way, i) => ({ way, client: clients[i % clients.length]! })).map(({ way, client }) => ({ way, client, id: flipped.of(client.clientId), how: "with one letter's case flipped" }));
    if (cases.every((c) => c.id === null)) notTestable("no configured client's id has a letter whose case can be flipped");
    // And the id with a space before and after it, each way too: a server that trims the id
    // it looks up finds the client by it.
    const padded = ways.map((way, i) => ({ way, client: clients[(i + 1) % clients.length]!, how: 'with a space before and after it' })).map((c) => ({ ...c, id: ` ${c.client.clientId} ` }));
    const answers = await Promise.all(
      [...cases, ...padded]
        .filter((c) => c.id !== null)
        .map(async ({ way, client, id, how }) => ({ res: await api.call('token', tokenRequest(way, { clientId: id!, clientSecret: client.clientSecret })), name: `${JSON.stringify(id)} (${client.clientId} ${how}) with its real secret (${WAYS[way]})` })),
    );
    for (const { res, name } of answers) expect.soft(res).toBeOAuthError('invalid_client', `TOKEN-007: ${name} names no client: invalid_client`);
  });

  // Another identity's secret: the secret of another configured client is a wrong secret for
  // this one. A server that checks the secret against every client's, not the named client's own,
  // takes it (and a server that finds the client by its secret issues the other client's token).
  // Each pair of configured clients, each way round, and each way a client authenticates (a JSON
  // body, a form body, HTTP Basic), in as few requests as cover both: a server may look the
  // secret up right on one path only. Few, because each is a failed authentication a server may
  // limit per client id (failingClient spreads the others).
  test("a client's id with another configured client's secret is invalid_client, in a JSON body, a form body and by HTTP Basic", { tag: ['@TOKEN-007'] }, async ({ api, target }) => {
    const clients = [target.clients.primary, target.clients.secondary, target.clients.special].filter((c): c is NonNullable<typeof c> => c !== undefined);
    if (clients.length < 2) notTestable('needs a second configured client, whose secret is another client\'s (clients.secondary or clients.special in the target config)');
    const pairs = clients.flatMap((a, i) => clients.filter((_, j) => j !== i && a.clientSecret !== clients[j]!.clientSecret).map((b) => [a, b] as const));
    const ways = Object.keys(WAYS) as TokenStyle[];
    const cases = Array.from({ length: Math.max(pairs.length, ways.length) }, (_, i) => ({ pair: pairs[i % pairs.length]!, way: ways[i % ways.length]! }));
    const answers = await Promise.all(
      cases.map(async ({ pair: [a, b], way }) => ({
        res: await api.call('token', tokenRequest(way, { clientId: a.clientId, clientSecret: b.clientSecret })),
        name: `${a.clientId} with the secret of ${b.clientId} (${WAYS[way]})`,
      })),
    );
    for (const { res, name } of answers) expect.soft(res).toBeOAuthError('invalid_client', `TOKEN-007: ${name} fails client authentication: invalid_client`);
  });

  // Beside other grants, client_credentials in other letter cases, and its neighbours: values
  // that hold it, extend it, are cut short of it or pad it with a space. Section 4.1 says the
  // value must be client_credentials, and OAuth's values are compared as strings (RFC 6749
  // 4.4.2), so a server that looks for the word inside the value, or trims it, issues a token
  // it must not. And one with a quote and a backslash in it: a server that writes the grant it
  // refuses into error_description unescaped answers a body that is no JSON (ERR-004).
  for (const grant of ['password', 'authorization_code', 'refresh_token', 'urn:example:custom-grant', 'Client_Credentials', 'CLIENT_CREDENTIALS', 'client_credentials_v2', 'urn:client_credentials', 'client_credential', 'client_credentials ', 'pass"word\\x']) {
    test(`grant_type ${grant} is unsupported_grant_type, in a JSON body, a form body and beside HTTP Basic`, { tag: ['@TOKEN-008', '@TOKEN-006', '@TOKEN-010'] }, async ({ api, target }) => {
      const answers = await Promise.all((Object.keys(WAYS) as TokenStyle[]).map(async (way) => ({ way, res: await api.call('token', tokenRequest(way, target.clients.primary, grant)) })));
      for (const { way, res } of answers) expect.soft(res).toBeOAuthError('unsupported_grant_type', `TOKEN-008: grant_type ${grant} (${WAYS[way]}) is not client_credentials`);
    });
  }

  test('a missing client_secret is invalid_request', { tag: ['@TOKEN-009', '@TOKEN-006', '@TOKEN-010'] }, async ({ api, target }) => {
    const res = await api.call('token', { json: { grant_type: 'client_credentials', client_id: target.clients.primary.clientId } });
    expect(res).toBeOAuthError('invalid_request', 'TOKEN-009: a missing client_secret is invalid_request');
  });

  test('a missing client_id is invalid_request', { tag: ['@TOKEN-009', '@TOKEN-010'] }, async ({ api }) => {
    const res = await api.call('token', { form: { grant_type: 'client_credentials', client_secret: 'something' } });
    expect(res).toBeOAuthError('invalid_request', 'TOKEN-009: a missing client_id is invalid_request');
  });

  // Section 7.3 names malformed JSON a request defect; at the token endpoint, section 7.1's
  // OAuth body says so. A server whose framework answers an unparsable body before its token
  // handler runs gives that framework's error (or the CORE wrapper) instead.
  for (const { name, spoil } of MALFORMED_JSON) {
    test(`a token request of ${name} is a 4xx in the OAuth body, invalid_request with 400`, { tag: ['@TOKEN-006', '@TOKEN-010', '@TOKEN-103'] }, async ({ api, target }) => {
      const { clientId, clientSecret } = target.clients.primary;
      const body = spoil(JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }));
      const res = await api.call('token', { body, headers: { 'content-type': 'application/json' } });
      expect(res.status, `TOKEN-010: a token request of ${name} is a client error (4xx); got ${res.describe()}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `TOKEN-010: a token request of ${name} is a client error (4xx); got ${res.describe()}`).toBeLessThan(500);
      expect(typeof res.body?.error, `TOKEN-006: the answer to ${name} is the OAuth body, error a string; got ${res.text.slice(0, 200)}`).toBe('string');
      expect(res.body?.requestId, `TOKEN-006: no CORE requestId in the answer to ${name}`).toBeUndefined();
      // RFC 6749 5.2: a request "otherwise malformed" is invalid_request, answered 400.
      expect(res).toBeOAuthError('invalid_request', `TOKEN-103: a token request of ${name} is invalid_request`);
      expect(res.status, `TOKEN-103: invalid_request is answered 400; got ${res.describe()}`).toBe(400);
    });
  }

  // JSON that parses but is no object of fields (section 4.1's fields are a JSON object's members):
  // the credentials wrapped in an array, or written as a form string inside a JSON string, carry
  // no grant_type, client_id or client_secret. A server that unwraps them issues a token for a
  // body the document gives no fields to. Every condition of section 7.1 holds at once (no
  // grant_type, no credentials, so no authenticated client) and the document orders none, so any
  // of its errors passes there; RFC 6749 5.2 makes a missing parameter invalid_request and a
  // request without client authentication invalid_client, in no order either (TOKEN-103).
  for (const [name, body] of [
    ['the credentials in a JSON array', (g: Record<string, string>) => JSON.stringify([g])],
    ['the credentials form-encoded inside a JSON string', (g: Record<string, string>) => JSON.stringify(new URLSearchParams(g).toString())],
    ['JSON null', () => 'null'],
    ['a JSON number', () => '42'],
  ] as const) {
    test(`a token request of ${name} issues no token: a 4xx in the OAuth body, invalid_request (400) or invalid_client`, { tag: ['@TOKEN-006', '@TOKEN-010', '@TOKEN-103'] }, async ({ api, target }) => {
      const { clientId, clientSecret } = target.clients.primary;
      const res = await api.call('token', { body: body({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }), headers: { 'content-type': 'application/json' } });
      expect(res.status, `TOKEN-010: a token request of ${name} names no grant_type or credentials, a client error (4xx); got ${res.describe()} ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `TOKEN-010: a token request of ${name} is a client error (4xx); got ${res.describe()}`).toBeLessThan(500);
      expect(['invalid_request', 'unsupported_grant_type', 'invalid_client'], `TOKEN-006: the answer to ${name} is the OAuth body with an error of section 7.1; got ${res.text.slice(0, 200)}`).toContain(res.body?.error);
      expect(['invalid_request', 'invalid_client'], `TOKEN-103: a token request of ${name} misses grant_type (invalid_request) and client authentication (invalid_client); got ${res.text.slice(0, 200)}`).toContain(res.body?.error);
      if (res.body?.error === 'invalid_request') expect(res.status, `TOKEN-103: invalid_request is answered 400; got ${res.describe()}`).toBe(400);
    });
  }

  // Another identity in one request: HTTP Basic authenticates one client while the body names
  // another client's id, without that client's secret. The named client did not authenticate,
  // so no token may act for it (RFC 6749 2.3 makes two methods in one request invalid_request,
  // TOKEN-1xx's to judge; a token for the client that did authenticate is not judged here). A
  // server that takes the subject from the body's client_id once Basic succeeded issues the
  // other client's token on this client's secret. In a form body and in a JSON body, at once.
  test("HTTP Basic as one client with the body naming another client's id issues no token acting for the other client", { tag: ['@TOKEN-007'] }, async ({ api, target }) => {
    const { primary, secondary } = target.clients;
    if (!secondary) notTestable('needs a second configured client, whose id the body names (clients.secondary in the target config)');
    const own = await api.call('whoami', { as: 'secondary' });
    expect(own).toSucceed("TOKEN-007: precondition: the secondary client's own context");
    const authorization = basicCredentials(primary.clientId, primary.clientSecret);
    const answers = await Promise.all(
      [
        ['a form body', { form: { grant_type: 'client_credentials', client_id: secondary!.clientId }, headers: { authorization } }],
        ['a JSON body', { json: { grant_type: 'client_credentials', client_id: secondary!.clientId }, headers: { authorization } }],
      ].map(async ([how, options]) => ({ how: how as string, res: await api.call('token', options as Parameters<typeof api.call>[1]) })),
    );
    for (const { how, res } of answers) {
      const token = res.status < 300 && typeof res.body?.access_token === 'string' ? res.body.access_token : null;
      if (token !== null) {
        const context = await api.call('whoami', { as: 'none', headers: { authorization: `Bearer ${token}` } });
        expect.soft(context.status < 300 && context.body?.apiClientId === own.body.apiClientId, `TOKEN-007: HTTP Basic as ${primary.clientId} with ${how} naming ${secondary!.clientId} issued a token that acts for ${secondary!.clientId} (whoami: ${context.describe()} ${context.text.slice(0, 160)}): that client never authenticated`).toBe(false);
      }
    }
  });

  // A token request in a format section 4.1 does not name: plain text, XML, bytes, multipart,
  // each carrying the form-encoded credentials. Whether a server reads one is its choice; an
  // error it answers is a token endpoint error, in the OAuth body (7.1) and a client error
  // (TOKEN-010). A server whose framework refuses an unknown media type before the token handler
  // runs answers in the framework's format (a plain-text 415, or the CORE wrapper).
  test('a token request in a format the endpoint does not take is answered, if refused, with a 4xx in the OAuth body', { tag: ['@TOKEN-006', '@TOKEN-010'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString();
    const types = ['text/plain', 'application/xml', 'application/octet-stream', 'multipart/form-data; boundary=conformance'];
    // The OpenAPI document's check of each answer (ERR-004) comes after this test's own: a refusal
    // that is no OAuth body is TOKEN-006's failure first.
    const answers = await Promise.all(types.map(async (type) => ({ type, ...(await answerOf(api.call('token', { body, headers: { 'content-type': type } }))) })));
    for (const { type, res } of answers.filter((a) => a.res.status >= 400)) {
      expect.soft(res.status, `TOKEN-010: a token request labelled ${type} is refused with a client error (4xx); got ${res.describe()}`).toBeLessThan(500);
      expect.soft(typeof res.body?.error, `TOKEN-006: the refusal of a token request labelled ${type} is the OAuth body, error a string; got ${res.describe()} ${res.headers['content-type'] ?? ''} ${res.text.slice(0, 160)}`).toBe('string');
      expect.soft(res.body?.requestId, `TOKEN-006: no CORE requestId in the refusal of a token request labelled ${type}`).toBeUndefined();
    }
    const violation = answers.find((a) => a.violation !== null)?.violation;
    if (violation) throw violation;
  });

  test('token errors never use the CORE wrapper', { tag: ['@TOKEN-006'] }, async ({ api }) => {
    const res = await api.call('token', { json: { grant_type: 'client_credentials' } });
    expect(res).toBeRejected('TOKEN-006');
    expect(typeof res.body.error, 'TOKEN-006: error is a string, not the CORE error object').toBe('string');
    expect(res.body.requestId, 'TOKEN-006: no CORE requestId in a token error').toBeUndefined();
  });

  // The endpoint's other methods: what the server answers them is its choice (a 405, a 404), but
  // an error body it gives at the token endpoint is the endpoint's contract (section 7.1), not the
  // CORE wrapper of /api/core/* (7.2). A server whose method check sits in front of every route
  // answers there as a core route does.
  test('an error answer to another method at the token endpoint is no CORE wrapper', { tag: ['@TOKEN-006'] }, async ({ api }) => {
    const answers = await Promise.all(['GET', 'PUT', 'DELETE', 'PATCH'].map((method) => api.call('token', { method })));
    for (const res of answers) {
      if (res.status >= 400 && res.body !== null && typeof res.body === 'object') {
        expect.soft(typeof res.body.error === 'object' && res.body.error !== null, `TOKEN-006: ${res.describe()}: an error at the token endpoint is in the OAuth body (7.1), not the CORE wrapper; got ${res.text.slice(0, 200)}`).toBe(false);
        expect.soft(res.body.requestId, `TOKEN-006: ${res.describe()}: no CORE requestId in a token endpoint error`).toBeUndefined();
      }
    }
  });
});
