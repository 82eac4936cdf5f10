import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64');
}

/** Standard Webhooks: the key is the base64-decoded part of the secret after `whsec_`. */
function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>` */
export function signature(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${webhookId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
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
