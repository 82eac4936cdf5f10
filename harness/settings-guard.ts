import type { ApiClient, ClientRole } from './api-client.ts';
import { recordError, type Judged, type Judgement } from './judgement.ts';
import { readNumbers, type NumberRecord } from './known-numbers.ts';
import { notTestable } from './verdicts.ts';

const SETTABLE = ['campaignregId', 'smsEnabled', 'mmsEnabled', 'webhookInboundOverride', 'webhookDeliveryOverride'] as const;

/** A number the test holds (its lock), by the client it belongs to. */
export interface HeldNumber {
  role: ClientRole;
  numberId: string;
}

/**
 * Numbers the test did not change moved while it changed others: section 4.5 applies an update
 * to the number its path names (UPD-007). Raised after the guard has put them back too.
 */
export class NeighbourChanged extends Error implements Judged {
  override name = 'NeighbourChanged';
  readonly judgement: Judgement = { kind: 'requirements', ids: ['UPD-007'] };
  constructor(message: string) {
    super(message);
    recordError(this);
  }
}

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
  /** Every held number's settable fields as the lists showed them before the test's first change. */
  private neighbours: Map<string, { as: ClientRole; numberId: string; values: Settings }> | undefined;

  /**
   * `held`: the numbers the test holds alone (the settings fixture's lock). Those the test does
   * not change itself are its neighbours: restore() checks they are as they were (UPD-007) and
   * puts them back if not, so that a server that spreads one number's change to others neither
   * passes nor leaves the later tests, and the vendor's numbers, changed.
   */
  constructor(
    private readonly api: ApiClient,
    private readonly held: readonly HeldNumber[] = [],
    /**
     * The run's target is the bundled reference, started from the harness's own fixtures (its
     * webhook hosts included): a refusal of the harness's receiver as an override is the
     * server's failure then, not a config to fix (suites/support/callbacks.ts pointOverride).
     */
    readonly ownFixtures = false,
  ) {}

  /** PATCH-like update through the target's update route; remembers the old values first. */
  async change(numberId: string, patch: Settings, as: ClientRole = 'primary') {
    const key = `${as}:${numberId}`;
    await this.snapshotNeighbours();
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

  /** The held numbers' fields, read once, before the test's first change through the guard. */
  private async snapshotNeighbours(): Promise<void> {
    if (this.neighbours !== undefined || this.held.length === 0) return;
    this.neighbours = new Map();
    for (const [as, ids] of this.heldByRole()) {
      for (const record of await readNumbers(this.api, as)) {
        if (!ids.has(record.numberId)) continue;
        const values = Object.fromEntries(SETTABLE.filter((f) => f in record).map((f) => [f, record[f]])) as Settings;
        this.neighbours.set(`${as}:${record.numberId}`, { as, numberId: record.numberId, values });
      }
    }
  }

  private heldByRole(): Map<ClientRole, Set<string>> {
    const byRole = new Map<ClientRole, Set<string>>();
    for (const { role, numberId } of this.held) byRole.set(role, (byRole.get(role) ?? new Set()).add(numberId));
    return byRole;
  }

  async restore(): Promise<void> {
    const failures: string[] = [];
    const changed = [...this.originals.keys()];
    for (const [key, { as, values }] of this.originals) {
      const numberId = key.slice(as.length + 1);
      const res = await this.api.call('update', { params: { numberId }, json: values, as }).catch((e: Error) => e);
      if (res instanceof Error || res.status >= 300) failures.push(`${numberId}: ${res instanceof Error ? res.message : res.describe()}`);
    }
    this.originals.clear();
    if (failures.length) throw new Error(`could not restore number settings:\n  ${failures.join('\n  ')}`);
    const moved = await this.restoreNeighbours(changed);
    if (moved.length > 0) {
      throw new NeighbourChanged(
        `UPD-007: while the test updated ${changed.map((k) => k.replace(':', "'s ")).join(', ')}, numbers it did not update changed too (put back since):\n  ${moved.join('\n  ')}`,
      );
    }
  }

  /** Puts back every neighbour that moved; says how each moved. */
  private async restoreNeighbours(changed: readonly string[]): Promise<string[]> {
    const before = this.neighbours;
    this.neighbours = undefined;
    if (before === undefined) return [];
    const moved: string[] = [];
    for (const [as, ids] of this.heldByRole()) {
      const now = new Map((await readNumbers(this.api, as)).map((n) => [n.numberId, n]));
      for (const numberId of ids) {
        const was = before.get(`${as}:${numberId}`);
        if (was === undefined || changed.includes(`${as}:${numberId}`)) continue;
        const record = now.get(numberId);
        const differ = (Object.keys(was.values) as Array<keyof Settings>).filter((f) => JSON.stringify(record?.[f]) !== JSON.stringify(was.values[f]));
        if (differ.length === 0) continue;
        moved.push(`the ${as} client's ${numberId}: ${differ.map((f) => `${f} ${JSON.stringify(was.values[f])} → ${JSON.stringify(record?.[f])}`).join(', ')}`);
        if (record !== undefined) await this.api.call('update', { params: { numberId }, json: was.values, as }).catch(() => undefined);
      }
    }
    return moved;
  }
}
