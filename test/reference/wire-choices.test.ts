import { randomUUID } from 'node:crypto';
import { PROFILE_WIRE_CHOICES, type WireChoices } from '../../reference/options.ts';
import { test, expect, sendBody, startReceiver } from './helpers.ts';

// The reference answering the document's open choices otherwise than its profile
// (reference/options.ts WIRE_CHOICES): each alternative is served as chosen, and the profile's
// own route is then gone.

const wire = (choices: Partial<WireChoices>): WireChoices => ({ ...PROFILE_WIRE_CHOICES, ...choices });

test.describe('routes and envelopes', () => {
  test.use({
    serverOptions: {
      wire: wire({
        'whoami.method': 'POST',
        'numbers.method': 'POST',
        'numbers.envelope': 'array',
        'search.route': 'POST /api/core/inventory/search',
        'update.route': 'PUT /api/core/numbers/{numberId}/settings',
        'update.answer': 'empty',
        'update.foreignNumber': '403',
      }),
    },
  });

  test('whoami, the numbers list, the search and the update answer at the chosen methods and paths only', async ({ server }) => {
    const headers = { authorization: `Bearer ${await server.sharedToken()}` };
    const whoami = await server.app.inject({ method: 'POST', url: '/api/core/whoami', headers });
    expect(whoami.statusCode).toBe(200);
    expect(whoami.json().apiClientId).toBe(server.client('primary').apiClientId);
    expect((await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers })).statusCode).toBe(404);

    const numbers = await server.app.inject({ method: 'POST', url: '/api/core/numbers', headers });
    expect(numbers.statusCode).toBe(200);
    expect(numbers.json()).toEqual(server.client('primary').numbers);

    const search = await server.app.inject({ method: 'POST', url: '/api/core/inventory/search', headers, payload: { npa: '202' } });
    expect(search.statusCode).toBe(200);
    expect(search.json()).toHaveProperty('groups');
    expect((await server.app.inject({ method: 'POST', url: '/api/core/numbers/search', headers, payload: { npa: '202' } })).statusCode).toBe(404);

    const [own] = server.client('primary').numbers;
    const update = await server.app.inject({ method: 'PUT', url: `/api/core/numbers/${own!.numberId}/settings`, headers, payload: { smsEnabled: true } });
    expect(update.statusCode).toBe(204);
    expect(update.body).toBe('');
  });

  test("an update of another client's number is 403 FORBIDDEN, of a number that does not exist 404 NOT_FOUND", async ({ server }) => {
    const headers = { authorization: `Bearer ${await server.sharedToken()}` };
    const [foreign] = server.client('secondary').numbers;
    const other = await server.app.inject({ method: 'PUT', url: `/api/core/numbers/${foreign!.numberId}/settings`, headers, payload: { smsEnabled: false } });
    expect(other.statusCode).toBe(403);
    expect(other.json().error.code).toBe('FORBIDDEN');
    const missing = await server.app.inject({ method: 'PUT', url: '/api/core/numbers/num_missing/settings', headers, payload: { smsEnabled: false } });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('NOT_FOUND');
  });
});

for (const envelope of ['data', 'items'] as const) {
  test.describe(`the numbers envelope ${envelope}`, () => {
    test.use({ serverOptions: { wire: wire({ 'numbers.envelope': envelope }) } });
    test(`lists the numbers under "${envelope}"`, async ({ server }) => {
      const response = await server.app.inject({ method: 'GET', url: '/api/core/numbers', headers: { authorization: `Bearer ${await server.sharedToken()}` } });
      expect(response.json()).toEqual({ [envelope]: server.client('primary').numbers });
    });
  });
}

