import { randomInt } from 'node:crypto';
import type { ApiClient, ClientRole } from './api-client.ts';
import { itemsAt, type Target } from './config.ts';

export interface NumberRecord {
  numberId: string;
  campaignregId?: string | null;
  smsEnabled?: boolean;
  mmsEnabled?: boolean;
  webhookInboundOverride?: string | null;
  webhookDeliveryOverride?: string | null;
  [other: string]: unknown;
}

/** Whether a listed number can send an SMS as far as the list shows: a campaignregId (rule 5) and SMS not turned off. */
export function canSendSms(n: { campaignregId?: unknown; smsEnabled?: unknown }): boolean {
  return typeof n.campaignregId === 'string' && n.campaignregId !== '' && n.smsEnabled !== false;
}

/** The numbers the suites send from, chosen from the config or discovered from the list: a worker's share. */
export interface KnownNumbers {
  /** The primary client's numbers this worker's tests use: its share of numbers.pool, or the whole list without one. */
  primary: NumberRecord[];
  /** Every number of the primary client's list (its own phone numbers, which no test sends to by chance). */
  all: NumberRecord[];
  /** With a campaignregId and SMS not disabled: the number ordinary sends use. */
  sms?: string;
  /** With a campaignregId and MMS enabled. */
  mms?: string;
  /** A primary number with no campaignregId, if the target has one. */
  withoutCampaign?: string;
  /** A number owned by the secondary client. */
  foreign?: string;
  /** The numbers of the share, each client's: what a test that uses them locks (harness/run-lock.ts). */
  share: Array<{ role: 'primary' | 'secondary'; numberId: string }>;
}

/** The numbers list of one client, through the target's envelope (routes.numbers.itemsPath). */
export async function readNumbers(api: ApiClient, as: ClientRole | { bearer: string; name: string } = 'primary'): Promise<NumberRecord[]> {
  const res = await api.call('numbers', typeof as === 'string' ? { as } : { as: 'none', headers: { authorization: `Bearer ${as.bearer}` } });
  if (res.status >= 300) throw new Error(`cannot list the ${typeof as === 'string' ? as : as.name} client's numbers: ${res.describe()} ${res.text.slice(0, 200)}`);
  const path = api.target.routes.numbersItemsPath;
  return itemsAt(res.body, path) as NumberRecord[];
}

/** The numbers a set of records offers the suites: which one sends SMS, MMS, has no campaignregId, and the others. */
function chosen(records: readonly NumberRecord[], pinned: { sms?: string | undefined; mms?: string | undefined }): Pick<KnownNumbers, 'sms' | 'mms' | 'withoutCampaign'> & { secondSms?: string; scratch?: string } {
  const withCampaign = records.filter((n) => typeof n.campaignregId === 'string' && n.campaignregId !== '');
  const sms = pinned.sms ?? withCampaign.find((n) => n.smsEnabled !== false)?.numberId;
  const mms = pinned.mms ?? withCampaign.find((n) => n.mmsEnabled === true)?.numberId;
  const withoutCampaign = records.find((n) => n.campaignregId === null)?.numberId;
  // What the suites' helpers pick besides (suites/support): a second number that sends SMS, a scratch number none of the above.
  const secondSms = withCampaign.find((n) => n.numberId !== sms && n.smsEnabled !== false)?.numberId;
  const scratch = records.find((n) => ![sms, mms, withoutCampaign].includes(n.numberId))?.numberId;
  return { sms, mms, withoutCampaign, ...(secondSms !== undefined && { secondSms }), ...(scratch !== undefined && { scratch }) };
}

/** What a number offers a test: a campaignregId or none, SMS, MMS. Two numbers of one kind serve alike. */
function kindOf(n: NumberRecord): string {
  return JSON.stringify([typeof n.campaignregId === 'string' && n.campaignregId !== '' ? 'campaign' : n.campaignregId === null ? 'none' : 'unshown', n.smsEnabled ?? 'unshown', n.mmsEnabled ?? 'unshown']);
}

/**
 * The pool split into as many shares as it allows, at most `slots`: each share has a number of
 * the same kind for every number the suites would pick from the whole pool (chosen()), so a
 * test finds in its share what it would find in the pool, and no test becomes not testable for
 * want of a number another share holds. Numbers `avoid` names (the inbound trigger's number,
 * which tests lock on its own) are kept out of the shares when the rest still allows one.
 * Numbers left over are dealt to the shares in turn. Empty: the pool offers no share at all.
 */
