import { chmodSync, closeSync, existsSync, openSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { SCHEMA_SQL } from './schema.ts';

export type Db = Database.Database;

export interface OpenOptions {
  path: string;
  fresh: boolean;
  synchronous: 'FULL' | 'NORMAL';
}

/**
 * The database holds every client's webhook secret in clear (the server signs with it) and the
 * hashes of client secrets and tokens: only the server's own user may read it. The file is
 * created 0600 before SQLite opens it, and SQLite gives the -wal and -shm files it creates the
 * mode of the database file; files left by an older start are narrowed to 0600 as well.
 */
export function ownerOnly(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(path + suffix)) chmodSync(path + suffix, 0o600);
}

/** Brings a database made by an older version up to the schema (CREATE TABLE IF NOT EXISTS adds no column). */
function migrate(db: Db): void {
  const columns = db.pragma('table_info(messages)') as Array<{ name: string }>;
  if (!columns.some((column) => column.name === 'content_id')) db.exec('ALTER TABLE messages ADD COLUMN content_id TEXT');
}

export function openDatabase({ path, fresh, synchronous }: OpenOptions): Db {
  const inMemory = path === ':memory:';
  if (fresh && !inMemory) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  }
  if (!inMemory) ownerOnly(path);
  const db = new Database(path);
  // WAL lets reads proceed during a commit; FULL makes every commit survive power loss,
  // which is the point of answering QUEUED only after the commit.
  if (!inMemory) db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('foreign_keys = ON');
  // Checkpoint less often: each checkpoint copies the WAL into the database and fsyncs it inside
  // a commit, which stalls every request of that batch.
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA_SQL);
  migrate(db);
  return db;
}
