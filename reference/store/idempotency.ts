import type { Db } from '../db/open.ts';

export interface IdempotencyRecord {
  fingerprint: string;
  statusCode: number;
  body: string;
}

/** Idempotency records, scoped per API client (profile send.idempotencyScope). */
export class IdempotencyStore {
  private readonly findStmt;
  private readonly insertStmt;
  private readonly purgeStmt;

  constructor(db: Db) {
    this.findStmt = db.prepare<[string, string, number], IdempotencyRecord>(
      `SELECT fingerprint, status_code AS statusCode, body FROM idempotency
       WHERE api_client_id = ? AND idempotency_key = ? AND expires_at > ?`,
    );
    // REPLACE overwrites an expired record that the sweeper has not removed yet.
    this.insertStmt = db.prepare(
      `INSERT OR REPLACE INTO idempotency (api_client_id, idempotency_key, fingerprint, status_code, body, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.purgeStmt = db.prepare('DELETE FROM idempotency WHERE expires_at <= ?');
  }

  find(apiClientId: string, key: string, nowMs: number): IdempotencyRecord | undefined {
    return this.findStmt.get(apiClientId, key, nowMs);
  }

  insert(apiClientId: string, key: string, record: IdempotencyRecord, expiresAtMs: number): void {
    this.insertStmt.run(apiClientId, key, record.fingerprint, record.statusCode, record.body, expiresAtMs);
  }

  purgeExpired(nowMs: number): number {
    return this.purgeStmt.run(nowMs).changes;
  }
}
