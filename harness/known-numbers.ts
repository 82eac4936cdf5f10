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

/** The numbers the suites send from, chosen from the config or discovered from the list. */
export interface KnownNumbers {
  primary: NumberRecord[];
  /** With a campaignregId and SMS not disabled: the number ordinary sends use. */
  sms?: string;
  /** With a campaignregId and MMS enabled. */
  mms?: string;
  /** A primary number with no campaignregId, if the target has one. */
  withoutCampaign?: string;
  /** A number owned by the secondary client. */
  foreign?: string;
}

/** The numbers list of one client, through the target's envelope (routes.numbers.itemsPath). */
export async function readNumbers(api: ApiClient, as: ClientRole = 'primary'): Promise<NumberRecord[]> {
  const res = await api.call('numbers', { as });
  if (res.status >= 300) throw new Error(`cannot list the ${as} client's numbers: ${res.describe()} ${res.text.slice(0, 200)}`);
  const path = api.target.routes.numbersItemsPath;
  return itemsAt(res.body, path) as NumberRecord[];
}

export async function discoverNumbers(api: ApiClient, target: Target): Promise<KnownNumbers> {
  const primary = await readNumbers(api, 'primary');
  const withCampaign = primary.filter((n) => typeof n.campaignregId === 'string' && n.campaignregId !== '');
  const secondary = target.clients.secondary ? await readNumbers(api, 'secondary') : [];
  return {
    primary,
    sms: target.numbers.sms ?? withCampaign.find((n) => n.smsEnabled !== false)?.numberId,
    mms: target.numbers.mms ?? withCampaign.find((n) => n.mmsEnabled === true)?.numberId,
    withoutCampaign: primary.find((n) => n.campaignregId === null)?.numberId,
    foreign: target.numbers.foreign ?? secondary[0]?.numberId,
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