export function spreadPool(pool: readonly NumberRecord[], slots: number, avoid: ReadonlySet<string> = new Set()): NumberRecord[][] {
  const picked = chosen(pool, {});
  const needed = [...new Set([picked.sms, picked.mms, picked.withoutCampaign, picked.secondSms, picked.scratch].filter((id): id is string => id !== undefined))].map((id) => pool.find((n) => n.numberId === id)!);
  if (needed.length === 0) return [];
  const attempt = (candidates: readonly NumberRecord[], k: number): NumberRecord[][] | null => {
    const free = [...candidates];
    const shares: NumberRecord[][] = [];
    for (let s = 0; s < k; s++) {
      const share: NumberRecord[] = [];
      for (const want of needed) {
        const at = free.findIndex((n) => kindOf(n) === kindOf(want));
        if (at < 0) return null;
        share.push(...free.splice(at, 1));
      }
      shares.push(share);
    }
    free.forEach((n, i) => shares[i % k]!.push(n));
    return shares;
  };
  const kept = pool.filter((n) => !avoid.has(n.numberId));
  for (let k = Math.max(1, slots); k >= 1; k--) {
    const shares = attempt(kept, k) ?? attempt(pool, k);
    if (shares) return shares;
  }
  return [];
}

/**
 * The numbers of worker `slot` of `slots`. With numbers.pool in the config, the pool is spread
 * (spreadPool) and the worker takes share slot mod the number of shares, with a number of the
 * secondary client's pool of its own where there are enough; otherwise every worker uses the
 * whole list, as a run of one worker does. The inbound trigger's number stays out of the shares
 * where the pool allows.
 */
export async function discoverNumbers(api: ApiClient, target: Target, slot = 0, slots = 1): Promise<KnownNumbers> {
  const all = await readNumbers(api, 'primary');
  const secondary = target.clients.secondary ? await readNumbers(api, 'secondary') : [];
  const pool = target.numbers.pool;
  const inPool = (records: NumberRecord[], ids: readonly string[] | undefined) => (ids === undefined ? [] : ids.flatMap((id) => records.filter((n) => n.numberId === id)));
  const inbound = target.triggers.inbound?.kind === 'loopback' ? target.triggers.inbound.to : undefined;
  const avoid = new Set(all.filter((n) => inbound !== undefined && (n.numberId === inbound.numberId || Object.values(n).includes(inbound.phoneNumber))).map((n) => n.numberId));
  const shares = pool?.primary ? spreadPool(inPool(all, pool.primary), slots, avoid) : [];
  const primary = shares.length > 0 ? shares[slot % shares.length]! : all;
  const foreignPool = inPool(secondary, pool?.secondary);
  // Without a pool of its own, a share takes the secondary's pool in turn (or the list's first number).
  const foreign = target.numbers.foreign ?? (foreignPool.length > 0 ? foreignPool[slot % foreignPool.length]!.numberId : secondary[0]?.numberId);
  const picked = chosen(primary, { sms: target.numbers.sms, mms: target.numbers.mms });
  const share = [
    ...new Set([...primary.map((n) => n.numberId), ...[target.numbers.sms, target.numbers.mms].filter((id): id is string => id !== undefined)]),
  ].map((numberId) => ({ role: 'primary' as const, numberId }));
  return {
    primary,
    all,
    sms: picked.sms,
    mms: picked.mms,
    withoutCampaign: picked.withoutCampaign,
    foreign,
    share: [...share, ...(foreign !== undefined ? [{ role: 'secondary' as const, numberId: foreign }] : [])],
  };
}

/**
 * A numberId the target never issued, shaped like `like` (same length, prefix and character
 * classes), so a server cannot tell it from a real one by its form.
 */
export function unknownNumberIdLike(like: string): string {
  const cut = like.lastIndexOf('_') + 1;
  const swap = (c: string): string => {
    if (/[0-9]/.test(c)) return String((Number(c) + 1 + randomInt(8)) % 10);
    if (/[a-f]/.test(c)) return 'abcdef'[('abcdef'.indexOf(c) + 1 + randomInt(5)) % 6]!;
    if (/[a-z]/.test(c)) return String.fromCharCode(97 + ((c.charCodeAt(0) - 97 + 1 + randomInt(25)) % 26));
    if (/[A-Z]/.test(c)) return String.fromCharCode(65 + ((c.charCodeAt(0) - 65 + 1 + randomInt(25)) % 26));
    return c;
  };
  return like.slice(0, cut) + [...like.slice(cut)].map(swap).join('');
}
