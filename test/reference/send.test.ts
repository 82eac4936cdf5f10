import { test, expect, sendBody, type TestServer } from './helpers.ts';

// POST /api/core/messages/send: section 4.6 rules 1-8 and profile send.*.

async function send(server: TestServer, body: unknown, key: string | null = 'key-1', role: 'primary' | 'secondary' = 'primary', token?: string) {
  return server.app.inject({
    method: 'POST',
    url: '/api/core/messages/send',
    headers: {
      authorization: `Bearer ${token ?? (await server.sharedToken(role))}`,
      'content-type': 'application/json',
      ...(key === null ? {} : { 'idempotency-key': key }),
    },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const messageCount = (server: TestServer) => server.query<{ n: number }>("SELECT count(*) AS n FROM messages WHERE direction = 'outbound'")[0]!.n;

test.describe('send', () => {
  test('accepts an SMS with 202, one QUEUED result per recipient and an empty errors array (rule 7)', async ({ server }) => {
    const from = server.client('primary').numbers[0]!.numberId;
    const response = await send(server, sendBody(from, { to: ['+12025550123', '+442079460000'] }));
    expect(response.statusCode).toBe(202);
    const body = response.json();
    expect(body.errors).toEqual([]);
    expect(body.results).toEqual([
      { to: '+12025550123', messageId: expect.stringMatching(/^msg_/), status: 'QUEUED' },
      { to: '+442079460000', messageId: expect.stringMatching(/^msg_/), status: 'QUEUED' },
    ]);
    expect(messageCount(server)).toBe(2);
  });

  test('accepts an MMS with media from an MMS number', async ({ server }) => {
    const from = server.client('primary').numbers[0]!.numberId;
    const response = await send(server, sendBody(from, { messageType: 'MMS', media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }] }));
    expect(response.statusCode).toBe(202);
  });

  test('a repeated recipient is accepted once and reported as DUPLICATE_RECIPIENT', async ({ server }) => {
    const from = server.client('primary').numbers[0]!.numberId;
    const response = await send(server, sendBody(from, { to: ['+12025550123', '+12025550123'] }));
    expect(response.statusCode).toBe(202);
    expect(response.json().results).toHaveLength(1);
    expect(response.json().errors).toEqual([{ to: '+12025550123', code: 'DUPLICATE_RECIPIENT', message: expect.any(String) }]);
    expect(messageCount(server)).toBe(1);
  });

  test('rule 1: a missing Idempotency-Key is 400, even when the body is also broken', async ({ server }) => {
    const response = await send(server, '{broken', null);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: { header: 'Idempotency-Key' } });
    expect((await send(server, sendBody('num_x'), '   ')).json().error.details).toEqual({ header: 'Idempotency-Key' });
  });

  test('401 comes before a missing Idempotency-Key', async ({ server }) => {
    const response = await send(server, sendBody('num_x'), null, 'primary', 'bad-token');
    expect(response.statusCode).toBe(401);
  });

  test('rules 2 and 3: media with SMS, or MMS without media, is 400', async ({ server }) => {
    const from = server.client('primary').numbers[0]!.numberId;
    const withMedia = await send(server, sendBody(from, { media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }] }));
    expect(withMedia.statusCode).toBe(400);
    expect(withMedia.json().error.details).toEqual({ field: 'media' });
    const withoutMedia = await send(server, sendBody(from, { messageType: 'MMS' }), 'key-2');
    expect(withoutMedia.statusCode).toBe(400);
    expect(withoutMedia.json().error.details).toEqual({ field: 'media' });
  });

  test("rule 4: another client's number, or a numberId that does not exist, is 403 FORBIDDEN", async ({ server }) => {
    const foreign = server.client('secondary').numbers[0]!.numberId;
    for (const sendFrom of [foreign, 'num_does_not_exist']) {
      const response = await send(server, sendBody(sendFrom, { to: ['not a phone number'] }), `key-${sendFrom}`);
      expect(response.statusCode).toBe(403);
      expect(response.json().error.code).toBe('FORBIDDEN');
    }
    expect(messageCount(server)).toBe(0);
  });

  test('rule 5: a sendFrom without campaignregId is 400, checked before the recipients', async ({ server }) => {
    const unregistered = server.client('primary').numbers[2]!.numberId;
    const response = await send(server, sendBody(unregistered, { to: ['12345'] }));
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual({ field: 'sendFrom', numberId: unregistered });
  });

  test('rule 6: an E.164 number as sendFrom is 400, checked before ownership', async ({ server }) => {
    const response = await send(server, sendBody(server.client('primary').numbers[0]!.phoneNumber));
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual({ field: 'sendFrom' });
  });

  const badRecipients = ['+1 202 555 0123', '0012025550123', '12025550123', ' +12025550123', '+12025550123\n', '+01234567', '+1234567890123456', '++12025550123', '+1202555012３', '+12025550123 ext. 12', '', '+1'];
  for (const recipient of badRecipients) {
    test(`rule 6: recipient ${JSON.stringify(recipient)} is 400 and nothing is created`, async ({ server }) => {
      const from = server.client('primary').numbers[0]!.numberId;
      const response = await send(server, sendBody(from, { to: ['+12025550123', recipient] }));
      expect(response.statusCode).toBe(400);
      expect(response.json().error.details).toEqual({ field: 'to', invalidRecipients: [recipient] });
      expect(messageCount(server)).toBe(0);
    });
  }

  const badBodies: Array<[string, unknown]> = [
    ['malformed JSON', '{"sendFrom":'],
    ['an empty to array', { to: [] }],
    ['to as a string', { to: '+12025550123' }],
    ['a numeric text', { text: 5 }],
    ['an unknown messageType', { messageType: 'FAX' }],
    ['an unknown field', { priority: 'high' }],
    ['a missing externalReference', { externalReference: undefined }],
    ['101 recipients', { to: Array.from({ length: 101 }, (_, i) => `+1202555${String(1000 + i).padStart(4, '0')}`) }],
    ['a 1601-character text', { text: 'x'.repeat(1601) }],
    ['a media item with an http URL', { messageType: 'MMS', media: [{ url: 'http://cdn.example.com/a.png', contentType: 'image/png' }] }],
    ['a media item without contentType', { messageType: 'MMS', media: [{ url: 'https://cdn.example.com/a.png' }] }],
    ['11 media items', { messageType: 'MMS', media: Array.from({ length: 11 }, () => ({ url: 'https://cdn.example.com/a.png', contentType: 'image/png' })) }],
    ['an empty media array', { messageType: 'MMS', media: [] }],
    ['a JSON null body', null],
  ];
  for (const [name, change] of badBodies) {
    test(`body validation: ${name} is 400 INVALID_REQUEST`, async ({ server }) => {
      const from = server.client('primary').numbers[0]!.numberId;
      const body = typeof change === 'string' || change === null ? change ?? 'null' : sendBody(from, change as Record<string, unknown>);
      const response = await send(server, body);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('INVALID_REQUEST');
      expect(messageCount(server)).toBe(0);
    });
  }

  test('a body over 256 KiB is 413 in the CORE wrapper', async ({ server }) => {
    const response = await send(server, JSON.stringify({ pad: 'x'.repeat(300 * 1024) }));
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(response.json().requestId).toBe(response.headers['x-request-id']);
  });

  test('a non-JSON content type is 415 in the CORE wrapper', async ({ server }) => {
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/core/messages/send',
      headers: { authorization: `Bearer ${await server.token()}`, 'idempotency-key': 'k', 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json().error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});

test.describe('send idempotency (rule 8)', () => {
  test('the same key and payload replays status and body byte for byte and creates nothing', async ({ server }) => {
    const from = server.client('primary').numbers[0]!.numberId;
    const first = await send(server, sendBody(from));
    // Same payload with another key order and whitespace is still "the same payload".
    const reordered = `{ "externalReference": "order-1", "text": "Hello", "messageType": "SMS", "to": ["+12025550123"], "sendFrom": "${from}" }`;
    const second = await send(server, reordered);
    expect(second.statusCode).toBe(first.statusCode);
    expect(second.body).toBe(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(messageCount(server)).toBe(1);
  });

  test('the same key with a changed payload is 409 CONFLICT and creates nothing', async ({ server }) => {
    const from = server.client('primary').numbers[0]!.numberId;
    await send(server, sendBody(from));
    const changed = await send(server, sendBody(from, { text: 'Changed' }));
    expect(changed.statusCode).toBe(409);
    expect(changed.json().error.code).toBe('CONFLICT');
    expect(messageCount(server)).toBe(1);
  });

  test('a rejected request is not remembered: the fixed request with the same key is accepted', async ({ server }) => {
    const from = server.client('primary').numbers[0]!.numberId;
    expect((await send(server, sendBody(from, { to: ['bad'] }))).statusCode).toBe(400);
    expect((await send(server, sendBody(from))).statusCode).toBe(202);
  });

  test('the record answers before the state checks: a safe retry after the number lost its campaignregId replays the 202', async ({ server }) => {
    const from = server.client('primary').numbers[0]!.numberId;
    const first = await send(server, sendBody(from));
    expect(first.statusCode).toBe(202);
    const cleared = await server.app.inject({
      method: 'PATCH',
      url: `/api/core/numbers/${from}`,
      headers: { authorization: `Bearer ${await server.sharedToken()}` },
      payload: { campaignregId: null },
    });
    expect(cleared.json().campaignregId).toBeNull();
    const retry = await send(server, sendBody(from));
    expect(retry.statusCode).toBe(202);
    expect(retry.body).toBe(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    // A changed payload under that key is still 409, not the campaign's 400.
    const changed = await send(server, sendBody(from, { text: 'Changed' }));
    expect(changed.statusCode).toBe(409);
    // A new key is checked against today's state.
    const fresh = await send(server, sendBody(from), 'key-2');
    expect(fresh.statusCode).toBe(400);
    expect(fresh.json().error.details).toEqual({ field: 'sendFrom', numberId: from });
    expect(messageCount(server)).toBe(1);
  });

  test('a changed payload with a bad recipient under a used key is 409: the record comes before rule 6', async ({ server }) => {
    const from = server.client('primary').numbers[0]!.numberId;
    expect((await send(server, sendBody(from))).statusCode).toBe(202);
    const changed = await send(server, sendBody(from, { to: ['not a number'] }));
    expect(changed.statusCode).toBe(409);
    expect(changed.json().error.code).toBe('CONFLICT');
  });

  test('the body shape is checked before the record: a malformed body under a used key is 400', async ({ server }) => {
    const from = server.client('primary').numbers[0]!.numberId;
    expect((await send(server, sendBody(from))).statusCode).toBe(202);
    const malformed = await send(server, sendBody(from, { to: '+12025550123' }));
    expect(malformed.statusCode).toBe(400);
    const smsWithMedia = await send(server, sendBody(from, { media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }] }));
    expect(smsWithMedia.statusCode).toBe(400);
    expect(smsWithMedia.json().error.details).toEqual({ field: 'media' });
  });

  test('a refused request does not hold its key: a valid request racing it with the same key is accepted', async ({ server }) => {
    const from = server.client('primary').numbers[0]!.numberId;
    const token = await server.sharedToken();
    const [refused, accepted] = await Promise.all([
      send(server, sendBody(from, { to: ['bad'] }), 'raced', 'primary', token),
      send(server, sendBody(from), 'raced', 'primary', token),
    ]);
    expect(refused.statusCode).toBe(400);
    expect(accepted.statusCode).toBe(202);
    expect(accepted.headers['idempotent-replayed']).toBeUndefined();
    expect(messageCount(server)).toBe(1);
  });

  test('keys are scoped per API client', async ({ server }) => {
    const primary = await send(server, sendBody(server.client('primary').numbers[0]!.numberId), 'shared');
    const secondary = await send(server, sendBody(server.client('secondary').numbers[0]!.numberId), 'shared', 'secondary');
    expect(primary.statusCode).toBe(202);
    expect(secondary.statusCode).toBe(202);
    expect(secondary.headers['idempotent-replayed']).toBeUndefined();
    expect(messageCount(server)).toBe(2);
  });

  test.describe('retention', () => {
    test.use({ serverOptions: { idempotencyTtlSeconds: 1 } });

    test('a key is forgotten after the retention period', async ({ server }) => {
      const from = server.client('primary').numbers[0]!.numberId;
      const first = await send(server, sendBody(from));
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const again = await send(server, sendBody(from));
      expect(again.statusCode).toBe(202);
      expect(again.body).not.toBe(first.body);
      expect(messageCount(server)).toBe(2);
    });
  });

  // A hundred at once from one address: above the limit of requests in progress per source (64),
  // which is not what these tests are about (test/reference/source-limits.test.ts is).
  test.describe('a hundred at once', () => {
    test.use({ serverOptions: { maxRequestsPerSource: 1000 } });

    test('100 concurrent sends with one key create exactly one message', async ({ server }) => {
      const from = server.client('primary').numbers[0]!.numberId;
      const token = await server.token();
      const responses = await Promise.all(Array.from({ length: 100 }, () => send(server, sendBody(from), 'concurrent', 'primary', token)));
      expect(responses.map((response) => response.statusCode)).toEqual(Array(100).fill(202));
      expect(new Set(responses.map((response) => response.body)).size).toBe(1);
      expect(responses.filter((response) => response.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
      expect(messageCount(server)).toBe(1);
      expect(server.query<{ n: number }>('SELECT count(*) AS n FROM webhook_outbox')[0]!.n).toBe(1);
    });

    test('100 concurrent sends with one key and different payloads create exactly one message', async ({ server }) => {
      const from = server.client('primary').numbers[0]!.numberId;
      const token = await server.token();
      const responses = await Promise.all(Array.from({ length: 100 }, (_, i) => send(server, sendBody(from, { text: `variant ${i}` }), 'racing', 'primary', token)));
      expect(responses.filter((response) => response.statusCode === 202)).toHaveLength(1);
      expect(responses.filter((response) => response.statusCode === 409)).toHaveLength(99);
      expect(messageCount(server)).toBe(1);
    });
  });
});
