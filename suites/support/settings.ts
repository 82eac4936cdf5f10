import { randomInt } from 'node:crypto';
import type { ApiClient, ClientRole } from '../../harness/api-client.ts';
import type { Target } from '../../harness/config.ts';
import { expect, notTestable } from '../../harness/fixtures.ts';
import { readNumbers, type KnownNumbers, type NumberRecord } from '../../harness/known-numbers.ts';

/**
 * The settable attributes of a number (sections 2 and 4.5), and the numbers and values the
 * suites that change them use: the update area, and the model area's decision tables and
 * invariance checks.
 */

/** The settable attributes of section 2 / 4.5. */
export const SETTABLE_FIELDS = ['campaignregId', 'smsEnabled', 'mmsEnabled', 'webhookInboundOverride', 'webhookDeliveryOverride'] as const;
export type SettableField = (typeof SETTABLE_FIELDS)[number];
export const NULLABLE_FIELDS = ['campaignregId', 'webhookInboundOverride', 'webhookDeliveryOverride'] as const satisfies readonly SettableField[];
export const BOOLEAN_FIELDS = ['smsEnabled', 'mmsEnabled'] as const satisfies readonly SettableField[];

/**
 * The number update tests change: one the send suites do not rely on when the client has one
 * (not the ordinary SMS or MMS number, and not the number kept without a campaignregId), else
 * the ordinary number. The settings fixture puts every change back either way.
 */
export function scratchNumber(known: KnownNumbers): string {
  const reserved = new Set([known.sms, known.mms, known.withoutCampaign]);
  const id = known.primary.find((n) => !reserved.has(n.numberId))?.numberId ?? known.sms ?? known.primary[0]?.numberId;
  if (!id) notTestable('needs at least one number assigned to the primary client');
  return id!;
}

/**
 * What an update can change of a record, as the list shows it: its numberId and the settable
 * attributes it shows (section 2). Other fields are the vendor's ("not shown"): a modification
 * time or a version may move with any write, a no-op one included, and no rule of the document
 * is about them, so checks of what an update changed compare this.
 */
export function settableOf(record: NumberRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => key === 'numberId' || (SETTABLE_FIELDS as readonly string[]).includes(key)));
}

/** Every number of every client the target config names, as each client's list shows them (section 4.3), by role. */
export async function everyClientsNumbers(api: ApiClient, target: Target): Promise<Record<string, NumberRecord[]>> {
  const roles: ClientRole[] = target.clients.secondary ? ['primary', 'secondary'] : ['primary'];
  return Object.fromEntries(await Promise.all(roles.map(async (role) => [role, await readNumbers(api, role)] as const)));
}

/** The current record of a number as the list shows it (section 4.3). */
export async function recordOf(api: ApiClient, numberId: string, as: ClientRole = 'primary', requirement = 'NUM-001'): Promise<NumberRecord> {
  const record = (await readNumbers(api, as)).find((n) => n.numberId === numberId);
  expect(record, `${requirement}: number ${numberId} is in the ${as} client's numbers list`).toBeDefined();
  return record!;
}

/**
 * A value for `field` that differs from `current` and that a conforming server accepts:
 * booleans are flipped, webhook targets are URLs of the harness's own receiver (so a callback
 * sent there meanwhile lands somewhere harmless), and campaignregId takes another of the
 * client's registrations where there is one, since a server may accept only registered ones.
 */
export function differentValue(field: SettableField, current: unknown, known: KnownNumbers, url: () => string): unknown {
  switch (field) {
    case 'smsEnabled':
    case 'mmsEnabled':
      return current !== true;
    case 'webhookInboundOverride':
    case 'webhookDeliveryOverride':
      return url();
    case 'campaignregId': {
      const other = known.primary.map((n) => n.campaignregId).find((c) => typeof c === 'string' && c !== '' && c !== current);
      return other ?? `CONFTEST${randomInt(1000, 9999)}`;
    }
  }
}
