// Tests of one run in several workers share one target. A test locks the resources it touches,
// not the run: a number's settings (and so where its callbacks go), the control plane, or, for
// the few tests that read or change every number of every client, everything at once. Tests on
// different resources run at once; a test that touches none (a token request, a bearer check, an
// error probe that names no number) runs beside anything.
//
// So a run with more than one worker has one lock server, in the runner process (the global
// setup) on loopback TCP, that knows every resource by name. A test asks for all it needs at once,
// each resource shared (it reads it, or relies on it staying as it is) or exclusive (it changes
// it), and is granted all of them together or none: nobody waits while holding, so two tests
// cannot deadlock. A fixture that adds to what its test needs trades the test's hold for the
// larger one before the test body runs (release, then wait for all of it); nothing is observed in
// between, since fixtures only set up. Everything (`*`) is one more resource, locked with
// intention: a hold on a single resource also holds `*` in intention of the same mode, so a test
// that holds everything shared waits for every test that changes something and lets readers
// through, and one that holds everything exclusively waits for every test that holds any resource
// (multiple-granularity locking, Gray et al. 1976). Grants go first come, first served among
// requests that conflict: a request is granted when it is compatible with every hold and with
// every request that came before it and still waits, so readers do not starve a waiting writer,
// while a request that conflicts with nothing waiting goes ahead. A hold lasts as long as its
// connection: a worker that dies releases what it held. Time spent waiting is added to the test's
// timeout.
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

export type LockMode = 'shared' | 'exclusive';

/** Every resource at once: a test that reads or changes every number of every client. */
export const EVERYTHING = '*';

/** One resource a test holds, and how. */
export interface Need {
  resource: string;
  mode: LockMode;
}

/** The lock's modes on one resource: S and X on a single resource; on `*` also the intentions IS and IX. */
type Mode = 'S' | 'X' | 'IS' | 'IX';

/** Which modes two holders of one resource may have at once. */
const COMPATIBLE: Readonly<Record<Mode, ReadonlySet<Mode>>> = {
  IS: new Set(['IS', 'IX', 'S']),
  IX: new Set(['IS', 'IX']),
  S: new Set(['IS', 'S']),
  X: new Set(),
};

/** What a request holds on each resource, `*` with its intention. */
function holdsOf(needs: readonly Need[]): Map<string, Mode> {
  const holds = new Map<string, Mode>();
  const stronger = (resource: string, mode: Mode) => {
    const had = holds.get(resource);
    // X covers everything; IX and S together need SIX, which is granted as X here (rare: a test that reads everything and changes one number).
    if (had === undefined || had === mode) return void holds.set(resource, mode);
    const pair = new Set([had, mode]);
    holds.set(resource, pair.has('X') || (pair.has('IX') && pair.has('S')) ? 'X' : pair.has('S') ? 'S' : 'IX');
  };
  for (const { resource, mode } of needs) {
    if (resource === EVERYTHING) stronger(EVERYTHING, mode === 'exclusive' ? 'X' : 'S');
    else {
      stronger(resource, mode === 'exclusive' ? 'X' : 'S');
      stronger(EVERYTHING, mode === 'exclusive' ? 'IX' : 'IS');
    }
  }
  return holds;
}

function conflicts(a: ReadonlyMap<string, Mode>, b: ReadonlyMap<string, Mode>): boolean {
  for (const [resource, mode] of a) {
    const other = b.get(resource);
    if (other !== undefined && !COMPATIBLE[mode].has(other)) return true;
  }
  return false;
}

const portFile = (runDir: string) => join(runDir, 'run-lock.port');

/** The lock's server. Resolves once it listens (its port written under the run's folder); the function stops it. */
export async function startRunLock(runDir: string): Promise<() => Promise<void>> {
  const holders = new Map<Socket, Map<string, Mode>>();
  const queue: Array<{ socket: Socket; holds: Map<string, Mode> }> = [];
  const grant = () => {
    const waiting: Array<Map<string, Mode>> = [];
    for (let i = 0; i < queue.length; ) {
      const next = queue[i]!;
      const blocked = [...holders.values()].some((held) => conflicts(next.holds, held)) || waiting.some((earlier) => conflicts(next.holds, earlier));
      if (blocked) {
        waiting.push(next.holds);
        i++;
        continue;
      }
      queue.splice(i, 1);
      holders.set(next.socket, next.holds);
      next.socket.write('granted\n');
    }
  };
  const server: Server = createServer((socket) => {
    let asked = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      asked += chunk;
      if (!asked.includes('\n')) return;
      const line = asked.trim();
      asked = '';
      let needs: Need[];
      try {
        needs = JSON.parse(line) as Need[];
        if (!Array.isArray(needs) || !needs.every((n) => typeof n?.resource === 'string' && (n.mode === 'shared' || n.mode === 'exclusive'))) throw new Error('not a list of needs');
      } catch {
        return void socket.destroy();
      }
      if (holders.has(socket) || queue.some((w) => w.socket === socket)) return void socket.destroy();
      queue.push({ socket, holds: holdsOf(needs) });
      grant();
    });
    socket.on('close', () => {
      holders.delete(socket);
      const waiting = queue.findIndex((w) => w.socket === socket);
      if (waiting >= 0) queue.splice(waiting, 1);
      grant();
    });
    socket.on('error', () => socket.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  mkdirSync(runDir, { recursive: true });
  writeFileSync(portFile(runDir), String((server.address() as AddressInfo).port));
  return async () => {
    for (const socket of [...holders.keys(), ...queue.map((w) => w.socket)]) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}

/** A worker's side of the lock: at most one hold at a time. */
export class RunLock {
  private socket: Socket | null = null;

  private constructor(private readonly port: number) {}

  /** The lock of a run of several workers, or null when the run has one (nothing to share). */
  static forRun(runDir: string, workers: number): RunLock | null {
    if (workers <= 1) return null;
    return new RunLock(Number(readFileSync(portFile(runDir), 'utf8')));
  }

  /**
   * Hold every resource of `needs` (after releasing any hold); resolves with the milliseconds
   * waited. No needs: nothing to wait for, and nothing is held.
   */
  async acquire(needs: readonly Need[]): Promise<number> {
    this.release();
    if (needs.length === 0) return 0;
    const started = performance.now();
    const socket = connect(this.port, '127.0.0.1');
    socket.setNoDelay(true);
    socket.setEncoding('utf8');
    await new Promise<void>((resolve, reject) => {
      let answer = '';
      const onData = (chunk: string) => {
        answer += chunk;
        if (answer.includes('granted\n')) done(null);
      };
      const onEnd = () => done(new Error('the run lock closed before granting: the run is ending'));
      const done = (error: Error | null) => {
        socket.off('data', onData).off('error', done).off('close', onEnd);
        if (error) reject(error);
        else resolve();
      };
      socket.on('data', onData).on('error', done).on('close', onEnd);
      socket.write(`${JSON.stringify(needs)}\n`);
    });
    this.socket = socket;
    return performance.now() - started;
  }

  release(): void {
    this.socket?.destroy();
    this.socket = null;
  }
}
