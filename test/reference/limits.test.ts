import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { LIMITS } from '../../reference/spec/requestSchemas.ts';
import { test, expect, sendBody, type TestServer } from './helpers.ts';

// The profile's limits (spec/profile.yaml send.limits; reference/README.md, Limits and
// defenses): each one refused with 400 INVALID_REQUEST whose details name the field and the
// limit, and a send at every limit at once stays cheap in disk and memory. An earlier reference
// took an externalReference of any length and copied the text and media into every message row,
// so one 256 KiB send to 100 recipients wrote about 50 MiB.

async function send(server: TestServer, body: unknown, key = `limits-${Math.random()}`) {
  return server.app.inject({
    method: 'POST',
    url: '/api/core/messages/send',
    headers: { authorization: `Bearer ${await server.sharedToken()}`, 'content-type': 'application/json', 'idempotency-key': key },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const recipients = (count: number) => Array.from({ length: count }, (_, i) => `+1202555${String(2000 + i).padStart(4, '0')}`);
const mediaItem = (url = 'https://cdn.example.com/a.png', contentType = 'image/png') => ({ url, contentType });
const urlOf = (length: number) => `https://cdn.example.com/${'u'.repeat(length - 'https://cdn.example.com/'.length)}`;

/** A send at every limit at once, in three-byte characters where a length is counted in characters. */
function atEveryLimit(numberId: string): Record<string, unknown> {
  const media = Array.from({ length: LIMITS.mediaItems }, () => mediaItem(urlOf(LIMITS.urlLength), `image/${'p'.repeat(LIMITS.contentTypeLength - 'image/'.length)}`));
  return { sendFrom: numberId, to: recipients(LIMITS.recipients), messageType: 'MMS', text: '€'.repeat(LIMITS.textLength), media, externalReference: '€'.repeat(LIMITS.externalReferenceLength) };
}

test.describe('send limits', () => {
  const overLimit: Array<[string, (body: Record<string, unknown>) => Record<string, unknown>, string, number]> = [
    ['externalReference', (body) => ({ ...body, externalReference: 'r'.repeat(LIMITS.externalReferenceLength + 1) }), 'body/externalReference', LIMITS.externalReferenceLength],
    ['sendFrom', (body) => ({ ...body, sendFrom: 'n'.repeat(LIMITS.sendFromLength + 1) }), 'body/sendFrom', LIMITS.sendFromLength],
    ['recipients', (body) => ({ ...body, to: recipients(LIMITS.recipients + 1) }), 'body/to', LIMITS.recipients],
    ['a recipient', (body) => ({ ...body, to: [`+1${'2'.repeat(LIMITS.recipientLength)}`] }), 'body/to/0', LIMITS.recipientLength],
    ['text', (body) => ({ ...body, text: 'x'.repeat(LIMITS.textLength + 1) }), 'body/text', LIMITS.textLength],
    ['media items', (body) => ({ ...body, messageType: 'MMS', media: Array.from({ length: LIMITS.mediaItems + 1 }, () => mediaItem()) }), 'body/media', LIMITS.mediaItems],
    ['a media url', (body) => ({ ...body, messageType: 'MMS', media: [mediaItem(urlOf(LIMITS.urlLength + 1))] }), 'body/media/0/url', LIMITS.urlLength],
    ['a media contentType', (body) => ({ ...body, messageType: 'MMS', media: [mediaItem(undefined, `image/${'p'.repeat(LIMITS.contentTypeLength)}`)] }), 'body/media/0/contentType', LIMITS.contentTypeLength],
  ];
  for (const [name, breakIt, field, limit] of overLimit) {
    test(`${name} over its limit (${limit}) is 400 INVALID_REQUEST naming the field and the limit`, async ({ server }) => {
      const response = await send(server, breakIt(sendBody(server.client('primary').numbers[0]!.numberId)));
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'INVALID_REQUEST', details: { field, limit } });
    });
  }

  test('a body over 256 KiB is 413 naming the limit in bytes', async ({ server }) => {
    const response = await send(server, JSON.stringify({ pad: 'x'.repeat(300 * 1024) }));
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 256 * 1024 } });
  });

  test('the send that cost 50 MiB (a 256 KiB externalReference to 100 recipients) is refused and stores nothing', async ({ server }) => {
    const base = sendBody(server.client('primary').numbers[0]!.numberId, { to: recipients(100) });
    const body = { ...base, externalReference: 'r'.repeat(250 * 1024) };
    const response = await send(server, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toMatchObject({ field: 'body/externalReference', limit: LIMITS.externalReferenceLength });
    expect(server.query<{ n: number }>('SELECT count(*) AS n FROM messages')[0]!.n).toBe(0);
  });

  test('a send at every limit at once is accepted and writes less than 1 MiB: its text and media once, not once per recipient', async ({ server }, testInfo) => {
    const body = JSON.stringify(atEveryLimit(server.client('primary').numbers[0]!.numberId));
    // Empty the WAL first, so what it holds afterwards is what this send (and its outcomes) wrote.
    const db = new Database(server.dbPath);
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    const response = await send(server, body);
    expect(response.statusCode).toBe(202);
    expect(response.json().results).toHaveLength(LIMITS.recipients);
    await expect.poll(() => server.query<{ n: number }>("SELECT count(*) AS n FROM messages WHERE status = 'QUEUED'")[0]!.n).toBe(0);
    const walBytes = statSync(`${server.dbPath}-wal`).size;
    const stored = server.query<{ bytes: number }>(
      `SELECT (SELECT sum(length(CAST(text AS BLOB)) + length(CAST(media AS BLOB))) FROM message_contents)
            + (SELECT sum(length(CAST(external_reference AS BLOB))) FROM messages)
            + (SELECT sum(length(CAST(payload AS BLOB))) FROM webhook_outbox) AS bytes`,
    )[0]!.bytes;
    testInfo.annotations.push({ type: 'cost', description: `body ${Buffer.byteLength(body)} B; stored ${stored} B; WAL ${walBytes} B` });
    expect(server.query('SELECT content_id FROM message_contents')).toHaveLength(1);
    expect(stored).toBeLessThan(8 * Buffer.byteLength(body));
    expect(walBytes).toBeLessThan(1024 * 1024);
  });
});
