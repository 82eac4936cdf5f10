import { randomUUID } from 'node:crypto';
import type { ApiClient, ApiResponse, ClientRole } from '../../harness/api-client.ts';
import type { Target } from '../../harness/config.ts';
import { canSendSms, readNumbers, type KnownNumbers, type NumberRecord } from '../../harness/known-numbers.ts';
import { stringsIn } from '../../harness/webhook-receiver.ts';
import { expect, notTestable } from '../../harness/fixtures.ts';
import { runMark } from '../../harness/interference.ts';
import { runSettings } from '../../harness/settings.ts';
import type { SendPayload } from '../../generators/send-payload.ts';
import { reportsQueued as queuedIn } from '../../generators/send-port.ts';
import type { RequirementLabel } from '../../harness/requirement-ids.ts';

/**
 * Small helpers shared by the suites that send. They name the numbers and recipients a test
 * uses, build payloads that send only to the target's test recipients, and read a send answer
 * the way the document allows it to look (result item fields beyond messageId are open).
 */

/** A caller-side correlation key that carries the run's mark (harness/interference.ts), unique per call. */
export function externalRef(label: string): string {
  return `conformance-${runMark(runSettings().runDir)}-${label}-${randomUUID().slice(0, 8)}`;
}

/** The number ordinary sends use; without one the test is not testable. */
export function smsNumber(known: KnownNumbers): string {
  if (!known.sms) notTestable('needs a primary number with a campaignregId that can send SMS (numbers.sms in the target config)');
  return known.sms!;
}

/**
 * Another number of the primary client that can send an SMS as well as `smsNumber(known)`: one
 * the list shows with a campaignregId and SMS not disabled. Undefined when there is none (a
 * target with one sending number); the test that needs it says it is not testable.
 */
export function secondSmsNumber(known: KnownNumbers): string | undefined {
  return known.primary.find((n) => n.numberId !== known.sms && canSendSms(n))?.numberId;
}

/** Why a test that needs `secondSmsNumber` is not testable without one. */
export const NO_SECOND_SMS_NUMBER = 'needs a second primary number with a campaignregId that can send SMS, besides numbers.sms';

/**
 * A number of the primary client, for a request that must name one but need not succeed (an
 * update, or a send refused for its credentials or its form): the SMS number when there is
 * one, else any. Unlike smsNumber, a target without an SMS number can still run such a test.
 */
export function anyOwnNumber(known: KnownNumbers): string {
  const id = known.sms ?? known.primary[0]?.numberId;
  if (!id) notTestable('needs at least one number assigned to the primary client');
  return id!;
}

/**
 * The phone number a listed record holds (any field of it: the document shows no such field)
 * that the target's recipients.allowPattern admits, for sends to numbers the service holds.
 */
export function admittedPhoneOf(target: Target): (record: Record<string, unknown>) => string | undefined {
  const admitted = new RegExp(target.recipients.allowPattern);
  return (record) => Object.values(record).find((v): v is string => typeof v === 'string' && /^\+[1-9]\d{1,14}$/.test(v) && admitted.test(v));
}

/** The first `count` recipients the target delivers to; without enough the test is not testable. */
export function deliveredRecipients(target: Target, count = 1): string[] {
  const list = target.recipients.delivered;
  if (list.length < count) notTestable(`needs ${count} recipients in recipients.delivered of the target config, it has ${list.length}`);
  return list.slice(0, count);
}

/** A valid SMS from `sendFrom` to `to`: nothing in it breaks a rule of section 4.6. */
export function smsPayload(sendFrom: string, to: string[], label = 'sms'): SendPayload {
  return { sendFrom, to, messageType: 'SMS', text: `Conformance check ${label}`, externalReference: externalRef(label) };
}

/** POST the send route with this key (or none when `key` is undefined). */
export function send(api: ApiClient, key: string | undefined, json: unknown, as: ClientRole = 'primary'): Promise<ApiResponse> {
  return api.call('send', { ...(key !== undefined && { headers: { 'idempotency-key': key } }), json, as });
}

/** Every messageId the answer reports: results[*].messageId, in order (section 2, send response). */
export function messageIdsOf(res: ApiResponse): string[] {
  const results: unknown = res.body?.results;
  if (!Array.isArray(results)) return [];
  return results.flatMap((item: unknown) => {
    const id = (item as { messageId?: unknown } | null)?.messageId;
    return typeof id === 'string' && id !== '' ? [id] : [];
  });
}

/**
 * Which recipient each messageId of the answer belongs to, where the answer says: a result item
 * that carries a messageId and, as a string value anywhere in it, exactly one of the recipients
 * `to` names pairs the two. Fields of a result item are not shown (section 4.6), so an answer
 * whose items name no recipient pairs nothing, and the map is empty.
 */
export function recipientsOf(res: ApiResponse, to: readonly string[]): Map<string, string> {
  const pairs = new Map<string, string>();
  const results: unknown = res.body?.results;
  if (!Array.isArray(results)) return pairs;
  for (const item of results) {
    const id = (item as { messageId?: unknown } | null)?.messageId;
    const named = [...new Set(stringsIn(item).filter((value) => to.includes(value)))];
    if (typeof id === 'string' && id !== '' && named.length === 1) pairs.set(id, named[0]!);
  }
  return pairs;
}

/**
 * Whether the answer reports QUEUED (section 3, rule 7), read as generators/send-port.ts's
 * `reportsQueued` reads a body: a property of the answer, or of every result item that carries
 * a messageId, whose value is QUEUED, whatever its name.
 */
export function reportsQueued(res: ApiResponse): boolean {
  return queuedIn(res.body);
}

