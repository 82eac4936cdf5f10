import { createHmac, timingSafeEqual } from 'node:crypto';

/** Standard Webhooks: how far webhook-timestamp may be from the receiver's clock. */
export const WEBHOOK_TOLERANCE_IN_SECONDS = 5 * 60;

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/**
 * Verify a Standard Webhooks signature: `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>`,
 * the key being the base64 after `whsec_`; several signatures may be space-separated
 * during a secret rotation, and any one matching is enough. Compared in constant time, as text.
 */
export function verifyWebhook(secret: string, headers: Record<string, string>, body: string, nowSeconds = Date.now() / 1000): void {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError(`webhook-timestamp is not Unix seconds: ${timestamp}`);
  if (Math.abs(nowSeconds - seconds) > WEBHOOK_TOLERANCE_IN_SECONDS) {
    throw new WebhookVerificationError(`webhook-timestamp ${timestamp} is outside the ${WEBHOOK_TOLERANCE_IN_SECONDS} s tolerance`);
  }
  // Compared as the base64 text Standard Webhooks writes (its libraries compare the strings):
  // Node's base64 decoder also takes base64url letters and a missing '=' pad, which a verifier
  // comparing the text the standard specifies refuses.
  const expected = Buffer.from(sign(secret, id, timestamp, body).toString('base64'));
  for (const candidate of signatures.split(' ')) {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return;
  }
  throw new WebhookVerificationError('no v1 signature matches the secret');
}

/** Why a callback does not verify with `secret` at `nowSeconds` (verifyWebhook's message); '' when it verifies. */
export function verificationProblem(secret: string, headers: Record<string, string>, body: string, nowSeconds = Date.now() / 1000): string {
  try {
    verifyWebhook(secret, headers, body, nowSeconds);
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}

export function sign(secret: string, id: string, timestamp: string, body: string): Buffer {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
}
