import { test, expect, startTestServer } from './helpers.ts';

// The test-control plane (ARCHITECTURE.md): off unless enabled, and never open: guarded by the
// operator's token, or by one the server makes. An earlier reference left it open without
// --control-token: any caller could point a tenant's webhooks at itself, inject inbound
// messages, expire tokens, stall search for everyone or wipe the database.

test.describe('control plane', () => {
  test.describe('when not enabled', () => {
    test.use({ serverOptions: { control: false } });

    test('does not exist', async ({ server }) => {
      const response = await server.control('POST', '/_control/reset');
      expect(response.statusCode).toBe(404);
    });
  });

  test.describe('without a control token of the operator\'s', () => {
    test('refuses an anonymous request, which changes nothing, and takes the token the server made', async ({ server }) => {
      const token = await server.token();
      const search = () => server.app.inject({ method: 'POST', url: '/api/core/numbers/search', headers: { authorization: `Bearer ${token}` }, payload: {} });
      for (const [method, url, payload] of [
        ['POST', '/_control/upstream', { mode: 'fail', status: 503 }],
        ['POST', '/_control/tokens/expire', { clientId: server.client('primary').clientId }],
        ['PUT', `/_control/clients/${server.client('primary').clientId}/webhooks`, { delivery: 'https://hooks.example.com/stolen' }],
        ['POST', '/_control/reset', undefined],
      ] as const) {
        const denied = await server.app.inject({ method, url, ...(payload && { payload }) });
        expect(denied.statusCode, `${method} ${url}`).toBe(401);
        expect(denied.headers['www-authenticate']).toBe('Bearer realm="control"');
      }
      expect((await search()).statusCode).toBe(200);
      const whoami = await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `Bearer ${token}` } });
      expect(whoami.json()).toMatchObject({ deliveryWebhookConfigured: false });

      expect(server.app.reference.controlToken).toMatch(/^[\w-]{43}$/);
      expect(server.target.controlToken).toBe(server.app.reference.controlToken);
      expect((await server.control('POST', '/_control/upstream', { mode: 'fail', status: 503 })).statusCode).toBe(200);
      expect((await search()).statusCode).toBe(502);
    });
  });

  test.describe('with the operator\'s control token', () => {
    test.use({ serverOptions: { controlToken: 'letmein' } });

    test('refuses requests without the token', async ({ server }) => {
      const denied = await server.app.inject({ method: 'POST', url: '/_control/upstream', payload: { mode: 'ok' } });
      expect(denied.statusCode).toBe(401);
      expect(denied.headers['www-authenticate']).toBe('Bearer realm="control"');
      const wrong = await server.app.inject({ method: 'POST', url: '/_control/upstream', headers: { authorization: 'Bearer nope' }, payload: { mode: 'ok' } });
      expect(wrong.statusCode).toBe(401);
      const allowed = await server.app.inject({ method: 'POST', url: '/_control/upstream', headers: { authorization: 'Bearer letmein' }, payload: { mode: 'ok' } });
      expect(allowed.statusCode).toBe(200);
    });
  });

  test('validates its requests and names unknown clients and numbers', async ({ server }) => {
    expect((await server.control('POST', '/_control/upstream', { mode: 'explode' })).statusCode).toBe(400);
    expect((await server.control('POST', '/_control/tokens/expire', { clientId: 'nobody' })).statusCode).toBe(404);
    expect((await server.control('POST', '/_control/inbound', { numberId: 'num_none', from: '+12025550100', text: 'x' })).statusCode).toBe(404);
    expect((await server.control('POST', '/_control/inbound', { numberId: 'num_none', from: '555', text: 'x' })).statusCode).toBe(400);
    expect((await server.control('PUT', '/_control/clients/nobody/webhooks', {})).statusCode).toBe(404);
  });

  test('client webhooks set by the control plane show in whoami', async ({ server }) => {
    const id = encodeURIComponent(server.client('special').clientId);
    const put = await server.control('PUT', `/_control/clients/${id}/webhooks`, { delivery: 'https://hooks.example.com/d' });
    expect(put.json()).toEqual({ clientId: server.client('special').clientId, delivery: 'https://hooks.example.com/d', inbound: null });
    const whoami = await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `Bearer ${await server.token('special')}` } });
    expect(whoami.json()).toMatchObject({ deliveryWebhookConfigured: true, inboundWebhookConfigured: false });
  });

  test('reset restores the seeded state and keeps numberIds', async ({ server }) => {
    const token = await server.token();
    const number = server.client('primary').numbers[0]!;
    await server.app.inject({ method: 'PATCH', url: `/api/core/numbers/${number.numberId}`, headers: { authorization: `Bearer ${token}` }, payload: { campaignregId: 'CHANGED' } });
    await server.app.inject({ method: 'POST', url: '/api/core/messages/send', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'r' }, payload: { sendFrom: number.numberId, to: ['+12025550123'], messageType: 'SMS', externalReference: 'x' } });
    await server.control('POST', '/_control/upstream', { mode: 'fail' });
    const reset = await server.control('POST', '/_control/reset');
    expect(reset.json()).toEqual({ reset: true });
    expect(server.query('SELECT * FROM messages')).toEqual([]);
    expect(server.query('SELECT * FROM tokens')).toEqual([]);
    const fresh = await server.token();
    const list = await server.app.inject({ method: 'GET', url: '/api/core/numbers', headers: { authorization: `Bearer ${fresh}` } });
    expect(list.json().numbers[0]).toEqual(number);
    const search = await server.app.inject({ method: 'POST', url: '/api/core/numbers/search', headers: { authorization: `Bearer ${fresh}` }, payload: {} });
    expect(search.statusCode).toBe(200);
  });
});

test('a restart keeps settings, numberIds and idempotency records', async () => {
  const first = await startTestServer();
  const number = first.client('primary').numbers[0]!;
  const token = await first.token();
  await first.app.inject({ method: 'PATCH', url: `/api/core/numbers/${number.numberId}`, headers: { authorization: `Bearer ${token}` }, payload: { mmsEnabled: false } });
  const body = { sendFrom: number.numberId, to: ['+12025550123'], messageType: 'SMS', externalReference: 'restart' };
  const sent = await first.app.inject({ method: 'POST', url: '/api/core/messages/send', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'persist' }, payload: body });
  await first.app.close();

  const second = await startTestServer({}, first.dir);
  try {
    expect(second.client('primary').numbers[0]).toEqual({ ...number, mmsEnabled: false });
    const replay = await second.app.inject({ method: 'POST', url: '/api/core/messages/send', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'persist' }, payload: body });
    expect(replay.statusCode).toBe(202);
    expect(replay.body).toBe(sent.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  } finally {
    await second.app.close();
  }
});