/** How many identical sends with one key the concurrency checks fire at once (IDEM-003, IDEM-104). */
export const BURST = 20;

/** Sorted copy, to compare sets of messageIds without relying on order. */
export function sorted(ids: readonly string[]): string[] {
  return [...ids].sort();
}

/**
 * Assert the answer is a successful acceptance (rule 7): 2xx, QUEUED, at least one messageId.
 * `label` starts every message so the failure names the requirement: the test's own when being
 * accepted is what it checks (SEND-008, SEND-010, …).
 */
export function expectQueued(res: ApiResponse, label: RequirementLabel): string[] {
  expect(res).toSucceed(`${label}: accepted (2xx)`);
  const ids = messageIdsOf(res);
  expect(ids.length, `${label}: results[*].messageId names the accepted message(s); body ${res.text.slice(0, 300)}`).toBeGreaterThan(0);
  expect(reportsQueued(res), `${label}: the answer reports QUEUED (a property of the answer, or of each result item with a messageId, whose value is QUEUED); body ${res.text.slice(0, 300)}`).toBe(true);
  return ids;
}

/**
 * A send that test `id` needs accepted before it can check its own requirement (the sends of the
 * webhook, idempotency and stray-callback checks). Its not being accepted and queued is SEND-008's
 * failure (a valid send is accepted with QUEUED), not the test's: the test stops before its own
 * check and is not run for it (INTERPRETING.md, Which requirement a failure counts against), so
 * one broken acceptance is one failure, not one for every test that needed a send.
 */
export function expectQueuedFor(res: ApiResponse, id: RequirementLabel, what = 'the send'): string[] {
  return expectQueued(res, `SEND-008: ${what} ${id} needs`);
}

/**
 * The reference profile's promise that a rejection does not claim its key (IDEM-203): the
 * corrected payload sent with the SAME key is answered as a first attempt, accepted and
 * queued. A server that stores rejections (the draft allows it) answers a replay or a
 * conflict instead, which is why this is a profile check and not the document's.
 */
export async function expectCorrectedRetryIsFirstAttempt(api: ApiClient, key: string, corrected: unknown, id: RequirementLabel): Promise<string[]> {
  const retry = await send(api, key, corrected);
  return expectQueued(retry, `${id}: after the rejection, the corrected payload with the same key is answered as a first attempt`);
}

/** True when `value` holds `needle` as a string anywhere inside it (a key's value, an array element). */
export function mentions(value: unknown, needle: string): boolean {
  if (typeof value === 'string') return value === needle;
  if (Array.isArray(value)) return value.some((v) => mentions(v, needle));
  if (value && typeof value === 'object') return Object.values(value).some((v) => mentions(v, needle));
  return false;
}

/**
 * A number of `role`'s own it can send an SMS from: `preferred` when its list shows it with a
 * campaignregId and SMS not turned off (or shows neither), else the first that is so; the test
 * is not testable when the list has none.
 */
export async function sendableNumberOf(api: ApiClient, role: 'secondary', preferred: string): Promise<string> {
  const records = await readNumbers(api, role);
  const sendable = (n: NumberRecord) => n.campaignregId !== null && n.campaignregId !== '' && n.smsEnabled !== false;
  const mine = records.find((n) => n.numberId === preferred);
  if (mine === undefined || sendable(mine)) return preferred;
  const other = records.find(sendable);
  if (!other) notTestable(`the ${role} client lists no number with a campaignregId and SMS on to send from (numbers.foreign, ${preferred}, has none)`);
  return other.numberId;
}

/** A client the config names besides the primary and the secondary, ready to send from a number of its own. */
export interface OtherSender {
  /** Where the config names it: clients.special, triggers.expireToken.client. */
  name: string;
  numberId: string;
  send(key: string, json: unknown): Promise<ApiResponse>;
}

/**
 * The other clients the config names (the special client, the short-lived-token client of
 * triggers.expireToken), each with a number its own list shows able to send an SMS: the senders
 * of the cross-tenant checks, since a server may route a client's outcomes wrong only for a client
 * that has no webhook of its own. A client that is the primary or the secondary again, whose token
 * or list is refused, or that lists no such number is left out: its own checks judge those.
 */
export async function otherSenders(api: ApiClient, target: Target): Promise<OtherSender[]> {
  const taken = new Set([target.clients.primary.clientId, target.clients.secondary?.clientId]);
  const senders: OtherSender[] = [];
  const special = target.clients.special;
  if (special !== undefined && !taken.has(special.clientId)) {
    taken.add(special.clientId);
    const numberId = (await readNumbers(api, 'special').catch(() => [])).find(canSendSms)?.numberId;
    if (numberId !== undefined) senders.push({ name: 'clients.special', numberId, send: (key, json) => send(api, key, json, 'special') });
  }
  const brief = target.triggers.expireToken;
  if (brief?.kind === 'wait' && !taken.has(brief.client.clientId)) {
    const issued = await api.call('token', { form: { grant_type: 'client_credentials', client_id: brief.client.clientId, client_secret: brief.client.clientSecret } });
    const token: unknown = issued.body?.access_token;
    if (issued.status < 300 && typeof token === 'string' && token !== '') {
      const numberId = (await readNumbers(api, { bearer: token, name: 'triggers.expireToken' }).catch(() => [])).find(canSendSms)?.numberId;
      const headers = (key: string) => ({ authorization: `Bearer ${token}`, 'idempotency-key': key });
      if (numberId !== undefined) senders.push({ name: 'triggers.expireToken.client', numberId, send: (key, json) => api.call('send', { as: 'none', headers: headers(key), json }) });
    }
  }
  return senders;
}
