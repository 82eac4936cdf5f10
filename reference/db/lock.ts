import { dirname, basename, join } from 'node:path';
import { realpathSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ownerOnly } from './open.ts';

/** Held while the server runs; release() lets another server open the database. */
export interface DatabaseLock {
  /** The database file's own path, every link in the given one resolved: the path to open it by. */
  readonly path: string;
  release(): void;
}

/**
 * The database file's one name: the given path with every symbolic link, `.` and `..` resolved,
 * so that any spelling of the path and any symbolic link to the file (or to a folder on the way)
 * comes to the same name. The file is created (0600) when it does not exist yet. A file with a
 * second name, a hard link, is refused: a server opening it by that name would take a lock of its
 * own, and SQLite keeps the -wal and -shm files beside the name a database is opened by, so two
 * servers would write one database through two write-ahead logs (SQLite itself warns of "multiple
 * links to file").
 */
function databaseFile(path: string): string {
  ownerOnly(path);
  const real = realpathSync(path);
  const { nlink } = statSync(real);
  if (nlink > 1) {
    throw new Error(`the database ${path} has ${nlink} names (hard links to one file); a server opening it by another name would not see this one's lock, and its write-ahead log would be another file: remove the other links, or copy the file`);
  }
  return real;
}

/**
 * One server per database file. Tokens and numbers are cached in memory and the outbox and the
 * carrier resume at start, so two servers on one file would diverge: a token expired through one
 * stays valid on the other, a number's changed settings are not seen, and both deliver the same
 * pending webhooks. A second server therefore refuses to start, whatever path it names the file
 * by: a symbolic link, a hard link or another spelling of the path.
 *
 * The lock is an exclusive SQLite lock on a small file beside the database's own name
 * (FILE-lock), held by a connection in exclusive locking mode for the life of the server. It is an
 * fcntl lock, so the operating system releases it when the process ends, however it ends: a
 * restart after a crash (kill -9) is never refused.
 */
export function lockDatabase(path: string): DatabaseLock {
  const real = databaseFile(path);
  const lockPath = join(dirname(real), `${basename(real)}-lock`);
  const named = real === path ? path : `${path} (${real})`;
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
      throw new Error(`the database ${named} is in use by another reference server (${lockPath} is locked); stop that server first, or give this one its own --db`);
    }
    throw error;
  }
  return { path: real, release: () => db.close() };
}
