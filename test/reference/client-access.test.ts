import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../reference/app.ts';
import type { FixtureClient, FixtureSet } from '../../reference/fixtures/schema.ts';
import { test, expect, sendBody } from './helpers.ts';

// What the client's status and capabilities and the number's smsEnabled and mmsEnabled gate
// (profile client.status, client.capabilities, send.numberCapability). An earlier reference gave
// a SUSPENDED client tokens, sends and searches, and sent an MMS from a number with MMS disabled.

const MEDIA = [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }];

function client(overrides: Partial<FixtureClient> = {}): FixtureClient {
  return {
    clientId: 'gated',
    clientSecret: 'gated-secret',
    numbers: [
      { numberId: 'num_both', phoneNumber: '+12025550171', campaignregId: 'C1', smsEnabled: true, mmsEnabled: true },
      { numberId: 'num_no_sms', phoneNumber: '+12025550172', campaignregId: 'C1', smsEnabled: false, mmsEnabled: true },
      { numberId: 'num_no_mms', phoneNumber: '+12025550173', campaignregId: 'C1', smsEnabled: true, mmsEnabled: false },
    ],
    ...overrides,
  };
}

let dir: string;
let apps: FastifyInstance[] = [];
test.beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reference-access-'));
});
test.afterEach(async () => {
  for (const app of apps) await app.close();
  apps = [];
  rmSync(dir, { recursive: true, force: true });
});

async function start(fixtures: FixtureSet): Promise<FastifyInstance> {
  const app = await buildApp({ dbPath: join(dir, 'reference.db'), fixtures });
  apps.push(app);
  return app;
}

const tokenRequest = (app: FastifyInstance, secret = 'gated-secret') =>
  app.inject({ method: 'POST', url: '/api/auth/token', payload: { grant_type: 'client_credentials', client_id: 'gated', client_secret: secret } });

async function tokenOf(app: FastifyInstance): Promise<string> {
  const response = await tokenRequest(app);
  expect(response.statusCode).toBe(200);
  return response.json().access_token;
}

const sendAs = (app: FastifyInstance, token: string, body: Record<string, unknown>, key = `k-${Math.random()}`) =>
  app.inject({ method: 'POST', url: '/api/core/messages/send', headers: { authorization: `Bearer ${token}`, 'idempotency-key': key }, payload: body });
const searchAs = (app: FastifyInstance, token: string) =>
  app.inject({ method: 'POST', url: '/api/core/numbers/search', headers: { authorization: `Bearer ${token}` }, payload: { npa: '202' } });

test.describe('client status', () => {
  test('a SUSPENDED client with the right secret gets 400 unauthorized_client, with a wrong one 401 invalid_client', async () => {
    const app = await start({ clients: [client({ status: 'SUSPENDED' })] });
    const right = await tokenRequest(app);
    expect(right.statusCode).toBe(400);
    expect(right.json()).toEqual({ error: 'unauthorized_client', error_description: expect.stringContaining('SUSPENDED') });
    expect(right.headers['cache-control']).toBe('no-store');
    const wrong = await tokenRequest(app, 'not-the-secret');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe('invalid_client');
  });

  test('a token issued before the client was suspended is 403 FORBIDDEN naming the status on every core route', async () => {
    const active = await start({ clients: [client()] });
    const token = await tokenOf(active);
    await active.close();
    apps = [];
    // The status follows the fixtures on a restart; the database keeps the token.
    const suspended = await start({ clients: [client({ status: 'SUSPENDED' })] });
    const answers = [
      await suspended.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `Bearer ${token}` } }),
      await suspended.inject({ method: 'GET', url: '/api/core/numbers', headers: { authorization: `Bearer ${token}` } }),
      await sendAs(suspended, token, sendBody('num_both')),
      await searchAs(suspended, token),
      await suspended.inject({ method: 'PATCH', url: '/api/core/numbers/num_both', headers: { authorization: `Bearer ${token}` }, payload: { smsEnabled: false } }),
    ];
    for (const answer of answers) {
      expect(answer.statusCode).toBe(403);
      expect(answer.json().error).toMatchObject({ code: 'FORBIDDEN', details: { apiClientStatus: 'SUSPENDED' } });
    }
  });
});

test.describe('client capabilities', () => {
  test('an MMS send without MMS, and a search without NUMBER_SEARCH, are 403 FORBIDDEN naming the capability; an SMS with SMS is accepted', async () => {
    const app = await start({ clients: [client({ capabilities: ['SMS'] })] });
    const token = await tokenOf(app);
    const mms = await sendAs(app, token, sendBody('num_both', { messageType: 'MMS', media: MEDIA }));
    expect(mms.statusCode).toBe(403);
    expect(mms.json().error).toMatchObject({ code: 'FORBIDDEN', details: { capability: 'MMS' } });
    const search = await searchAs(app, token);
    expect(search.statusCode).toBe(403);
    expect(search.json().error).toMatchObject({ code: 'FORBIDDEN', details: { capability: 'NUMBER_SEARCH' } });
    expect((await sendAs(app, token, sendBody('num_both'))).statusCode).toBe(202);
  });

  test('an SMS send without SMS is 403 FORBIDDEN', async () => {
    const app = await start({ clients: [client({ capabilities: ['MMS', 'NUMBER_SEARCH'] })] });
    const sms = await sendAs(app, await tokenOf(app), sendBody('num_both'));
    expect(sms.statusCode).toBe(403);
    expect(sms.json().error.details).toEqual({ capability: 'SMS' });
  });
});

test.describe('number capabilities (profile send.numberCapability)', () => {
  test('an SMS from a number with smsEnabled false and an MMS from one with mmsEnabled false are 400 INVALID_REQUEST and store nothing', async () => {
    const app = await start({ clients: [client()] });
    const token = await tokenOf(app);
    const sms = await sendAs(app, token, sendBody('num_no_sms'));
    expect(sms.statusCode).toBe(400);
    expect(sms.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'sendFrom', numberId: 'num_no_sms', setting: 'smsEnabled' } });
    const mms = await sendAs(app, token, sendBody('num_no_mms', { messageType: 'MMS', media: MEDIA }));
    expect(mms.statusCode).toBe(400);
    expect(mms.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'sendFrom', numberId: 'num_no_mms', setting: 'mmsEnabled' } });
    // The other type from each number goes through.
    expect((await sendAs(app, token, sendBody('num_no_sms', { messageType: 'MMS', media: MEDIA }))).statusCode).toBe(202);
    expect((await sendAs(app, token, sendBody('num_no_mms'))).statusCode).toBe(202);
  });

  test('the check follows the update route: disabling SMS refuses the next SMS, enabling it again accepts it', async () => {
    const app = await start({ clients: [client()] });
    const token = await tokenOf(app);
    const patch = (smsEnabled: boolean) =>
      app.inject({ method: 'PATCH', url: '/api/core/numbers/num_both', headers: { authorization: `Bearer ${token}` }, payload: { smsEnabled } });
    expect((await patch(false)).statusCode).toBe(200);
    expect((await sendAs(app, token, sendBody('num_both'))).statusCode).toBe(400);
    expect((await patch(true)).statusCode).toBe(200);
    expect((await sendAs(app, token, sendBody('num_both'))).statusCode).toBe(202);
  });
});
