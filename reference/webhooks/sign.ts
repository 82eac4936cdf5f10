import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

/**
 * `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>`, by the Standard Webhooks library itself:
 * the key is the base64-decoded part of the secret after `whsec_`. The harness's own check
 * (harness/webhook-signature.ts) is written separately and tested against the same library, so
 * one misreading of the specification cannot sit on both sides.
 */
export function signature(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  return new Webhook(secret).sign(webhookId, new Date(timestampSeconds * 1000), body);
}

/** WH-101: webhook-id, webhook-timestamp (Unix seconds, WH-102) and a v1 webhook-signature. */
export function signedHeaders(secret: string, webhookId: string, body: string, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    // WH-201, WH-203: the profile's events are JSON POSTs, labelled as such.
    'content-type': 'application/json',
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, webhookId, timestamp, body),
  };
}

/** The webhook.signing choice 'none': a callback without signature headers (section 6 shows no signing). */
export function unsignedHeaders(): Record<string, string> {
  return { 'content-type': 'application/json' };
}
