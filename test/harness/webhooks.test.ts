import { expect, test } from '@playwright/test';
import { createHmac } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookVerificationError } from '../../harness/webhook-signature.ts';
import { ReceiverListenError, WebhookReceiver } from '../../harness/webhook-receiver.ts';

const SECRET = `whsec_${Buffer.from('a-test-secret-of-32-bytes-length').toString('base64')}`;
function signed(body: string, id = 'msg_1', ts = String(Math.floor(Date.now() / 1000))) {
  const sig = createHmac('sha256', Buffer.from(SECRET.slice(6), 'base64')).update(`${id}.${ts}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${sig}` };
}

// Each test breaks a correctly signed message in exactly one way (Standard Webhooks' own style).
test.describe('Standard Webhooks verification', () => {
  const body = '{"type":"message.delivery"}';
  test('a correct signature verifies', () => {
    expect(() => verifyWebhook(SECRET, signed(body), body)).not.toThrow();
  });
  test('one of several space-separated signatures is enough (rotation)', () => {
    const h = signed(body);
    expect(() => verifyWebhook(SECRET, { ...h, 'webhook-signature': `v1,AAAA ${h['webhook-signature']}` }, body)).not.toThrow();
  });
  test('a changed body fails', () => {
    expect(() => verifyWebhook(SECRET, signed(body), body + ' ')).toThrow(WebhookVerificationError);
  });
  test('a changed id fails', () => {
    expect(() => verifyWebhook(SECRET, { ...signed(body), 'webhook-id': 'msg_2' }, body)).toThrow(/no v1 signature matches/);
  });
  test('a stale timestamp fails', () => {
    expect(() => verifyWebhook(SECRET, signed(body, 'msg_1', String(Math.floor(Date.now() / 1000) - 301)), body)).toThrow(/outside the 300 s tolerance/);
  });
  test('the signature in base64url letters, or without its = pad, fails: it is compared as the base64 text the standard writes', () => {
    const h = signed(body);
    const value = h['webhook-signature'].slice(3);
    expect(value.endsWith('='), 'an HMAC-SHA256 in base64 ends with one pad').toBe(true);
    expect(() => verifyWebhook(SECRET, { ...h, 'webhook-signature': `v1,${value.replace(/=+$/, '')}` }, body)).toThrow(/no v1 signature matches/);
    const url = Buffer.from(value, 'base64').toString('base64url');
    expect(() => verifyWebhook(SECRET, { ...h, 'webhook-signature': `v1,${url}` }, body)).toThrow(/no v1 signature matches/);
  });
  test('a missing header fails', () => {
    const { 'webhook-signature': _, ...rest } = signed(body);
    expect(() => verifyWebhook(SECRET, rest, body)).toThrow(/missing/);
  });
  test('another secret fails', () => {
    expect(() => verifyWebhook(`whsec_${Buffer.from('another').toString('base64')}`, signed(body), body)).toThrow(WebhookVerificationError);
  });
});

