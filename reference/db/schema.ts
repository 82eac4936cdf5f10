// The reference server's tables. Secrets and tokens are stored only as hashes; the webhook
// secret is kept in clear because the server must sign with it.
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS clients (
  api_client_id        TEXT PRIMARY KEY,
  client_id            TEXT NOT NULL UNIQUE,
  role                 TEXT,
  name                 TEXT NOT NULL,
  status               TEXT NOT NULL,
  capabilities         TEXT NOT NULL,
  secret_hash          TEXT NOT NULL,
  webhook_secret       TEXT NOT NULL,
  delivery_webhook_url TEXT,
  inbound_webhook_url  TEXT,
  position             INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS numbers (
  number_id                 TEXT PRIMARY KEY,
  api_client_id             TEXT NOT NULL REFERENCES clients(api_client_id),
  phone_number              TEXT NOT NULL UNIQUE,
  campaignreg_id            TEXT,
  sms_enabled               INTEGER NOT NULL,
  mms_enabled               INTEGER NOT NULL,
  webhook_inbound_override  TEXT,
  webhook_delivery_override TEXT,
  position                  INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS tokens (
  token_hash    TEXT PRIMARY KEY,
  api_client_id TEXT NOT NULL,
  expires_at    INTEGER NOT NULL
) WITHOUT ROWID;

-- messages and webhook_outbox are keyed by time-ordered ids (reference/ids.ts), so a table
-- clustered on its key (WITHOUT ROWID) is appended to at its end like a rowid table, and each
-- insert writes one b-tree instead of the table and a separate index on the key.
CREATE TABLE IF NOT EXISTS messages (
  message_id         TEXT PRIMARY KEY,
  api_client_id      TEXT NOT NULL,
  direction          TEXT NOT NULL,
  number_id          TEXT NOT NULL,
  counterpart        TEXT NOT NULL,
  message_type       TEXT NOT NULL,
  text               TEXT,
  media              TEXT,
  external_reference TEXT,
  content_id         TEXT,
  status             TEXT NOT NULL,
  error_code         TEXT,
  created_at         INTEGER NOT NULL,
  sent_at            INTEGER,
  completed_at       INTEGER
) WITHOUT ROWID;

-- What an outbound send says, once for all its recipients: its messages point here by
-- content_id (text and media are at most 1600 characters and ten 2 KiB URLs, and a send has up
-- to 100 recipients, so a copy per message would write a hundred times what the client sent).
-- messages.text and media hold only inbound texts and outbound rows of older databases.
CREATE TABLE IF NOT EXISTS message_contents (
  content_id   TEXT PRIMARY KEY,
  text         TEXT,
  media        TEXT
) WITHOUT ROWID;

-- A rowid table: clients choose keys at random (UUIDs, as the Idempotency-Key draft suggests), so
-- the key index takes inserts all over; kept apart from the stored answers it stays narrow, and
-- the answers themselves are appended in order.
CREATE TABLE IF NOT EXISTS idempotency (
  api_client_id   TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  fingerprint     TEXT NOT NULL,
  status_code     INTEGER NOT NULL,
  body            TEXT NOT NULL,
  expires_at      INTEGER NOT NULL,
  PRIMARY KEY (api_client_id, idempotency_key)
);
-- The sweeper deletes by expiry; without this index each sweep would read the whole table.
CREATE INDEX IF NOT EXISTS idempotency_expiry ON idempotency(expires_at);

CREATE TABLE IF NOT EXISTS webhook_outbox (
  webhook_id      TEXT PRIMARY KEY,
  api_client_id   TEXT NOT NULL,
  kind            TEXT NOT NULL,
  message_id      TEXT NOT NULL,
  target_url      TEXT,
  payload         TEXT NOT NULL,
  state           TEXT NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  last_result     TEXT,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS webhook_outbox_pending ON webhook_outbox(next_attempt_at) WHERE state = 'pending';
`;
