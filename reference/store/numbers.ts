import type { Db } from '../db/open.ts';

export interface NumberSettings {
  campaignregId: string | null;
  smsEnabled: boolean;
  mmsEnabled: boolean;
  webhookInboundOverride: string | null;
  webhookDeliveryOverride: string | null;
}

export interface NumberRecord extends NumberSettings {
  numberId: string;
  apiClientId: string;
  phoneNumber: string;
}

type NumberRow = Omit<NumberRecord, 'smsEnabled' | 'mmsEnabled'> & { smsEnabled: number; mmsEnabled: number };

const COLUMNS = `number_id AS numberId, api_client_id AS apiClientId, phone_number AS phoneNumber,
  campaignreg_id AS campaignregId, sms_enabled AS smsEnabled, mms_enabled AS mmsEnabled,
  webhook_inbound_override AS webhookInboundOverride, webhook_delivery_override AS webhookDeliveryOverride`;

function fromRow(row: NumberRow | undefined): NumberRecord | undefined {
  return row && { ...row, smsEnabled: row.smsEnabled === 1, mmsEnabled: row.mmsEnabled === 1 };
}

/**
 * The number record as the API shows it (profile numbers.record: every field always present,
 * NUM-201), the campaign registration spelt campaignregId (NUM-005).
 */
export function numberJson(record: NumberRecord) {
  return {
    numberId: record.numberId,
    phoneNumber: record.phoneNumber,
    campaignregId: record.campaignregId,
    smsEnabled: record.smsEnabled,
    mmsEnabled: record.mmsEnabled,
    webhookInboundOverride: record.webhookInboundOverride,
    webhookDeliveryOverride: record.webhookDeliveryOverride,
  };
}

// Every send looks its sendFrom number up. Numbers change only through the writer, which calls
// forgetCached() once such a change is committed, so the main thread can keep them in memory.
// The writer thread's own store caches too (an update reads the number it changes), so a store
// forgets a number as it writes it: the next update there starts from what was stored, not from
// the number as it first read it.
const NUMBER_CACHE_LIMIT = 10_000;

export class NumberStore {
  private readonly cache = new Map<string, NumberRecord>();
  private readonly listStmt;
  private readonly ownedStmt;
  private readonly byIdStmt;
  private readonly byPhoneStmt;
  private readonly phonesStmt;
  /** Every phone number of the service, loaded on first use; dropped whenever numbers may have changed. */
  private phoneNumbers: ReadonlySet<string> | undefined;
  private readonly insertStmt;
  private readonly updateStmt;

  constructor(db: Db) {
    this.listStmt = db.prepare<[string], NumberRow>(`SELECT ${COLUMNS} FROM numbers WHERE api_client_id = ? ORDER BY position, number_id`);
    this.ownedStmt = db.prepare<[string, string], NumberRow>(`SELECT ${COLUMNS} FROM numbers WHERE api_client_id = ? AND number_id = ?`);
    this.byIdStmt = db.prepare<[string], NumberRow>(`SELECT ${COLUMNS} FROM numbers WHERE number_id = ?`);
    this.byPhoneStmt = db.prepare<[string], NumberRow>(`SELECT ${COLUMNS} FROM numbers WHERE phone_number = ?`);
    this.phonesStmt = db.prepare<[], string>('SELECT phone_number FROM numbers').pluck();
    this.insertStmt = db.prepare(
      `INSERT INTO numbers (number_id, api_client_id, phone_number, campaignreg_id, sms_enabled, mms_enabled,
         webhook_inbound_override, webhook_delivery_override, position)
       VALUES (@numberId, @apiClientId, @phoneNumber, @campaignregId, @smsEnabled, @mmsEnabled,
         @webhookInboundOverride, @webhookDeliveryOverride, @position)`,
    );
    this.updateStmt = db.prepare(
      `UPDATE numbers SET campaignreg_id = @campaignregId, sms_enabled = @smsEnabled, mms_enabled = @mmsEnabled,
         webhook_inbound_override = @webhookInboundOverride, webhook_delivery_override = @webhookDeliveryOverride
       WHERE number_id = @numberId`,
    );
  }

  listForClient(apiClientId: string): NumberRecord[] {
    return this.listStmt.all(apiClientId).map((row) => fromRow(row)!);
  }

  /**
   * A number of this client; another client's number is indistinguishable from a missing one.
   * A listed numberId is what a send's sendFrom names (NUM-002).
   */
  findOwned(apiClientId: string, numberId: string): NumberRecord | undefined {
    const cached = this.cache.get(numberId);
    if (cached) return cached.apiClientId === apiClientId ? cached : undefined;
    const number = fromRow(this.ownedStmt.get(apiClientId, numberId));
    if (number) {
      if (this.cache.size >= NUMBER_CACHE_LIMIT) this.cache.clear();
      this.cache.set(numberId, number);
    }
    return number;
  }

  /** Called after a committed write that changed numbers. */
  forgetCached(): void {
    this.cache.clear();
    this.phoneNumbers = undefined;
  }

  byId(numberId: string): NumberRecord | undefined {
    return fromRow(this.byIdStmt.get(numberId));
  }

  byPhoneNumber(phoneNumber: string): NumberRecord | undefined {
    return fromRow(this.byPhoneStmt.get(phoneNumber));
  }

  /** Whether a phone number is one of the service's numbers, from memory: a send asks it of every recipient (send/loopback.ts). */
  isServiceNumber(phoneNumber: string): boolean {
    this.phoneNumbers ??= new Set(this.phonesStmt.all());
    return this.phoneNumbers.has(phoneNumber);
  }

  insert(record: NumberRecord, position: number): void {
    this.phoneNumbers = undefined;
    this.insertStmt.run({ ...record, smsEnabled: Number(record.smsEnabled), mmsEnabled: Number(record.mmsEnabled), position });
  }

  update(numberId: string, settings: NumberSettings): void {
    this.cache.delete(numberId);
    this.updateStmt.run({ numberId, ...settings, smsEnabled: Number(settings.smsEnabled), mmsEnabled: Number(settings.mmsEnabled) });
  }
}
