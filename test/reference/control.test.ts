import { test, expect, startTestServer } from './helpers.ts';

// The test-control plane (ARCHITECTURE.md): off unless enabled, guarded by a token when given.

test.describe('control plane', () => {
  test.describe('when not enabled', () => {
    test.use({ serverOptions: { control: false } });

    test('does not exist', async ({ server }) => {
      const response = await server.app.inject({ method: 'POST', url: '/_control/reset' });
      expect(response.statusCode).toBe(404);
    });
  });

  test.describe('with a control token', () => {
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
    expect((await server.app.inject({ method: 'POST', url: '/_control/upstream', payload: { mode: 'explode' } })).statusCode).toBe(400);
    expect((await server.app.inject({ method: 'POST', url: '/_control/tokens/expire', payload: { clientId: 'nobody' } })).statusCode).toBe(404);
    expect((await server.app.inject({ method: 'POST', url: '/_control/inbound', payload: { numberId: 'num_none', from: '+12025550100', text: 'x' } })).statusCode).toBe(404);
    expect((await server.app.inject({ method: 'POST', url: '/_control/inbound', payload: { numberId: 'num_none', from: '555', text: 'x' } })).statusCode).toBe(400);
    expect((await server.app.inject({ method: 'PUT', url: '/_control/clients/nobody/webhooks', payload: {} })).statusCode).toBe(404);
  });

  test('client webhooks set by the control plane show in whoami', async ({ server }) => {
    const id = encodeURIComponent(server.client('special').clientId);
    const put = await server.app.inject({ method: 'PUT', url: `/_control/clients/${id}/webhooks`, payload: { delivery: 'https://hooks.example.com/d' } });
    expect(put.json()).toEqual({ clientId: server.client('special').clientId, delivery: 'https://hooks.example.com/d', inbound: null });
    const whoami = await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `Bearer ${await server.token('special')}` } });
    expect(whoami.json()).toMatchObject({ deliveryWebhookConfigured: true, inboundWebhookConfigured: false });
  });

  test('reset restores the seeded state and keeps numberIds', async ({ server }) => {
    const token = await server.token();
    const number = server.client('primary').numbers[0]!;
    await server.app.inject({ method: 'PATCH', url: `/api/core/numbers/${number.numberId}`, headers: { authorization: `Bearer ${token}` }, payload: { campaignregId: 'CHANGED' } });
    await server.app.inject({ method: 'POST', url: '/api/core/messages/send', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'r' }, payload: { sendFrom: number.numberId, to: ['+12025550123'], messageType: 'SMS', externalReference: 'x' } });
    await server.app.inject({ method: 'POST', url: '/_control/upstream', payload: { mode: 'fail' } });
    const reset = await server.app.inject({ method: 'POST', url: '/_control/reset' });
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
