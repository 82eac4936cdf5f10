import type { Db } from '../db/open.ts';

export interface ClientRecord {
  apiClientId: string;
  clientId: string;
  role: string | null;
  name: string;
  status: string;
  capabilities: string[];
  secretHash: string;
  webhookSecret: string;
  deliveryWebhookUrl: string | null;
  inboundWebhookUrl: string | null;
}

type ClientRow = Omit<ClientRecord, 'capabilities'> & { capabilities: string };

// Tokens are looked up on every core request. Tokens only ever lose lifetime (expiry, reset),
// and every such write goes through the writer, which calls forgetCachedTokens() once it is
// committed; so a cached entry is as good as the row until then. The bound only caps memory.
const TOKEN_CACHE_LIMIT = 10_000;

const COLUMNS = `api_client_id AS apiClientId, client_id AS clientId, role, name, status, capabilities,
  secret_hash AS secretHash, webhook_secret AS webhookSecret,
  delivery_webhook_url AS deliveryWebhookUrl, inbound_webhook_url AS inboundWebhookUrl`;

function fromRow(row: ClientRow | undefined): ClientRecord | undefined {
  return row && { ...row, capabilities: JSON.parse(row.capabilities) as string[] };
}

export class ClientStore {
  private readonly byClientIdStmt;
  private readonly byApiClientIdStmt;
  private readonly byTokenStmt;
  private readonly insertStmt;
  private readonly updateSecretStmt;
  private readonly updateSeedStmt;
  private readonly setWebhooksStmt;
  private readonly setStatusStmt;
  private readonly tokenCache = new Map<string, { client: ClientRecord; expiresAt: number }>();

  constructor(db: Db) {
    this.byClientIdStmt = db.prepare<[string], ClientRow>(`SELECT ${COLUMNS} FROM clients WHERE client_id = ?`);
    this.byApiClientIdStmt = db.prepare<[string], ClientRow>(`SELECT ${COLUMNS} FROM clients WHERE api_client_id = ?`);
    this.byTokenStmt = db.prepare<[string, number], ClientRow & { expiresAt: number }>(
      `SELECT ${COLUMNS}, expires_at AS expiresAt FROM tokens JOIN clients USING (api_client_id) WHERE token_hash = ? AND expires_at > ?`,
    );
    this.insertStmt = db.prepare(
      `INSERT INTO clients (api_client_id, client_id, role, name, status, capabilities, secret_hash, webhook_secret,
         delivery_webhook_url, inbound_webhook_url, position)
       VALUES (@apiClientId, @clientId, @role, @name, @status, @capabilities, @secretHash, @webhookSecret,
         @deliveryWebhookUrl, @inboundWebhookUrl, @position)`,
    );
    this.updateSecretStmt = db.prepare('UPDATE clients SET secret_hash = ? WHERE api_client_id = ?');
    this.updateSeedStmt = db.prepare(
      `UPDATE clients SET role = @role, name = @name, status = @status, capabilities = @capabilities,
         webhook_secret = @webhookSecret, position = @position WHERE api_client_id = @apiClientId`,
    );
    this.setWebhooksStmt = db.prepare(
      'UPDATE clients SET delivery_webhook_url = @delivery, inbound_webhook_url = @inbound WHERE api_client_id = @apiClientId',
    );
    this.setStatusStmt = db.prepare('UPDATE clients SET status = @status WHERE api_client_id = @apiClientId');
  }

  byClientId(clientId: string): ClientRecord | undefined {
    return fromRow(this.byClientIdStmt.get(clientId));
  }

  byApiClientId(apiClientId: string): ClientRecord | undefined {
    return fromRow(this.byApiClientIdStmt.get(apiClientId));
  }

  /** The client a live (unexpired) token belongs to. */
  byTokenHash(hash: string, nowMs: number): ClientRecord | undefined {
    const cached = this.tokenCache.get(hash);
    if (cached) {
      if (cached.expiresAt > nowMs) return cached.client;
      this.tokenCache.delete(hash);
      return undefined;
    }
    const row = this.byTokenStmt.get(hash, nowMs);
    if (!row) return undefined;
    const { expiresAt, ...clientRow } = row;
    const client = fromRow(clientRow)!;
    if (this.tokenCache.size >= TOKEN_CACHE_LIMIT) this.tokenCache.clear();
    this.tokenCache.set(hash, { client, expiresAt });
    return client;
  }

  /** Called after a committed write that shortened tokens or changed a client. */
  forgetCachedTokens(): void {
    this.tokenCache.clear();
  }

  /** Control-plane lookups accept either the OAuth client_id or the apiClientId. */
  byEitherId(id: string): ClientRecord | undefined {
    return this.byClientId(id) ?? this.byApiClientId(id);
  }

  insert(record: ClientRecord, position: number): void {
    this.insertStmt.run({ ...record, capabilities: JSON.stringify(record.capabilities), position });
  }

  updateSecretHash(apiClientId: string, secretHash: string): void {
    this.updateSecretStmt.run(secretHash, apiClientId);
  }

  /** Re-applies the descriptive fields of a fixture to an existing client (its settings are kept). */
  updateSeedFields(record: Pick<ClientRecord, 'apiClientId' | 'role' | 'name' | 'status' | 'capabilities' | 'webhookSecret'>, position: number): void {
    this.updateSeedStmt.run({ ...record, capabilities: JSON.stringify(record.capabilities), position });
  }

  setWebhooks(apiClientId: string, delivery: string | null, inbound: string | null): void {
    this.setWebhooksStmt.run({ apiClientId, delivery, inbound });
  }

  setStatus(apiClientId: string, status: string): void {
    this.setStatusStmt.run({ apiClientId, status });
  }
}
