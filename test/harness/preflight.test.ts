// The preflight's judgement of a target's first answers: what is the run's problem (stop)
// and what is for the suites to judge (go on, with a note).
import { expect, test } from '@playwright/test';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolveTarget } from '../../harness/config.ts';
import { preflight, PreflightError } from '../../harness/preflight.ts';
import { fakeServer } from '../cli/helpers.ts';

type Route = (req: IncomingMessage, body: string) => [number, unknown] | undefined;

async function against(route: Route, config: Record<string, unknown> = {}) {
  const server = await fakeServer((req, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const [status, json] = route(req, body) ?? [404, { error: { code: 'NOT_FOUND' } }];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  const target = resolveTarget({ baseUrl: server.url, clients: { primary: { clientId: 'c1', clientSecret: 's1' } }, ...config }, 'test.yaml', {});
  try {
    return await preflight(target, { origin: 'test.yaml' }).then((result) => ({ result, error: undefined }), (error: unknown) => ({ result: undefined, error: error as PreflightError }));
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

test('nothing at the document\'s paths: the base URL is wrong', async () => {
  const { error } = await against(() => undefined);
  expect(error).toBeInstanceOf(PreflightError);
  expect(error?.what).toBe('nothing serves the token endpoint at the document\'s path (primary client)');
  expect(error?.check).toContain('baseUrl in test.yaml');
});

test('the numbers list not where the config says: the check names itemsPath and what the answer holds', async () => {
  const { error } = await against((req, body) => token(req, () => true, body) ?? numbers(req, { data: [] }));
  expect(error?.what).toContain('the list is not where the config says (property "numbers")');
  expect(error?.check).toBe('routes.numbers.itemsPath in test.yaml (the answer has: data)');
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
      const [status, json] = route(req, body) ?? [404, {}];
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
    expect(error?.answer).toBe('the primary client lists: n1, n2');
    expect(error?.check).toContain(`numbers.${field} in test.yaml`);
  }
  const { error } = await against(perClient({ c1: 's1' }, { c1: ['n1', 'n2'] }), { numbers: { sms: 'n2', mms: 'n1' } });
  expect(error).toBeUndefined();
});

test('numbers.foreign must be another client\'s number: not the primary\'s own, and the secondary\'s when there is one', async () => {
  const lists = { c1: ['n1'], c2: ['f1'] };
  const own = await against(perClient({ c1: 's1', c2: 's2' }, lists), { ...twoClients, numbers: { foreign: 'n1' } });
  expect(own.error?.what).toBe("numbers.foreign (n1) is one of the primary client's own numbers");
  const elsewhere = await against(perClient({ c1: 's1', c2: 's2' }, lists), { ...twoClients, numbers: { foreign: 'x7' } });
  expect(elsewhere.error?.what).toBe("numbers.foreign (x7) is not one of the secondary client's numbers");
  expect(elsewhere.error?.answer).toBe('the secondary client lists: f1');
  // Without a secondary client, any number the primary client does not own will do.
  expect((await against(perClient({ c1: 's1' }, lists), { numbers: { foreign: 'x7' } })).error).toBeUndefined();
  expect((await against(perClient({ c1: 's1', c2: 's2' }, lists), { ...twoClients, numbers: { foreign: 'f1' } })).error).toBeUndefined();
});
