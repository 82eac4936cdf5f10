// The preflight's judgement of a target's first answers: what is the run's problem (stop)
// and what is for the suites to judge (go on, with a note).
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { resolveTarget } from '../../harness/config.ts';
import { connectionHint, preflight, PreflightError } from '../../harness/preflight.ts';
import { fakeServer } from '../cli/helpers.ts';

type Route = (req: IncomingMessage, body: string) => [number, unknown] | undefined;

/** The reference profile's search and update routes, served (an empty search or update is a request defect): the preflight looks for them where a config does not name them. */
const profileRoutes = (req: IncomingMessage): [number, unknown] | undefined =>
  (req.method === 'POST' && req.url === '/api/core/numbers/search') || (req.method === 'PATCH' && req.url?.startsWith('/api/core/numbers/')) ? [400, { error: { code: 'INVALID_REQUEST' } }] : undefined;

async function against(route: Route, config: Record<string, unknown> = {}, ownFixtures = false) {
  const server = await fakeServer((req, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const [status, json] = route(req, body) ?? profileRoutes(req) ?? [404, { error: { code: 'NOT_FOUND' } }];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  const target = resolveTarget({ baseUrl: server.url, clients: { primary: { clientId: 'c1', clientSecret: 's1' } }, ...config }, 'test.yaml', {});
  try {
    return await preflight(target, { origin: 'test.yaml', ownFixtures }).then((result) => ({ result, error: undefined }), (error: unknown) => ({ result: undefined, error: error as PreflightError }));
  } finally {
    await server.close();
  }
}

const token = (req: IncomingMessage, accepts: (body: string, auth?: string) => boolean, body: string): [number, unknown] | undefined =>
  req.url === '/api/auth/token' ? (accepts(body, req.headers.authorization) ? [200, { access_token: 't0k', token_type: 'bearer', expires_in: 60 }] : [401, { error: 'invalid_client' }]) : undefined;
const numbers = (req: IncomingMessage, answer: unknown): [number, unknown] | undefined => (req.url === '/api/core/numbers' ? [200, answer] : undefined);

test('a server that refuses JSON credentials but takes form ones gets a token: the suites judge the rest', async () => {
  const { result, error } = await against((req, body) => token(req, (b) => b.startsWith('grant_type=client_credentials&'), body) ?? numbers(req, { numbers: [{ numberId: 'n1' }] }));
  expect(error).toBeUndefined();
  expect(result?.clients).toEqual([{ role: 'primary', clientId: 'c1', tokenBy: 'form body', numbers: ['n1'] }]);
});

test('no token endpoint at the document\'s path, while the core routes answer: a note, and the suites judge VER-001', async () => {
  const { result, error } = await against((req) => (req.url === '/api/core/whoami' ? [401, { error: { code: 'UNAUTHORIZED' } }] : undefined));
  expect(error).toBeUndefined();
  expect(result?.notes.join()).toContain('tests that need a token will fail on VER-001');
});

test('on the bundled reference, started from the harness\'s own fixtures, what would stop a user\'s run is the server\'s failure: a note naming what the suites judge, and the run goes on', async () => {
  // Credentials refused every way: a user's config may be wrong; fixtures the harness wrote cannot be.
  const refusing = (req: IncomingMessage, body: string) => token(req, () => false, body);
  expect((await against(refusing)).error?.what).toContain('could not obtain a token');
  const own = await against(refusing, {}, true);
  expect(own.error).toBeUndefined();
  expect(own.result?.notes.join()).toContain('for the suites to judge (TOKEN-001)');
  expect(own.result?.tokens?.primary).toBeUndefined();
  // The list failing, and a profile route not served.
  const failing = (req: IncomingMessage, body: string): [number, unknown] | undefined => token(req, () => true, body) ?? (req.url === '/api/core/numbers' ? [500, { error: { code: 'INTERNAL_ERROR' } }] : undefined);
  expect((await against(failing)).error?.what).toContain('listing the primary client\'s numbers fails');
  expect((await against(failing, {}, true)).result?.notes.join()).toContain('(NUM-001)');
  const noUpdate = (req: IncomingMessage, body: string): [number, unknown] | undefined =>
    token(req, () => true, body) ?? numbers(req, { numbers: [{ numberId: 'n1' }] }) ?? (req.method === 'PATCH' ? [404, { error: { code: 'NOT_FOUND' } }] : undefined);
  expect((await against(noUpdate)).error?.what).toContain('routes.update is not set');
  expect((await against(noUpdate, {}, true)).result?.notes.join()).toContain('(UPD-001)');
});

test('nothing at the document\'s paths: the base URL is wrong', async () => {
  const { error } = await against(() => undefined);
  expect(error).toBeInstanceOf(PreflightError);
  expect(error?.what).toBe('nothing serves the token endpoint at the document\'s path (primary client)');
  expect(error?.check).toContain('baseUrl in test.yaml');
});

test('the numbers list not where the config says: the check names itemsPath and where the answer holds one', async () => {
  const { error } = await against((req, body) => token(req, () => true, body) ?? numbers(req, { data: [{ numberId: 'n1' }] }));
  expect(error?.what).toContain('the list is not where the config says (property "numbers")');
  expect(error?.check).toBe('routes.numbers.itemsPath in test.yaml (the answer holds a list of numbers at: data)');
  // No list of numbers anywhere in the answer: the server's failure (NUM-001), for the suites to judge.
  const none = await against((req, body) => token(req, () => true, body) ?? numbers(req, { data: 'none' }));
  expect(none.error).toBeUndefined();
  expect(none.result?.notes.join()).toContain('the answer holds no list of numbers');
});

test('a target that claims the reference profile and leaves the numbers route to it answers the list elsewhere: its failure, a note, and the suites judge it', async () => {
  const bare = (req: IncomingMessage, body: string) => token(req, () => true, body) ?? numbers(req, [{ numberId: 'n1' }]);
  const { result, error } = await against(bare, { profile: 'reference' });
  expect(error).toBeUndefined();
  expect(result?.notes.join()).toContain('the list is not where the reference profile puts it (property "numbers"; the answer holds one at: the answer itself): the suites judge it');
  // The same answer from a target that claims no profile is the config's gap: the run stops.
  expect((await against(bare)).error?.what).toContain('the list is not where the config says (property "numbers")');
});

test('a token the server has just issued and its numbers route refuses is the server\'s failure: a note, and the suites judge it', async () => {
  const { result, error } = await against((req, body) => token(req, () => true, body) ?? (req.url === '/api/core/numbers' ? [401, { error: { code: 'UNAUTHORIZED' } }] : undefined));
  expect(error).toBeUndefined();
  expect(result?.notes.join()).toContain('the suites judge it (AUTH-005, NUM-001)');
});

test('a profile route the target does not serve stops the run naming routes.<operation>; a route the config names is the target\'s to serve', async () => {
  const noSearch = (req: IncomingMessage, body: string): [number, unknown] | undefined =>
    token(req, () => true, body) ?? numbers(req, { numbers: [{ numberId: 'n1' }] }) ?? (req.url === '/api/core/numbers/search' ? [405, { error: { code: 'METHOD_NOT_ALLOWED' } }] : undefined);
  const { error } = await against(noSearch);
  expect(error?.what).toBe("routes.search is not set, and the reference profile's POST /api/core/numbers/search is not served by the target");
  expect(error?.check).toContain('routes.search in test.yaml');
  const named = await against(noSearch, { routes: { search: { method: 'POST', path: '/api/core/numbers/search' } } });
  expect(named.error).toBeUndefined();
});

test('a client without numbers is a note, not a stop', async () => {
  const { result } = await against((req, body) => token(req, () => true, body) ?? numbers(req, { numbers: [] }));
  expect(result?.notes).toEqual(['the primary client has no numbers: tests that send or change settings will be not testable']);
});

/** A server where every request naming the primary client (c1) is answered 150 ms late; it counts requests in flight. */
async function primaryHeldBack(route: Route) {
  const seen = { inFlight: 0, mostInFlight: 0 };
  const server = await fakeServer((req, res: ServerResponse) => {
    seen.mostInFlight = Math.max(seen.mostInFlight, (seen.inFlight += 1));
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const [status, json] = route(req, body) ?? profileRoutes(req) ?? [404, {}];
      const late = body.includes('c1') || (req.headers.authorization ?? '').includes('t0k-c1');
      setTimeout(() => {
        seen.inFlight -= 1;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      }, late ? 150 : 0);
    });
  });
  return Object.assign(server, { seen });
}

