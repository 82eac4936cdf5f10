import type { ApiClient, ClientRole } from './api-client.ts';
import { readNumbers, type NumberRecord } from './known-numbers.ts';
import { notTestable } from './verdicts.ts';

type Settings = Partial<Pick<NumberRecord, 'campaignregId' | 'smsEnabled' | 'mmsEnabled' | 'webhookInboundOverride' | 'webhookDeliveryOverride'>>;

/**
 * Changes number settings for a test and puts every changed field back afterwards, even when
 * the test fails: a certification run must leave a vendor's numbers as it found them. Only a
 * field the numbers list shows can be put back (the document shows no other way to read it,
 * and no field of the record but numberId for certain), so a change of a field the list does
 * not show is not made: the test is not testable here, and nothing is overwritten with a guess.
 */
export class SettingsGuard {
  private readonly originals = new Map<string, { as: ClientRole; values: Settings }>();

  constructor(private readonly api: ApiClient) {}

  /** PATCH-like update through the target's update route; remembers the old values first. */
  async change(numberId: string, patch: Settings, as: ClientRole = 'primary') {
    const key = `${as}:${numberId}`;
    const before = (await readNumbers(this.api, as)).find((n) => n.numberId === numberId);
    if (!before) throw new Error(`number ${numberId} is not in the ${as} client's numbers list`);
    const hidden = Object.keys(patch).filter((field) => !(field in before));
    if (hidden.length > 0) notTestable(`the numbers list does not show ${hidden.join(', ')} of number ${numberId}, so a change of it could not be put back after the test`);
    const saved = this.originals.get(key) ?? { as, values: {} };
    for (const field of Object.keys(patch) as Array<keyof Settings>) {
      if (!(field in saved.values)) (saved.values as Record<string, unknown>)[field] = before[field];
    }
    this.originals.set(key, saved);
    return this.api.call('update', { params: { numberId }, json: patch, as });
  }

  /**
   * Remember a number's settable fields as `record` shows them, so that restore() puts them
   * back, for a test that changes them itself (with requests the guard does not make, refused
   * ones among them) and reads the list before it starts.
   */
  remember(record: NumberRecord, as: ClientRole = 'primary'): void {
    const key = `${as}:${record.numberId}`;
    const saved = this.originals.get(key) ?? { as, values: {} };
    for (const field of ['campaignregId', 'smsEnabled', 'mmsEnabled', 'webhookInboundOverride', 'webhookDeliveryOverride'] as const) {
      if (field in record && !(field in saved.values)) (saved.values as Record<string, unknown>)[field] = record[field];
    }
    this.originals.set(key, saved);
  }

  async restore(): Promise<void> {
    const failures: string[] = [];
    for (const [key, { as, values }] of this.originals) {
      const numberId = key.slice(as.length + 1);
      const res = await this.api.call('update', { params: { numberId }, json: values, as }).catch((e: Error) => e);
      if (res instanceof Error || res.status >= 300) failures.push(`${numberId}: ${res instanceof Error ? res.message : res.describe()}`);
    }
    this.originals.clear();
    if (failures.length) throw new Error(`could not restore number settings:\n  ${failures.join('\n  ')}`);
  }
}