test.describe('send', () => {
  test.use({ serverOptions: { wire: wire({ 'send.successStatus': '201', 'send.unsafeRetry': '422', 'send.inFlight': '409' }) } });

  test('a send is answered with the chosen status, replayed with it, and an unsafe retry is 422', async ({ server }) => {
    const [sms] = server.client('primary').numbers;
    const headers = { authorization: `Bearer ${await server.sharedToken()}`, 'idempotency-key': randomUUID() };
    const payload = { sendFrom: sms!.numberId, to: ['+12025550100'], messageType: 'SMS', text: 'hi', externalReference: 'wire-1' };
    const first = await server.app.inject({ method: 'POST', url: '/api/core/messages/send', headers, payload });
    expect(first.statusCode).toBe(201);
    const replay = await server.app.inject({ method: 'POST', url: '/api/core/messages/send', headers, payload });
    expect(replay.statusCode).toBe(201);
    expect(replay.body).toBe(first.body);
    const changed = await server.app.inject({ method: 'POST', url: '/api/core/messages/send', headers, payload: { ...payload, text: 'changed' } });
    expect(changed.statusCode).toBe(422);
    expect(changed.json().error.code).toBe('UNPROCESSABLE_CONTENT');
  });

  test('a request with the key of a send in flight is 409 CONFLICT at once; exactly one is accepted', async ({ server }) => {
    const [sms] = server.client('primary').numbers;
    const headers = { authorization: `Bearer ${await server.sharedToken()}`, 'idempotency-key': randomUUID() };
    const payload = { sendFrom: sms!.numberId, to: ['+12025550101'], messageType: 'SMS', text: 'hi', externalReference: 'wire-2' };
    const answers = await Promise.all(Array.from({ length: 5 }, () => server.app.inject({ method: 'POST', url: '/api/core/messages/send', headers, payload })));
    const statuses = answers.map((answer) => answer.statusCode).sort();
    expect(statuses[0]).toBe(201);
    expect(statuses.filter((status) => status === 409).length).toBeGreaterThan(0);
    expect(server.query<{ n: number }>('SELECT count(*) AS n FROM messages WHERE external_reference = ?', 'wire-2')[0]!.n).toBe(1);
  });
});

test.describe('token', () => {
  test.use({ serverOptions: { wire: wire({ 'token.invalidClient': '400' }) } });

  test('invalid_client is 400 for body credentials and still 401 with WWW-Authenticate after Basic', async ({ server }) => {
    const { clientId } = server.client('primary');
    const body = await server.app.inject({ method: 'POST', url: '/api/auth/token', payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: 'wrong' } });
    expect(body.statusCode).toBe(400);
    expect(body.json().error).toBe('invalid_client');
    expect(body.headers['www-authenticate']).toBeUndefined();
    const basic = await server.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:wrong`).toString('base64')}` },
      payload: { grant_type: 'client_credentials' },
    });
    expect(basic.statusCode).toBe(401);
    expect(basic.json().error).toBe('invalid_client');
    expect(basic.headers['www-authenticate']).toMatch(/^Basic /);
  });
});

test.describe('record and result shapes', () => {
  test.use({ serverOptions: { wire: wire({ 'whoami.shapes': 'objects', 'numbers.record': 'id-only', 'send.results': 'status-on-body' }) } });

  test('whoami, the numbers list and the send answer in the chosen shapes', async ({ server }) => {
    const authorization = `Bearer ${await server.sharedToken()}`;
    const whoami = (await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization } })).json();
    expect(whoami.capabilities).toEqual([{ name: 'SMS' }, { name: 'MMS' }, { name: 'NUMBER_SEARCH' }]);
    expect(whoami.assignedNumbers).toEqual({ count: 3 });
    const numbers = (await server.app.inject({ method: 'GET', url: '/api/core/numbers', headers: { authorization } })).json();
    expect(numbers).toEqual({ numbers: server.client('primary').numbers.map(({ numberId }) => ({ numberId })) });
    const [sms] = server.client('primary').numbers;
    const payload = { sendFrom: sms!.numberId, to: ['+12025550100'], messageType: 'SMS', text: 'hi', externalReference: 'wire-3' };
    const sent = await server.app.inject({ method: 'POST', url: '/api/core/messages/send', headers: { authorization, 'idempotency-key': randomUUID() }, payload });
    expect(sent.statusCode).toBe(202);
    expect(sent.json()).toEqual({ status: 'QUEUED', results: [{ messageId: expect.any(String), recipient: '+12025550100' }], errors: [] });
  });
});

