import type { Db } from '../db/open.ts';

export class TokenStore {
  private readonly insertStmt;
  private readonly expireStmt;
  private readonly purgeStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT INTO tokens (token_hash, api_client_id, expires_at) VALUES (?, ?, ?)');
    this.expireStmt = db.prepare('UPDATE tokens SET expires_at = ? WHERE api_client_id = ? AND expires_at > ?');
    this.purgeStmt = db.prepare('DELETE FROM tokens WHERE expires_at <= ?');
  }

  insert(hash: string, apiClientId: string, expiresAtMs: number): void {
    this.insertStmt.run(hash, apiClientId, expiresAtMs);
  }

  /** Every live token of the client expires now; returns how many did. */
  expireAllFor(apiClientId: string, nowMs: number): number {
    return this.expireStmt.run(nowMs, apiClientId, nowMs).changes;
  }

  purgeExpired(nowMs: number): number {
    return this.purgeStmt.run(nowMs).changes;
  }
}