test.describe('webhook receiver', () => {
  let receiver: WebhookReceiver;
  test.beforeAll(async () => {
    receiver = await WebhookReceiver.start({ host: '127.0.0.1', port: 0 });
  });
  test.afterAll(() => receiver.close());

  test('callbacks reach only their own channel, and waitFor returns them', async () => {
    const a = receiver.channel('a');
    const b = receiver.channel('b');
    await fetch(a.url, { method: 'POST', body: '{"messageId":"m1"}', headers: { 'content-type': 'application/json' } });
    const [got] = await a.waitFor('messageId m1', (c) => c.json?.messageId === 'm1', { timeoutMs: 2000 });
    expect(got!.json).toEqual({ messageId: 'm1' });
    expect(b.received).toHaveLength(0);
  });

  test('a timeout says what was awaited and what arrived', async () => {
    const c = receiver.channel();
    await fetch(c.url, { method: 'POST', body: '{"messageId":"other"}' });
    await expect(c.waitFor('messageId m9', (x) => x.json?.messageId === 'm9', { timeoutMs: 200 })).rejects.toThrow(/waited for 1 × messageId m9[\s\S]*received 1:[\s\S]*other/);
  });

  test('scripted failures answer first, and unique() de-duplicates redeliveries by webhook-id', async () => {
    const c = receiver.channel().respondWith(500);
    const send = () => fetch(c.url, { method: 'POST', body: '{}', headers: { 'webhook-id': 'w1' } });
    expect((await send()).status).toBe(500);
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    expect(c.received).toHaveLength(3);
    expect(c.unique()).toHaveLength(1);
  });

  test('scripted failures narrowed to the own message: others are answered 200, an early own callback waits to be named', async () => {
    const c = receiver.channel().respondWith(500);
    const own = c.scriptOnlyFor();
    const post = (messageId: string) => fetch(c.url, { method: 'POST', body: JSON.stringify({ messageId }), headers: { 'webhook-id': messageId } });
    const early = post('mine');
    await new Promise((r) => setTimeout(r, 100));
    expect(c.received, 'held until the test names its own').toHaveLength(0);
    own((x) => x.json?.messageId === 'mine');
    expect((await early).status).toBe(500);
    expect((await post('earlier-test')).status, 'another message is answered 200').toBe(200);
    expect((await post('mine')).status, 'the retry is answered 200').toBe(200);
    const late = receiver.channel().respondWith(500);
    late.scriptOnlyFor()((x) => x.json?.messageId === 'mine');
    expect((await fetch(late.url, { method: 'POST', body: '{"messageId":"other"}' })).status).toBe(200);
    expect((await fetch(late.url, { method: 'POST', body: '{"messageId":"mine"}' })).status).toBe(500);
  });

  test('an unreachable channel fails every connection until opened, and tells that one was tried', async () => {
    const c = await receiver.unreachableChannel();
    await expect(c.attempted(50), 'nothing tried yet').rejects.toThrow(/no connection attempt within 50 ms/);
    const waiting = c.attempted(2_000);
    await expect(fetch(c.url, { method: 'POST', body: '{}' })).rejects.toThrow();
    expect(await waiting).toBe(1);
    expect(c.received, 'a failed connection delivers nothing').toEqual([]);
    await c.open();
    expect((await fetch(c.url, { method: 'POST', body: '{}' })).status).toBe(200);
    expect(c.received).toHaveLength(1);
    await receiver.reset();
    await expect(fetch(c.url, { method: 'POST', body: '{}' }), 'closed again by reset').rejects.toThrow();
  });

  test('an unreachable channel never opened is closed by reset', async () => {
    const c = await receiver.unreachableChannel();
    await receiver.reset();
    await expect(fetch(c.url, { method: 'POST', body: '{}' })).rejects.toThrow();
    await expect(c.attempted(100), 'a refused connection is not seen').rejects.toThrow();
  });
});

// A publicUrl with a path is a proxy or tunnel that routes by it and passes the callback on
// without it (the receiver routes by /hooks/…): a check of the path a callback arrived with
// compares it with the channel's path, never with its URL's.
test("behind a publicUrl with a path, a callback arrives with the channel's path and query, not its URL's", async () => {
  const receiver = await WebhookReceiver.start({ host: '127.0.0.1', port: 0 });
  const proxy = createServer((req, res) => {
    const passed = (req.url ?? '/').replace(/^\/p\d+/, '');
    req.pipe(httpRequest({ host: '127.0.0.1', port: receiver.port, path: passed, method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    }));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  try {
    const behind = await WebhookReceiver.start({ host: '127.0.0.1', port: 0, publicUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/p{port}` });
    try {
      // The proxy reaches the first receiver; the second only names the URLs.
      const named = behind.channel('q', { query: 'route=r1&kind=delivery' });
      expect(new URL(named.url).pathname, 'the URL the target calls carries the prefix').toMatch(/^\/p\d+\/hooks\//);
      expect(named.path).toBe(`/hooks/${named.id}?route=r1&kind=delivery`);
      const c = receiver.channel('q', { query: 'route=r1&kind=delivery' });
      const viaProxy = c.url.replace(`http://127.0.0.1:${receiver.port}`, `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/p${receiver.port}`);
      await fetch(viaProxy, { method: 'POST', body: '{"messageId":"m1"}', headers: { 'content-type': 'application/json' } });
      const [got] = await c.waitFor('messageId m1', (x) => x.json?.messageId === 'm1', { timeoutMs: 2000 });
      expect(got!.path).toBe(c.path);
    } finally {
      await behind.close();
    }
  } finally {
    proxy.close();
    await receiver.close();
  }
});

test("a receiver port another program holds is the run's problem, naming the config fields", async () => {
  const holder = await WebhookReceiver.start({ host: '127.0.0.1', port: 0 });
  try {
    const error = await WebhookReceiver.start({ host: '127.0.0.1', port: holder.port }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ReceiverListenError);
    expect((error as ReceiverListenError).judgement).toEqual({ kind: 'harness', reason: `ReceiverListenError: the harness's webhook receiver cannot listen on 127.0.0.1:${holder.port} (EADDRINUSE)`, stopsRun: true });
    expect((error as Error).message).toContain('check:  webhooks.listenHost and webhooks.listenPort in the target config');
  } finally {
    await holder.close();
  }
});
