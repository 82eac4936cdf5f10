// One run writes a report folder at a time. Two runs writing the same ./conformance-report would
// leave a report that is half of each; the second is refused before it sends anything. The lock
// is a file in the folder naming the process that holds it: a lock whose process is gone (a run
// killed with SIGKILL) is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = '.conformance-run.lock';

interface Holder {
  pid: number;
  host: string;
  since: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Take the folder's lock, or say who holds it. The lock goes when this process exits. */
export function lockReportFolder(dir: string): { held: true } | { held: false; by: string } {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK_FILE);
  const me: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(me), { flag: 'wx' });
      process.on('exit', () => rmSync(file, { force: true }));
      return { held: true };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    let holder: Holder | null = null;
    try {
      holder = JSON.parse(readFileSync(file, 'utf8')) as Holder;
    } catch {
      holder = null;
    }
    // Another machine's run (a shared folder) cannot be checked: it holds the lock.
    if (holder && (holder.host !== me.host || alive(holder.pid))) return { held: false, by: `process ${holder.pid} on ${holder.host}, since ${holder.since}` };
    rmSync(file, { force: true });
  }
  return { held: false, by: 'another process that took it at the same moment' };
}
