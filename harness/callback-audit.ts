// Every callback a test's channels received, checked after the test: it is labelled as JSON when
// it is labelled (WH-003), its Standard Webhooks signature verifies with the secret of one of the
// clients (WH-101), its webhook-timestamp is Unix seconds near its arrival (WH-102), and one
// webhook-id always carries one body (WH-109).
// The tests of those requirements look at the callbacks they provoke; this looks at all the
// others too (the outcome of a failed message, a retry, an inbound event, an MMS, a late event
// of an earlier message), so a server that is right on the paths those tests take and wrong on
// another fails wherever that path shows.
import type { Target } from './config.ts';
import { recordError, type Judged, type Judgement } from './judgement.ts';
import type { ReceivedCallback } from './webhook-receiver.ts';
import { verificationProblem, WEBHOOK_TOLERANCE_IN_SECONDS } from './webhook-signature.ts';

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
    const reasons = secrets.map((secret) => verificationProblem(secret, callback.headers, callback.text, Number(timestamp)));
    if (reasons.includes('')) continue;
    problems.push(`${callback.method} ${callback.path} (webhook-id ${callback.headers['webhook-id'] ?? 'absent'}, answered ${callback.answered}): ${reasons[0]}; body ${callback.text.slice(0, 160)}`);
  }
  return problems;
}

/** The callbacks whose webhook-timestamp is no integer of Unix seconds within the standard's tolerance of their arrival. */
export function staleTimestamps(callbacks: readonly ReceivedCallback[]): string[] {
  return callbacks
    .filter((c) => c.headers['webhook-timestamp'] !== undefined)
    .filter((c) => {
      const timestamp = c.headers['webhook-timestamp']!;
      return !/^\d+$/.test(timestamp) || Math.abs(Number(timestamp) - c.receivedAt / 1000) > WEBHOOK_TOLERANCE_IN_SECONDS;
    })
    .map((c) => `${c.method} ${c.path} (webhook-id ${c.headers['webhook-id'] ?? 'absent'}): webhook-timestamp ${c.headers['webhook-timestamp']}, received at ${Math.floor(c.receivedAt / 1000)}`);
}

/** The webhook-ids that carried more than one body: each with the bodies. */
export function sharedIds(callbacks: readonly ReceivedCallback[]): string[] {
  const bodies = new Map<string, Set<string>>();
  for (const c of callbacks) {
    const id = c.headers['webhook-id'];
    if (id) bodies.set(id, (bodies.get(id) ?? new Set()).add(c.text));
  }
  return [...bodies].filter(([, b]) => b.size > 1).map(([id, b]) => `webhook-id ${id} carried ${b.size} bodies: ${[...b].map((t) => t.slice(0, 120)).join(' | ')}`);
}

/**
 * The callbacks labelled with a media type other than JSON (text/plain, say): a receiver reads
 * the body by its label, and section 6's callbacks are JSON (WH-003), whichever event they carry.
 * A callback without Content-Type is left alone: what a receiver makes of it is open.
 */
export function mislabelledCallbacks(callbacks: readonly ReceivedCallback[]): string[] {
  return callbacks
    .filter((c) => c.headers['content-type'] !== undefined && !/^\s*application\/([\w.-]+\+)?json\s*(;|$)/i.test(c.headers['content-type']))
    .map((c) => `${c.method} ${c.path} (webhook-id ${c.headers['webhook-id'] ?? 'absent'}): Content-Type ${c.headers['content-type']}; body ${c.text.slice(0, 120)}`);
}

/** What the audit found, by requirement; empty when every callback passed. */
export function auditCallbacks(callbacks: readonly ReceivedCallback[], target: Pick<Target, 'webhooks' | 'clients'>): Array<{ id: 'WH-003' | 'WH-101' | 'WH-102' | 'WH-109'; what: string; problems: string[] }> {
  const secrets = auditSecrets(target);
  return [
    { id: 'WH-003' as const, what: 'is labelled as the JSON it carries (application/json)', problems: mislabelledCallbacks(callbacks) },
    { id: 'WH-101' as const, what: "carries a v1 signature that verifies with its client's secret", problems: secrets === null ? [] : unverifiedCallbacks(callbacks, secrets) },
    { id: 'WH-102' as const, what: `carries webhook-timestamp in Unix seconds within ${WEBHOOK_TOLERANCE_IN_SECONDS} s of its arrival`, problems: staleTimestamps(callbacks) },
    { id: 'WH-109' as const, what: 'shares its webhook-id with no other event', problems: sharedIds(callbacks) },
  ].filter((f) => f.problems.length > 0);
}

/** The audit's failures, judged against the requirements they break. */
export class CallbackAuditFailed extends Error implements Judged {
  override name = 'CallbackAuditFailed';
  readonly judgement: Judgement;
  constructor(findings: ReturnType<typeof auditCallbacks>) {
    super(findings.map((f) => `${f.id}: every callback ${f.what}; of the callbacks the test's receiver took, ${f.problems.length} did not:\n  ${f.problems.join('\n  ')}`).join('\n'));
    // Found after the test's own checks ran to their end: they stand (harness/judgement.ts).
    this.judgement = { kind: 'requirements', ids: findings.map((f) => f.id), afterChecks: true };
    recordError(this);
  }
}
