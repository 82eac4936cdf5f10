import type { Db } from '../db/open.ts';

export interface IdempotencyRecord {
  fingerprint: string;
  statusCode: number;
  body: string;
}

/**
 * Idempotency records, scoped per API client (profile send.idempotencyScope; IDEM-103). Only
 * accepted sends are recorded, so a refused one does not claim its key (IDEM-203).
 */
export class IdempotencyStore {
  private readonly findStmt;
  private readonly claimStmt;
  private readonly purgeStmt;

  constructor(db: Db) {
    this.findStmt = db.prepare<[string, string, number], IdempotencyRecord>(
      `SELECT fingerprint, status_code AS statusCode, body FROM idempotency
       WHERE api_client_id = ? AND idempotency_key = ? AND expires_at > ?`,
    );
    // One statement both checks and stores: keys are random, so each lookup lands on a page of
    // the key index no earlier request touched, and a separate SELECT would walk to it twice.
    // An expired record the sweeper has not removed yet is overwritten; a live one is kept.
    this.claimStmt = db.prepare<[string, string, string, number, string, number, number]>(
      `INSERT INTO idempotency (api_client_id, idempotency_key, fingerprint, status_code, body, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (api_client_id, idempotency_key) DO UPDATE SET fingerprint = excluded.fingerprint,
         status_code = excluded.status_code, body = excluded.body, expires_at = excluded.expires_at
       WHERE idempotency.expires_at <= ?`,
    );
    this.purgeStmt = db.prepare('DELETE FROM idempotency WHERE expires_at <= ?');
  }

  find(apiClientId: string, key: string, nowMs: number): IdempotencyRecord | undefined {
    return this.findStmt.get(apiClientId, key, nowMs);
  }

  /** Stores the record unless the key has a live one; true if it was stored (one winner per key: IDEM-003). */
  claim(apiClientId: string, key: string, record: IdempotencyRecord, expiresAtMs: number, nowMs: number): boolean {
    return this.claimStmt.run(apiClientId, key, record.fingerprint, record.statusCode, record.body, expiresAtMs, nowMs).changes > 0;
  }

  purgeExpired(nowMs: number): number {
    return this.purgeStmt.run(nowMs).changes;
  }
}
