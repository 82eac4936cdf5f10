import { withoutAssigned } from '../../reference/upstream/client.ts';
import { test, expect } from './helpers.ts';

// Sections 4.2 to 4.5 with the reference profile's choices (whoami.*, numbers.*, search.*, update.*).

test.describe('whoami', () => {
  test('returns all seven fields of the client context', async ({ server }) => {
    const token = await server.token('primary');
    const response = await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-request-id']).toMatch(/^req_/);
    expect(response.json()).toEqual({
      apiClientId: server.client('primary').apiClientId,
      apiClientName: 'Demo primary client',
      apiClientStatus: 'ACTIVE',
      capabilities: ['SMS', 'MMS', 'NUMBER_SEARCH'],
      assignedNumbers: { total: 3, smsEnabled: 3, mmsEnabled: 1 },
      inboundWebhookConfigured: false,
      deliveryWebhookConfigured: false,
    });
  });
});

test.describe('numbers list', () => {
  test("lists the caller's numbers only, every field present, numberIds never E.164", async ({ server }) => {
    for (const role of ['primary', 'secondary'] as const) {
      const token = await server.token(role);
      const response = await server.app.inject({ method: 'GET', url: '/api/core/numbers', headers: { authorization: `Bearer ${token}` } });
      expect(response.statusCode).toBe(200);
      const { numbers } = response.json();
      expect(numbers).toEqual(server.client(role).numbers);
      for (const number of numbers) {
        expect(Object.keys(number).sort()).toEqual(['campaignregId', 'mmsEnabled', 'numberId', 'phoneNumber', 'smsEnabled', 'webhookDeliveryOverride', 'webhookInboundOverride']);
        expect(number.numberId).not.toMatch(/^\+?\d+$/);
        expect(number.phoneNumber).toMatch(/^\+[1-9]\d{1,14}$/);
      }
    }
  });

  test('the demo primary client has numbers with and without campaignregId and MMS', async ({ server }) => {
    const [first, second, third] = server.client('primary').numbers;
    expect(first).toMatchObject({ smsEnabled: true, mmsEnabled: true, campaignregId: expect.any(String) });
    expect(second).toMatchObject({ smsEnabled: true, mmsEnabled: false, campaignregId: expect.any(String) });
    expect(third).toMatchObject({ campaignregId: null });
  });
});

