// The audit of every callback a test's receiver took (harness/callback-audit.ts): what it finds,
// by requirement, and when it cannot judge a signature.
import { expect, test } from '@playwright/test';
import { auditCallbacks, auditSecrets } from '../../harness/callback-audit.ts';
import type { ReceivedCallback } from '../../harness/webhook-receiver.ts';
import { sign } from '../../harness/webhook-signature.ts';

const PRIMARY = `whsec_${Buffer.from('primary-key-0123456789').toString('base64')}`;
const SECONDARY = `whsec_${Buffer.from('secondary-key-012345678').toString('base64')}`;
const target = (secondary: { webhookSecret?: string } | null = { webhookSecret: SECONDARY }) =>
  ({ webhooks: { secret: PRIMARY }, clients: { primary: { clientId: 'a', clientSecret: 's' }, ...(secondary && { secondary: { clientId: 'b', clientSecret: 't', ...secondary } }) } }) as unknown as Parameters<typeof auditCallbacks>[1];

function callback(secret: string, id: string, text: string, options: { timestamp?: string; signedText?: string } = {}): ReceivedCallback {
  const now = Date.now();
  const timestamp = options.timestamp ?? String(Math.floor(now / 1000));
  const signature = `v1,${sign(secret, id, timestamp, options.signedText ?? text).toString('base64')}`;
  return { channel: 'c', method: 'POST', path: '/hooks/c', headers: { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature }, text, json: JSON.parse(text), receivedAt: now, answered: 200 };
}

test("callbacks signed with either client's secret, each id with one body, pass", () => {
  const ok = [callback(PRIMARY, 'e1', '{"a":1}'), callback(PRIMARY, 'e1', '{"a":1}'), callback(SECONDARY, 'e2', '{"b":2}')];
  expect(auditCallbacks(ok, target())).toEqual([]);
});

test('a callback signed over other bytes than it carries is WH-101', () => {
  const findings = auditCallbacks([callback(PRIMARY, 'e1', '{"a":1}'), callback(PRIMARY, 'e2', '{"a":2}', { signedText: '{"a":2}\n' })], target());
  expect(findings.map((f) => f.id)).toEqual(['WH-101']);
  expect(findings[0]!.problems).toHaveLength(1);
  expect(findings[0]!.problems[0]).toContain('webhook-id e2');
});

test('without a secret for every client whose callbacks may arrive, signatures are not judged', () => {
  expect(auditSecrets(target({}))).toBeNull();
  expect(auditCallbacks([callback(SECONDARY, 'e1', '{"a":1}', { signedText: 'x' })], target({}))).toEqual([]);
  // no secondary client at all: the primary's secret is every secret there is
  expect(auditSecrets(target(null))).toEqual([PRIMARY]);
});

test('a timestamp in milliseconds is WH-102, and its signature is still judged at that timestamp (WH-101 passes)', () => {
  const findings = auditCallbacks([callback(PRIMARY, 'e1', '{"a":1}', { timestamp: String(Date.now()) })], target());
  expect(findings.map((f) => f.id)).toEqual(['WH-102']);
});

test('one webhook-id carrying two bodies is WH-109', () => {
  const findings = auditCallbacks([callback(PRIMARY, 'e1', '{"a":1}'), callback(PRIMARY, 'e1', '{"a":2}')], target());
  expect(findings.map((f) => f.id)).toEqual(['WH-109']);
});

test('a callback labelled text/plain is WH-003; application/json with a charset, a +json type and no label pass', () => {
  const labelled = (type: string | undefined, id: string) => {
    const c = callback(PRIMARY, id, '{"a":1}');
    return { ...c, headers: { ...c.headers, ...(type !== undefined && { 'content-type': type }) } };
  };
  const fine = [labelled('application/json', 'j1'), labelled('application/json; charset=utf-8', 'j2'), labelled('application/cloudevents+json', 'j3'), labelled(undefined, 'j4')];
  expect(auditCallbacks(fine, target())).toEqual([]);
  const findings = auditCallbacks([...fine, labelled('text/plain', 't1')], target());
  expect(findings.map((f) => f.id)).toEqual(['WH-003']);
  expect(findings[0]!.problems[0]).toMatch(/webhook-id t1\): Content-Type text\/plain/);
});