test('the clients are checked at once, but their lines and the failure that stops the run come in role order', async () => {
  const clients = { primary: { clientId: 'c1', clientSecret: 's1' }, secondary: { clientId: 'c2', clientSecret: 's2' } };
  const issued = (body: string): [number, unknown] => [200, { access_token: body.includes('c1') ? 't0k-c1' : 't0k-c2', token_type: 'bearer', expires_in: 60 }];
  const served = await primaryHeldBack((req, body) => (req.url === '/api/auth/token' ? issued(body) : numbers(req, { numbers: [{ numberId: 'n1' }] })));
  const failing = await primaryHeldBack((req) => (req.url === '/api/auth/token' ? [500, { error: 'server_error' }] : undefined));
  try {
    const found = await preflight(resolveTarget({ baseUrl: served.url, clients }, 'test.yaml', {}), { origin: 'test.yaml' });
    expect(served.seen.mostInFlight, 'the secondary client was checked while the primary was waiting').toBe(2);
    expect(found.clients.map((c) => c.role)).toEqual(['primary', 'secondary']);
    expect(found.checked).toEqual([
      'the primary client (c1) obtained a token (JSON body)',
      'the primary client lists 1 number',
      'the secondary client (c2) obtained a token (JSON body)',
      'the secondary client lists 1 number',
    ]);
    // Both clients' token requests fail, the secondary's first: the failure named is the primary's.
    const error = await preflight(resolveTarget({ baseUrl: failing.url, clients }, 'test.yaml', {}), { origin: 'test.yaml' }).then(() => undefined, (e: unknown) => e as PreflightError);
    expect(error).toBeInstanceOf(PreflightError);
    expect(error?.what).toBe('the token endpoint fails (primary client, JSON body)');
  } finally {
    await served.close();
    await failing.close();
  }
});

