// Standard Webhooks signing is written twice in this project: the harness verifies callbacks
// (harness/webhook-signature.ts, WH-101) and the reference signs them (reference/webhooks/sign.ts).
// One author's reading on both sides would let a shared misreading pass, so both are held to
// the specification's own library (standardwebhooks, a dev dependency): whatever it signs our
// verifier accepts, whatever the reference signs it accepts, and a changed byte fails in both.
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import standardWebhooks from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../harness/webhook-signature.ts';
import { newWebhookSecret, signedHeaders } from '../../reference/webhooks/sign.ts';

const { Webhook } = standardWebhooks;
/** Verify the signature over the raw body only: the library would otherwise also parse it as JSON. */
const RAW = { jsonParse: false };

const secret = fc.uint8Array({ minLength: 16, maxLength: 64 }).map((bytes) => `whsec_${Buffer.from(bytes).toString('base64')}`);
const webhookId = fc.stringMatching(/^msg_[A-Za-z0-9]{1,40}$/);
// Bodies of any text, JSON or not, with characters outside ASCII: the signature covers the raw body.
const body = fc.string({ unit: 'binary', maxLength: 400 });

function libraryHeaders(key: string, id: string, at: Date, payload: string): Record<string, string> {
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(key).sign(id, at, payload) };
}

test('what the Standard Webhooks library signs, the harness verifies', () => {
  fc.assert(
    fc.property(secret, webhookId, body, (key, id, payload) => {
      const now = new Date();
      expect(() => verifyWebhook(key, libraryHeaders(key, id, now, payload), payload, now.getTime() / 1000)).not.toThrow();
    }),
    { numRuns: 200 },
  );
});

test('what the reference signs, the Standard Webhooks library verifies', () => {
  fc.assert(
    fc.property(secret, webhookId, body, (key, id, payload) => {
      const headers = signedHeaders(key, id, payload, Date.now());
      expect(() => new Webhook(key).verify(payload, headers, RAW)).not.toThrow();
    }),
    { numRuns: 200 },
  );
  // The secret the reference makes is one the library takes.
  const made = newWebhookSecret();
  expect(() => new Webhook(made).verify('{}', signedHeaders(made, 'msg_1', '{}', Date.now()), RAW)).not.toThrow();
});

test('a changed body, id, timestamp or secret fails in the library and in the harness alike', () => {
  fc.assert(
    fc.property(secret, webhookId, body, fc.constantFrom('body', 'id', 'timestamp', 'secret'), (key, id, payload, change) => {
      const now = new Date();
      const headers = libraryHeaders(key, id, now, payload);
      let otherKey = key;
      let otherPayload = payload;
      const changed = { ...headers };
      if (change === 'body') otherPayload = `${payload} `;
      if (change === 'id') changed['webhook-id'] = `${id}x`;
      if (change === 'timestamp') changed['webhook-timestamp'] = String(Number(headers['webhook-timestamp']) - 1);
      if (change === 'secret') otherKey = `whsec_${randomBytes(24).toString('base64')}`;
      expect(() => new Webhook(otherKey).verify(otherPayload, changed, RAW), `the library refuses a changed ${change}`).toThrow();
      expect(() => verifyWebhook(otherKey, changed, otherPayload, now.getTime() / 1000), `the harness refuses a changed ${change}`).toThrow(WebhookVerificationError);
    }),
    { numRuns: 200 },
  );
});

test('several signatures in one header (a secret being rotated): any one that matches is enough, in both', () => {
  const now = new Date();
  const old = `whsec_${randomBytes(24).toString('base64')}`;
  const current = `whsec_${randomBytes(24).toString('base64')}`;
  const headers = libraryHeaders(current, 'msg_rotate', now, '{"a":1}');
  headers['webhook-signature'] = `${new Webhook(old).sign('msg_rotate', now, '{"a":1}')} ${headers['webhook-signature']}`;
  expect(() => new Webhook(current).verify('{"a":1}', headers, RAW)).not.toThrow();
  expect(() => verifyWebhook(current, headers, '{"a":1}', now.getTime() / 1000)).not.toThrow();
});

test('a timestamp outside five minutes is refused by both', () => {
  const key = `whsec_${randomBytes(24).toString('base64')}`;
  const then = new Date(Date.now() - 6 * 60 * 1000);
  const headers = libraryHeaders(key, 'msg_late', then, '{}');
  expect(() => new Webhook(key).verify('{}', headers, RAW)).toThrow();
  expect(() => verifyWebhook(key, headers, '{}')).toThrow(WebhookVerificationError);
});