test.describe('a record without the phone number and result items without the recipient', () => {
  test.use({ serverOptions: { wire: wire({ 'numbers.record': 'minimal', 'send.results': 'ids-only' }) } });

  test('the number record keeps its settable fields and the result items their status', async ({ server }) => {
    const authorization = `Bearer ${await server.sharedToken()}`;
    const numbers = (await server.app.inject({ method: 'GET', url: '/api/core/numbers', headers: { authorization } })).json().numbers;
    expect(numbers).toEqual(server.client('primary').numbers.map(({ phoneNumber: _left, ...rest }) => rest));
    const [sms] = server.client('primary').numbers;
    const payload = { sendFrom: sms!.numberId, to: ['+12025550100'], messageType: 'SMS', text: 'hi', externalReference: 'wire-4' };
    const sent = await server.app.inject({ method: 'POST', url: '/api/core/messages/send', headers: { authorization, 'idempotency-key': randomUUID() }, payload });
    expect(sent.json()).toEqual({ results: [{ messageId: expect.any(String), status: 'QUEUED' }], errors: [] });
  });
});

test.describe('stored refusals', () => {
  test.use({ serverOptions: { wire: wire({ 'send.rejections': 'stored' }) } });

  test('a refused send claims its key: the retry gets the refusal replayed, the corrected payload a conflict', async ({ server }) => {
    const [sms] = server.client('primary').numbers;
    const [foreign] = server.client('secondary').numbers;
    const headers = { authorization: `Bearer ${await server.sharedToken()}`, 'idempotency-key': randomUUID() };
    const refused = { sendFrom: foreign!.numberId, to: ['+12025550100'], messageType: 'SMS', text: 'hi', externalReference: 'wire-5' };
    const first = await server.app.inject({ method: 'POST', url: '/api/core/messages/send', headers, payload: refused });
    expect(first.statusCode).toBe(403);
    const retry = await server.app.inject({ method: 'POST', url: '/api/core/messages/send', headers, payload: refused });
    expect(retry.statusCode).toBe(403);
    expect(retry.body).toBe(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const corrected = await server.app.inject({ method: 'POST', url: '/api/core/messages/send', headers, payload: { ...refused, sendFrom: sms!.numberId } });
    expect(corrected.statusCode).toBe(409);
    expect(server.query<{ n: number }>('SELECT count(*) AS n FROM messages WHERE external_reference = ?', 'wire-5')[0]!.n).toBe(0);
  });
});

test.describe('webhook payload and signing', () => {
  test.use({ serverOptions: { wire: wire({ 'webhook.payload': 'flat', 'webhook.signing': 'none' }) } });

  test('a delivery event is flat and carries no signature headers', async ({ server }) => {
    const receiver = await startReceiver();
    try {
      const control = await server.control('PUT', `/_control/clients/${encodeURIComponent(server.client('primary').clientId)}/webhooks`, { delivery: `${receiver.url}/delivery` });
      expect(control.statusCode).toBe(200);
      const number = server.client('primary').numbers[0]!;
      const sent = await server.app.inject({
        method: 'POST',
        url: '/api/core/messages/send',
        headers: { authorization: `Bearer ${await server.sharedToken()}`, 'idempotency-key': randomUUID() },
        payload: sendBody(number.numberId, { to: ['+12025550123'] }),
      });
      const [request] = await receiver.waitFor(1);
      expect(JSON.parse(request!.body)).toEqual({
        event: 'message.delivery',
        occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        messageId: sent.json().results[0].messageId,
        status: 'DELIVERED',
        to: '+12025550123',
        sendFrom: number.numberId,
        externalReference: 'order-1',
      });
      expect(request!.headers['webhook-signature']).toBeUndefined();
      expect(request!.headers['webhook-id']).toBeUndefined();
    } finally {
      await receiver.close();
    }
  });
});
