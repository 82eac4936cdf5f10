import Database from 'better-sqlite3';
import { ownerOnly } from './open.ts';

/** Held while the server runs; release() lets another server open the database. */
export interface DatabaseLock {
  release(): void;
}

/**
 * One server per database file. Tokens and numbers are cached in memory and the outbox and the
 * carrier resume at start, so two servers on one file would diverge: a token expired through one
 * stays valid on the other, a number's changed settings are not seen, and both deliver the same
 * pending webhooks. A second server therefore refuses to start.
 *
 * The lock is an exclusive SQLite lock on a small file beside the database (FILE-lock), held by
 * a connection in exclusive locking mode for the life of the server. It is an fcntl lock, so
 * the operating system releases it when the process ends, however it ends: a restart after a
 * crash (kill -9) is never refused.
 */
export function lockDatabase(path: string): DatabaseLock {
  const lockPath = `${path}-lock`;
  ownerOnly(lockPath);
  const db = new Database(lockPath, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the exclusive lock, and exclusive locking mode keeps it until close.
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL); DELETE FROM holder;');
    db.prepare('INSERT INTO holder (pid) VALUES (?)').run(process.pid);
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new Error(`the database ${path} is in use by another reference server (${lockPath} is locked); stop that server first, or give this one its own --db`);
    }
    throw error;
  }
  return { release: () => db.close() };
}
