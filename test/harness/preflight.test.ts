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