// The config's own mistakes found before any test runs, instead of as requirement failures of
// the server (INTERPRETING.md: a verdict must be true).

/** Tokens for whoever presents `secret`, and a numbers list per token. */
const perClient = (secrets: Record<string, string>, lists: Record<string, string[]>): Route => (req, body) => {
  if (req.url === '/api/auth/token') {
    // Refused credentials are tried in every form the document allows (JSON, form, Basic): read the first two.
    const grant = (body.startsWith('{') ? JSON.parse(body) : Object.fromEntries(new URLSearchParams(body))) as { client_id?: string; client_secret?: string };
    return grant.client_id && secrets[grant.client_id] === grant.client_secret ? [200, { access_token: `tok-${grant.client_id}`, token_type: 'bearer', expires_in: 2 }] : [401, { error: 'invalid_client' }];
  }
  const owner = (req.headers.authorization ?? '').replace('Bearer tok-', '');
  return numbers(req, { numbers: (lists[owner] ?? []).map((numberId) => ({ numberId })) });
};
const twoClients = { clients: { primary: { clientId: 'c1', clientSecret: 's1' }, secondary: { clientId: 'c2', clientSecret: 's2' } } };

test("two clients whose tokens act for one apiClientId, or who get one token, are the server's failure: a note naming AUTH-007 and CTX-002, and what would stop the run after it is the server's too", async () => {
  const lists = { c1: ['n1'], c2: ['n2'] };
  const whoami = (req: IncomingMessage, id: (owner: string) => string): [number, unknown] | undefined =>
    req.url === '/api/core/whoami' ? [200, { apiClientId: id((req.headers.authorization ?? '').replace('Bearer tok-', '')) }] : undefined;
  // A correct server: each token its own client's.
  const apart = await against((req, body) => whoami(req, (owner) => `api-${owner}`) ?? perClient({ c1: 's1', c2: 's2' }, lists)(req, body), twoClients);
  expect(apart.error).toBeUndefined();
  expect(apart.result?.serverFailure).toBeUndefined();
  // Both tokens act for the secondary (a token table keyed by something the two share); numbers.sms then names a number the primary's list does not show.
  const mixed = await against((req, body) => whoami(req, () => 'api-c2') ?? perClient({ c1: 's1', c2: 's2' }, lists)(req, body), { ...twoClients, numbers: { sms: 'n9' } });
  expect(mixed.error, 'the later finding is not a stop').toBeUndefined();
  expect(mixed.result?.serverFailure).toContain('both act for apiClientId "api-c2"');
  expect(mixed.result?.notes.join('\n')).toContain("server's failure, for the suites to judge (AUTH-007, CTX-002)");
  expect(mixed.result?.notes.join('\n')).toContain('numbers.sms (n9) is not one of the primary client');
  // One access token for both clients.
  const same = await against((req, body) => (req.url === '/api/auth/token' ? [200, { access_token: 'one', token_type: 'bearer', expires_in: 60 }] : numbers(req, { numbers: [{ numberId: 'n1' }] })), twoClients);
  expect(same.result?.serverFailure).toBe('the primary and the secondary client were issued the same access token');
  // Without that failure, the same config mistake still stops the run.
  const config = await against((req, body) => whoami(req, (owner) => `api-${owner}`) ?? perClient({ c1: 's1', c2: 's2' }, lists)(req, body), { ...twoClients, numbers: { sms: 'n9' } });
  expect(config.error?.what).toContain('numbers.sms (n9) is not one of the primary client');
});