test.describe('number search', () => {
  const search = async (server: import('./helpers.ts').TestServer, payload: unknown) =>
    server.app.inject({ method: 'POST', url: '/api/core/numbers/search', headers: { authorization: `Bearer ${await server.sharedToken()}` }, payload: payload as object });

  test('forwards to the upstream provider and groups by exchange', async ({ server }) => {
    const response = await search(server, { npa: '415' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.requestedQuantity).toBe(10);
    expect(body.providerResultCount).toBe(16);
    expect(body.groups.map((group: { nxx: string }) => group.nxx)).toEqual(['555', '556']);
    expect(body.groups[0]).toEqual({ npa: '415', nxx: '555', city: 'San Francisco', state: 'CA', rateCenter: 'SNFC CNTRL', count: 8, phoneNumbers: expect.any(Array) });
    expect(body.groups.reduce((sum: number, group: { count: number }) => sum + group.count, 0)).toBe(10);
  });

  test('a number the service has assigned is taken out of what the provider returned, and the count with it (SEARCH-004)', () => {
    const group = (nxx: string, phoneNumbers: string[]) => ({ npa: '202', nxx, city: 'Washington', state: 'DC', rateCenter: 'WSHNGTNZN1', count: phoneNumbers.length, phoneNumbers });
    const found = { groups: [group('555', ['+12025550160', '+12025550161']), group('556', ['+12025560160'])], providerResultCount: 3, requestedQuantity: 10 };
    const assigned = new Set(['+12025550161', '+12025560160']);
    expect(withoutAssigned(found, (n) => assigned.has(n))).toEqual({ groups: [group('555', ['+12025550160'])], providerResultCount: 1, requestedQuantity: 10 });
  });

  test('every field is optional; a search that matches nothing has no groups', async ({ server }) => {
    expect((await search(server, {})).json().providerResultCount).toBe(40);
    const none = await search(server, { npa: '999' });
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ groups: [], providerResultCount: 0, requestedQuantity: 10 });
    const byCity = await search(server, { city: 'chicago', state: 'il', zipCode: '60601', rateCenter: 'CHCGOZN01', nxx: '555' });
    expect(byCity.json().providerResultCount).toBe(8);
  });

  const invalid: Array<[string, unknown]> = [
    ['a two-digit npa', { npa: '41' }],
    ['a numeric npa', { npa: 415 }],
    ['a four-digit nxx', { nxx: '5555' }],
    ['a three-letter state', { state: 'CAL' }],
    ['a short zipCode', { zipCode: '9410' }],
    ['an unknown field', { areaCode: '415' }],
    ['an array body', [{ npa: '415' }]],
    ['a null body', null],
  ];
  for (const [name, payload] of invalid) {
    test(`rejects ${name} with 400 INVALID_REQUEST`, async ({ server }) => {
      const response = await server.app.inject({
        method: 'POST',
        url: '/api/core/numbers/search',
        headers: { authorization: `Bearer ${await server.token()}`, 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('INVALID_REQUEST');
    });
  }

  test('an upstream failure is 502 UPSTREAM_ERROR with details.providerStatus, whatever non-2xx status the upstream answers', async ({ server }) => {
    for (const status of [503, 404, 300]) {
      await server.control('POST', '/_control/upstream', { mode: 'fail', status });
      const response = await search(server, { npa: '202' });
      expect(response.statusCode, `upstream ${status}`).toBe(502);
      expect(response.json().error).toEqual({ code: 'UPSTREAM_ERROR', message: expect.any(String), details: { providerStatus: status } });
    }
    await server.control('POST', '/_control/upstream', { mode: 'ok' });
    expect((await search(server, { npa: '202' })).statusCode).toBe(200);
  });

  test.describe('a stalled upstream', () => {
    test.use({ serverOptions: { upstreamTimeoutMs: 300 } });

    test('is answered 502 within the configured bound', async ({ server }) => {
      await server.control('POST', '/_control/upstream', { mode: 'stall' });
      const started = Date.now();
      const response = await search(server, { npa: '202' });
      const elapsed = Date.now() - started;
      expect(response.statusCode).toBe(502);
      expect(response.json().error.details).toEqual({ providerStatus: 'TIMEOUT' });
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(2000);
    });
  });

  test.describe('an unreachable upstream', () => {
    test.use({ serverOptions: { upstreamUrl: 'http://127.0.0.1:9', upstreamTimeoutMs: 500 } });

    test('is 502 with providerStatus UNREACHABLE', async ({ server }) => {
      const response = await search(server, {});
      expect(response.statusCode).toBe(502);
      expect(response.json().error.details).toEqual({ providerStatus: 'UNREACHABLE' });
    });
  });
});

test.describe('number update', () => {
  test('applies and persists every settable field, answering the updated number', async ({ server }) => {
    const token = await server.token('primary');
    const number = server.client('primary').numbers[2]!;
    const changes = {
      campaignregId: 'CNEW01',
      smsEnabled: false,
      mmsEnabled: true,
      webhookInboundOverride: 'https://hooks.example.com/in',
      webhookDeliveryOverride: 'http://127.0.0.1:1/delivery',
    };
    const response = await server.app.inject({ method: 'PATCH', url: `/api/core/numbers/${number.numberId}`, headers: { authorization: `Bearer ${token}` }, payload: changes });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ...number, ...changes });
    const list = await server.app.inject({ method: 'GET', url: '/api/core/numbers', headers: { authorization: `Bearer ${token}` } });
    expect(list.json().numbers[2]).toEqual({ ...number, ...changes });
    const stored = server.query<{ campaignreg_id: string }>('SELECT campaignreg_id FROM numbers WHERE number_id = ?', number.numberId);
    expect(stored[0]!.campaignreg_id).toBe('CNEW01');
  });

  test('a partial update leaves other fields alone; null clears a nullable field', async ({ server }) => {
    const token = await server.token('primary');
    const number = server.client('primary').numbers[0]!;
    const response = await server.app.inject({ method: 'PATCH', url: `/api/core/numbers/${number.numberId}`, headers: { authorization: `Bearer ${token}` }, payload: { campaignregId: null } });
    expect(response.json()).toEqual({ ...number, campaignregId: null });
  });

  test('successive updates of different fields each keep what the earlier ones stored', async ({ server }) => {
    // The writer thread reads the number it updates: a copy it kept from its first read would
    // put back, at every later update, whatever the earlier ones had changed.
    const token = await server.token('primary');
    const number = server.client('primary').numbers[0]!;
    const patch = (payload: Record<string, unknown>) =>
      server.app.inject({ method: 'PATCH', url: `/api/core/numbers/${number.numberId}`, headers: { authorization: `Bearer ${token}` }, payload });
    expect((await patch({ webhookDeliveryOverride: 'http://127.0.0.1:1/delivery' })).statusCode).toBe(200);
    expect((await patch({ smsEnabled: false })).json()).toEqual({ ...number, smsEnabled: false, webhookDeliveryOverride: 'http://127.0.0.1:1/delivery' });
    expect((await patch({ webhookInboundOverride: null })).json()).toEqual({ ...number, smsEnabled: false, webhookDeliveryOverride: 'http://127.0.0.1:1/delivery' });
    const list = await server.app.inject({ method: 'GET', url: '/api/core/numbers', headers: { authorization: `Bearer ${token}` } });
    expect(list.json().numbers[0]).toEqual({ ...number, smsEnabled: false, webhookDeliveryOverride: 'http://127.0.0.1:1/delivery' });
  });

  test("another client's number is 404 NOT_FOUND, exactly like a missing one", async ({ server }) => {
    const token = await server.token('primary');
    const foreign = server.client('secondary').numbers[0]!.numberId;
    const a = await server.app.inject({ method: 'PATCH', url: `/api/core/numbers/${foreign}`, headers: { authorization: `Bearer ${token}` }, payload: { smsEnabled: false } });
    const b = await server.app.inject({ method: 'PATCH', url: '/api/core/numbers/num_missing', headers: { authorization: `Bearer ${token}` }, payload: { smsEnabled: false } });
    expect(a.statusCode).toBe(404);
    expect(b.statusCode).toBe(404);
    expect(a.json().error).toEqual(b.json().error);
    expect(server.query<{ sms_enabled: number }>('SELECT sms_enabled FROM numbers WHERE number_id = ?', foreign)[0]!.sms_enabled).toBe(1);
  });

  const invalid: Array<[string, unknown]> = [
    ['a string boolean', { smsEnabled: 'true' }],
    ['a numeric campaignregId', { campaignregId: 12 }],
    ['an unknown field', { phoneNumber: '+12025550100' }],
    ['a webhook override that is not a URL', { webhookDeliveryOverride: 'not a url' }],
    ['a webhook override with another scheme', { webhookInboundOverride: 'ftp://example.com/x' }],
    ['an array body', []],
  ];
  for (const [name, payload] of invalid) {
    test(`rejects ${name} with 400 INVALID_REQUEST and changes nothing`, async ({ server }) => {
      const number = server.client('primary').numbers[0]!;
      const response = await server.app.inject({
        method: 'PATCH',
        url: `/api/core/numbers/${number.numberId}`,
        headers: { authorization: `Bearer ${await server.token()}`, 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('INVALID_REQUEST');
    });
  }
});
