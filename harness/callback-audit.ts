// Every callback a test's channels received, checked after the test: its Standard Webhooks
// signature verifies with the secret of one of the clients (WH-101). The tests of WH-101 look at
// the callbacks they provoke; this looks at all the others too (the outcome of a failed message,
// a retry, an inbound event, a late event of an earlier message), so a server that signs right
// on the paths those tests take and wrong on another fails wherever that path shows.
import type { Target } from './config.ts';
import type { ReceivedCallback } from './webhook-receiver.ts';
import { verifyWebhook } from './webhook-signature.ts';

/**
 * The secrets a callback may be signed with, or null when the audit cannot judge: the target
 * declares no signing secret for the primary client (it may not sign at all: WH-101's own tests
 * say so), or a secondary client whose callbacks can reach a test's channels has none, so a
 * callback that does not verify with the primary's may be the secondary's.
 */
export function auditSecrets(target: Pick<Target, 'webhooks' | 'clients'>): string[] | null {
  const primary = target.webhooks.secret;
  const secondary = target.clients.secondary;
  if (!primary || (secondary && !secondary.webhookSecret)) return null;
  return [primary, ...(secondary?.webhookSecret ? [secondary.webhookSecret] : [])];
}

/**
 * The callbacks whose signature verifies with none of `secrets`, each described. Only the
 * signature is judged: a callback without an integer webhook-timestamp is WH-102's to judge, and
 * its signature is checked at its own timestamp, so that a clock far off is WH-102's too.
 */
export function unverifiedCallbacks(callbacks: readonly ReceivedCallback[], secrets: readonly string[]): string[] {
  const problems: string[] = [];
  for (const callback of callbacks) {
    const timestamp = callback.headers['webhook-timestamp'] ?? '';
    if (!/^\d+$/.test(timestamp)) continue;
    const reasons = secrets.map((secret) => {
      try {
        verifyWebhook(secret, callback.headers, callback.text, Number(timestamp));
        return null;
      } catch (e) {
        return (e as Error).message;
      }
    });
    if (reasons.some((r) => r === null)) continue;
    problems.push(`${callback.method} ${callback.path} (webhook-id ${callback.headers['webhook-id'] ?? 'absent'}, answered ${callback.answered}): ${reasons[0]}; body ${callback.text.slice(0, 160)}`);
  }
  return problems;
}