test('the expireToken trigger\'s own client with a wrong secret stops the run, naming the trigger\'s fields', async () => {
  const triggers = { expireToken: { kind: 'wait', client: { clientId: 'brief', clientSecret: 'wrong' }, maxWaitSeconds: 10 } };
  const { error } = await against(perClient({ c1: 's1', brief: 'right' }, { c1: ['n1'] }), { triggers });
  expect(error).toBeInstanceOf(PreflightError);
  expect(error?.what).toBe('the expireToken trigger client (brief) could not obtain a token: every way of presenting its credentials was refused');
  expect(error?.check).toContain('triggers.expireToken.client.clientId and triggers.expireToken.client.clientSecret in test.yaml');
  const { result } = await against(perClient({ c1: 's1', brief: 'right' }, { c1: ['n1'] }), { triggers: { expireToken: { ...triggers.expireToken, client: { clientId: 'brief', clientSecret: 'right' } } } });
  expect(result?.checked).toContain('the expireToken trigger client (brief) obtained a token (JSON body)');
  // Kept for the tests that wait it out, with whoami's answer to it (refused here: that fake lists numbers only).
  expect(result?.tokenIssuedEarly).toMatchObject({ clientId: 'brief', token: 'tok-brief', expiresIn: 2, acceptedBefore: 404 });
});

test('numbers.sms or numbers.mms that the primary client does not list stops the run, showing the list', async () => {
  for (const field of ['sms', 'mms']) {
    const { error } = await against(perClient({ c1: 's1' }, { c1: ['n1', 'n2'] }), { numbers: { [field]: 'n9' } });
    expect(error?.what).toBe(`numbers.${field} (n9) is not one of the primary client's numbers`);
    expect(error?.answer).toContain('the primary client lists: n1, n2; a send from it: POST');
    expect(error?.check).toContain(`numbers.${field} in test.yaml`);
  }
  const { error } = await against(perClient({ c1: 's1' }, { c1: ['n1', 'n2'] }), { numbers: { sms: 'n2', mms: 'n1' } });
  expect(error).toBeUndefined();
});

