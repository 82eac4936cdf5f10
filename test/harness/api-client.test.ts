import { expect, test } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient, SchemaViolationError, TargetGone, answerOf } from '../../harness/api-client.ts';
import { resolveTarget } from '../../harness/config.ts';
import { EvidenceLog, REDACTED } from '../../harness/evidence.ts';
import { ResponseValidator } from '../../harness/response-validator.ts';
import { SendGuard, SendGuardError } from '../../harness/send-guard.ts';
import { TokenManager } from '../../harness/token-manager.ts';
import { NoAnswerError, undiciTransport, USER_AGENT } from '../../harness/transport.ts';

// A fake target whose answers each test scripts: the validating client must catch every
// answer that breaks the OpenAPI document, whichever test made the request.
let server: Server;
let next: { status: number; body: string | Buffer; type?: string } = { status: 200, body: '{}' };
const seen: Array<{ url: string; headers: Record<string, unknown>; body: string }> = [];
test.beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c)).on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      res.writeHead(next.status, { 'content-type': next.type ?? 'application/json' }).end(next.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
test.afterAll(() => new Promise<void>((r) => server.close(() => r())));

const validator = new ResponseValidator();
async function clientFor() {
  const target = resolveTarget(
    { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, clients: { primary: { clientId: 'p', clientSecret: 'very-secret' } } },
    'test',
    {},
  );
  const evidence = new EvidenceLog();
  const tokens = { primary: new TokenManager({ obtain: async () => ({ accessToken: 'tok-123', expiresAt: Date.now() + 60_000 }) }) };
  return { api: new ApiClient({ target, transport: undiciTransport(2), validator, evidence, guard: new SendGuard(target.recipients.allowPattern, 5), tokens }), evidence };
}
const coreError = (code: string, extra: object = {}) => JSON.stringify({ error: { code, message: 'm', details: {}, ...extra }, requestId: 'r1' });

{
  test.describe('the validating client', () => {
    test('a conforming answer passes and is recorded as evidence, tokens redacted', async () => {
      const { api, evidence } = await clientFor();
      next = { status: 202, body: JSON.stringify({ results: [{ messageId: 'm1', status: 'QUEUED' }], errors: [] }) };
      const res = await api.call('send', { headers: { 'Idempotency-Key': 'k' }, json: { sendFrom: 'n', to: ['+12025550100'], messageType: 'SMS', externalReference: 'x' } });
      expect(res.status).toBe(202);
      expect(seen.at(-1)!.headers.authorization).toBe('Bearer tok-123');
      expect(evidence.exchanges).toHaveLength(1);
      expect(evidence.exchanges[0]!.request.headers.authorization).toBe(`Bearer ${REDACTED}`);
      expect(evidence.exchanges[0]!.response!.status).toBe(202);
    });

    test('a send answer without errors[] is a violation of SEND-009', async () => {
      const { api } = await clientFor();
      next = { status: 202, body: JSON.stringify({ results: [] }) };
      const call = api.call('send', { headers: { 'Idempotency-Key': 'k' }, json: { to: ['+12025550100'] } });
      await expect(call).rejects.toThrow(SchemaViolationError);
      await expect(api.call('send', { json: { to: [] } })).rejects.toThrow(/SEND-009.*\n[\s\S]*must have required property 'errors'/);
    });

    test('a 401 whose code is not UNAUTHORIZED breaks the status/code table (ERR-002)', async () => {
      const { api } = await clientFor();
      next = { status: 401, body: coreError('INVALID_REQUEST') };
      await expect(api.call('whoami', { as: 'none' })).rejects.toThrow(/^ERR-002/);
    });

    test('a flat error body breaks the CORE wrapper (ERR-001)', async () => {
      const { api } = await clientFor();
      next = { status: 400, body: JSON.stringify({ error: 'bad', message: 'no' }) };
      await expect(api.call('numbers', { as: 'none' })).rejects.toThrow(/ERR-001/);
    });

    test('a 502 without details.providerStatus breaks SEARCH-002', async () => {
      const { api } = await clientFor();
      next = { status: 502, body: coreError('UPSTREAM_ERROR') };
      await expect(api.call('search', { json: {} })).rejects.toThrow(/SEARCH-002/);
    });

    test('a status the operation does not allow is caught', async () => {
      const { api } = await clientFor();
      next = { status: 302, body: '{}' };
      await expect(api.call('token', { form: { grant_type: 'client_credentials' } })).rejects.toThrow(/status 302 is not one operation token allows/);
    });

    test('an OAuth error body sent with status 200 is a token error that is not 4xx (TOKEN-010), not a token response missing fields', async () => {
      const { api } = await clientFor();
      next = { status: 200, body: JSON.stringify({ error: 'invalid_client', error_description: 'no' }) };
      await expect(api.call('token', { form: { grant_type: 'client_credentials' } })).rejects.toThrow(/^TOKEN-010:/);
      next = { status: 200, body: JSON.stringify({ token_type: 'bearer' }) };
      await expect(api.call('token', { form: { grant_type: 'client_credentials' } })).rejects.toThrow(/^TOKEN-002:/);
    });

    test('a 404 or 405 at the token path means the endpoint is not served there (VER-001)', async () => {
      const { api } = await clientFor();
      for (const status of [404, 405]) {
        next = { status, body: coreError('NOT_FOUND') };
        await expect(api.call('token', { form: { grant_type: 'client_credentials' } })).rejects.toThrow(/^VER-001:/);
      }
    });

    test('a number without a numberId string breaks NUM-001; its other fields, NUM-005', async () => {
      const { api } = await clientFor();
      const number = { numberId: 'num_1', phoneNumber: '+12025550100', campaignregId: null, smsEnabled: true, mmsEnabled: false, webhookInboundOverride: null, webhookDeliveryOverride: null };
      const { numberId: _, ...withoutId } = number;
      next = { status: 200, body: JSON.stringify({ numbers: [withoutId] }) };
      await expect(api.call('numbers')).rejects.toThrow(/^NUM-001:[\s\S]*item 0: numberId is missing/);
      next = { status: 200, body: JSON.stringify({ numbers: [{ ...number, smsEnabled: 'yes' }] }) };
      await expect(api.call('numbers')).rejects.toThrow(/^NUM-005:/);
    });

    test('answerOf hands back the answer of a call that broke the document, with the violation to raise', async () => {
      const { api } = await clientFor();
      next = { status: 200, body: JSON.stringify({ token_type: 'bearer' }) };
      const { res, violation } = await answerOf(api.call('token', { form: { grant_type: 'client_credentials' } }));
      expect(res.status).toBe(200);
      expect(new Set(violation?.violations.map((v) => v.requirement))).toEqual(new Set(['TOKEN-002']));
      next = { status: 200, body: JSON.stringify({ access_token: 'a', token_type: 'bearer', expires_in: 60 }) };
      expect((await answerOf(api.call('token', { form: { grant_type: 'client_credentials' } }))).violation).toBeNull();
    });

    test('an HTML answer is caught as not JSON (ERR-004)', async () => {
      const { api } = await clientFor();
      next = { status: 500, body: '<h1>oops</h1>', type: 'text/html' };
      await expect(api.call('whoami')).rejects.toThrow(/^ERR-004[\s\S]*Content-Type is 'text\/html'/);
    });

    test('a JSON answer whose bytes are not UTF-8 is caught as not JSON (ERR-004), while the same answer in UTF-8 passes', async () => {
      const { api } = await clientFor();
      const context = { apiClientId: 'c1', apiClientName: 'Équipe secondaire', assignedNumbers: { total: 0 }, deliveryWebhookConfigured: false, inboundWebhookConfigured: false };
      next = { status: 200, body: Buffer.from(JSON.stringify(context), 'latin1') };
      await expect(api.call('whoami')).rejects.toThrow(/^ERR-004[\s\S]*not UTF-8/);
      next = { status: 200, body: Buffer.from(JSON.stringify(context), 'utf8') };
      expect((await answerOf(api.call('whoami'))).violation?.violations.filter((v) => v.requirement === 'ERR-004') ?? []).toEqual([]);
    });

    test('a token answer with a client secret in the request is redacted in evidence and replay', async () => {
      const { api, evidence } = await clientFor();
      next = { status: 200, body: JSON.stringify({ access_token: 'sekrit-token', token_type: 'bearer', expires_in: 60 }) };
      await api.call('token', { form: { grant_type: 'client_credentials', client_id: 'p', client_secret: 'very-secret' } });
      const shown = JSON.stringify(evidence.exchanges);
      expect(shown).not.toContain('very-secret');
      expect(shown).not.toContain('sekrit-token');
      expect(shown).toContain(REDACTED);
    });
  });
}

test('the send guard refuses a real-looking recipient outside the allowed pattern before sending', async () => {
  const { api } = await clientFor();
  const before = seen.length;
  await expect(api.call('send', { json: { to: ['+447911123456'] } })).rejects.toThrow(SendGuardError);
  expect(seen.length).toBe(before);
});

test('the send guard lets malformed recipients through (they exist to be rejected) and stops at the cap', () => {
  const guard = new SendGuard('^\\+1202555010\\d$', 2);
  guard.admit({ to: ['+44 7911 123456', '12025550100', ''] });
  guard.admit({ to: ['+12025550101'] });
  expect(() => guard.admit({ to: ['+12025550101'] })).toThrow(/send cap reached/);
});

test('evidence keeps a deeply nested body without overflowing the stack', async () => {
  const { api, evidence } = await clientFor();
  next = { status: 400, body: coreError('INVALID_REQUEST') };
  const deep = '['.repeat(5000) + ']'.repeat(5000);
  const res = await api.call('search', { body: deep, headers: { 'content-type': 'application/json' } });
  expect(res.status).toBe(400);
  expect(JSON.stringify(evidence.exchanges[0]!.request.body)).toContain('nested deeper than 32 levels');
});

test('a malformed JSON body reaches the server byte for byte, with the harness named as User-Agent', async () => {
  const { api } = await clientFor();
  next = { status: 400, body: coreError('INVALID_REQUEST') };
  await api.call('search', { body: '{"npa":', headers: { 'content-type': 'application/json' } });
  expect(seen.at(-1)!.body).toBe('{"npa":');
  expect(seen.at(-1)!.headers['user-agent']).toBe(USER_AGENT);
});

test('an answer that never completes ends at the request timeout as no answer, not as a status', async () => {
  const silent = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).write('{'));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const transport = undiciTransport(1);
  try {
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
    await expect(transport({ method: 'GET', url, headers: {} }, 300)).rejects.toThrow(NoAnswerError);
  } finally {
    await transport.close().catch(() => {});
    silent.closeAllConnections();
    await new Promise<void>((r) => silent.close(() => r()));
  }
});

test('a target that stops listening during the run stops it as the run\'s problem (TargetGone), never as a failure of a requirement', async () => {
  // A port nothing listens on any more: a server that was there and went away.
  const gone = createServer();
  await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
  const port = (gone.address() as AddressInfo).port;
  await new Promise<void>((r) => gone.close(() => r()));
  const target = resolveTarget({ baseUrl: `http://127.0.0.1:${port}`, clients: { primary: { clientId: 'p', clientSecret: 'very-secret' } } }, 'test', {});
  const tokens = { primary: new TokenManager({ obtain: async () => ({ accessToken: 'tok-123', expiresAt: Date.now() + 60_000 }) }) };
  const api = new ApiClient({ target, transport: undiciTransport(1), validator, evidence: new EvidenceLog(), guard: new SendGuard(target.recipients.allowPattern, 5), tokens });
  const refused = await api.call('whoami', {}).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(TargetGone);
  expect((refused as TargetGone).judgement).toMatchObject({ kind: 'harness', stopsRun: true });
  expect((refused as Error).message).toMatch(/stopped accepting connections during the run: GET http:\/\/127\.0\.0\.1:\d+\/api\/core\/whoami was refused/);
});