test('numbers.pool names only numbers of its client: one its client does not list stops the run, one the list leaves out but a send takes is the server\'s (NUM-001)', async () => {
  const lists = { c1: ['n1', 'n2'], c2: ['f1'] };
  const primary = await against(perClient({ c1: 's1', c2: 's2' }, lists), { ...twoClients, numbers: { pool: { primary: ['n1', 'n9'] } } });
  expect(primary.error?.what).toBe("numbers.pool.primary names n9, which is not one of the primary client's numbers");
  expect(primary.error?.check).toContain('numbers.pool.primary in test.yaml');
  const secondary = await against(perClient({ c1: 's1', c2: 's2' }, lists), { ...twoClients, numbers: { pool: { secondary: ['f1', 'n1'] } } });
  expect(secondary.error?.what).toBe("numbers.pool.secondary names n1, which is not one of the secondary client's numbers");
  expect((await against(perClient({ c1: 's1', c2: 's2' }, lists), { ...twoClients, numbers: { pool: { primary: ['n2', 'n1'], secondary: ['f1'] } } })).error).toBeUndefined();
  const accepting: Route = (req, body) => (req.url === '/api/core/messages/send' ? [202, { results: [{ messageId: 'm1', status: 'QUEUED' }], errors: [] }] : perClient({ c1: 's1' }, { c1: ['n1'] })(req, body));
  const cut = await against(accepting, { numbers: { pool: { primary: ['n1', 'n3'] } } });
  expect(cut.error).toBeUndefined();
  expect(cut.result?.notes.join()).toContain('numbers.pool.primary names n3, which is missing from the primary client\'s list, yet a send from it was accepted');
  // A send refused for the number's own state (400), and an update that changes nothing taken: the client's number.
  const unregistered = (updated: number): Route => (req, body) =>
    req.url === '/api/core/messages/send' ? [400, { error: { code: 'INVALID_REQUEST', message: 'no campaignregId', details: {} }, requestId: 'r1' }] : req.method === 'PATCH' ? [updated, {}] : perClient({ c1: 's1' }, { c1: ['n1'] })(req, body);
  const owned = await against(unregistered(200), { numbers: { pool: { primary: ['n1', 'n3'] } } });
  expect(owned.error).toBeUndefined();
  expect(owned.result?.notes.join()).toContain('yet the client\'s update of it that changes nothing was accepted');
  expect((await against(unregistered(404), { numbers: { pool: { primary: ['n1', 'n3'] } } })).error?.what).toBe("numbers.pool.primary names n3, which is not one of the primary client's numbers");
});

test('numbers.foreign must be another client\'s number: not the primary\'s own, and the secondary\'s when there is one', async () => {
  const lists = { c1: ['n1'], c2: ['f1'] };
  const own = await against(perClient({ c1: 's1', c2: 's2' }, lists), { ...twoClients, numbers: { foreign: 'n1' } });
  expect(own.error?.what).toBe("numbers.foreign (n1) is one of the primary client's own numbers");
  const elsewhere = await against(perClient({ c1: 's1', c2: 's2' }, lists), { ...twoClients, numbers: { foreign: 'x7' } });
  expect(elsewhere.error?.what).toBe("numbers.foreign (x7) is not one of the secondary client's numbers");
  expect(elsewhere.error?.answer).toContain('the secondary client lists: f1; a send from it: POST');
  // Without a secondary client, any number the primary client does not own will do.
  expect((await against(perClient({ c1: 's1' }, lists), { numbers: { foreign: 'x7' } })).error).toBeUndefined();
  expect((await against(perClient({ c1: 's1', c2: 's2' }, lists), { ...twoClients, numbers: { foreign: 'f1' } })).error).toBeUndefined();
});

test('a configured number the lists disagree with is the server\'s failure when the server\'s own answers contradict each other', async () => {
  // numbers.foreign in both clients' lists: the primary client's list shows another client's number (NUM-003).
  const leak = await against(perClient({ c1: 's1', c2: 's2' }, { c1: ['n1', 'f1'], c2: ['f1'] }), { ...twoClients, numbers: { foreign: 'f1' } });
  expect(leak.error).toBeUndefined();
  expect(leak.result?.notes.join()).toContain('which the suites judge (NUM-003)');
  // numbers.sms missing from the list, yet a send from it accepted: the list leaves out a number the client has (NUM-001).
  const accepting: Route = (req, body) => (req.url === '/api/core/messages/send' ? [202, { results: [{ messageId: 'm1', status: 'QUEUED' }], errors: [] }] : perClient({ c1: 's1' }, { c1: ['n1'] })(req, body));
  const missing = await against(accepting, { numbers: { sms: 'n9' } });
  expect(missing.error).toBeUndefined();
  expect(missing.result?.notes.join()).toContain('which the suites judge (NUM-001)');
});

test("an update of a number the client's first list showed, answered 404 while the client asked alone does not list it, is the lists' failure, not a route to set", async () => {
  // The first list is another client's (a server that mixes up concurrent callers); asked again, alone, the client's own.
  let lists = 0;
  const { result, error } = await against((req, body) => {
    if (token(req, () => true, body)) return token(req, () => true, body);
    if (req.method === 'GET' && req.url === '/api/core/numbers') return [200, { numbers: [{ numberId: lists++ === 0 ? 'num_theirs' : 'num_mine' }] }];
    if (req.method === 'PATCH' && req.url === '/api/core/numbers/num_theirs') return [404, { error: { code: 'NOT_FOUND' } }];
    return undefined;
  });
  expect(error).toBeUndefined();
  expect(result?.notes.join()).toContain('asked alone, does not list that number');
  // Listed alone too, the same 404 is a route the target does not serve: the config's gap.
  const served = await against((req, body) => {
    if (token(req, () => true, body)) return token(req, () => true, body);
    if (req.method === 'GET' && req.url === '/api/core/numbers') return [200, { numbers: [{ numberId: 'num_mine' }] }];
    if (req.method === 'PATCH') return [404, { error: { code: 'NOT_FOUND' } }];
    return undefined;
  });
  expect(served.error?.message).toMatch(/routes\.update is not set/);
});

// A connection that fails before any answer says what to fix by the failure's kind; the check
// never suggests turning certificate checks off. The certificate is test/harness/tls's.
test('a TLS certificate this machine does not trust, and plain HTTP under an https baseUrl, each stop the run naming their own fix', async () => {
  const tls = (file: string) => readFileSync(new URL(`./tls/${file}`, import.meta.url));
  const server = createTlsServer({ key: tls('self-signed.key.pem'), cert: tls('self-signed.cert.pem') }, (_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const plain = await fakeServer((_req, res) => res.writeHead(404).end());
  const stopOf = async (baseUrl: string) => {
    const target = resolveTarget({ baseUrl, clients: { primary: { clientId: 'c1', clientSecret: 's1' } } }, 'test.yaml', {});
    return preflight(target, { origin: 'test.yaml', ownFixtures: false }).then(() => undefined, (error: unknown) => error as PreflightError);
  };
  try {
    const untrusted = await stopOf(`https://127.0.0.1:${port}`);
    expect(untrusted?.answer).toContain('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(untrusted?.check).toContain('NODE_EXTRA_CA_CERTS');
    const notTls = await stopOf(plain.url.replace('http:', 'https:'));
    expect(notTls?.check).toContain('says https, and the answer was not TLS');
  } finally {
    server.close();
    await plain.close();
  }
});

test('a host name that does not resolve is named as such', () => {
  expect(connectionHint('ENOTFOUND', 'https://api.example.invalid', 'in c.yaml')).toBe('that api.example.invalid (baseUrl in c.yaml) is the server\'s host name and resolves from this machine (no such name)');
  expect(connectionHint('ECONNRESET', 'http://h:1', 'in c.yaml')).toContain('that the server is running');
});
