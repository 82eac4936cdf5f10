// Tests of one run in several workers share one target. Most of them read and send; a test that
// changes what the others read (a number's settings through the `settings` fixture, a number's
// or client's webhooks through `webhooks`, the control plane or a trigger through `triggers`)
// must have the target to itself, and its reads must not see another test's change.
//
// So a run with more than one worker has one readers/writer lock, served by the runner process
// (the global setup) on loopback TCP. Every test holds it shared from its start. A test that asks
// for one of those fixtures trades its hold for the exclusive one before its body runs: it
// releases, then waits, so no test ever waits while holding and two such tests cannot deadlock;
// nothing is observed in between (fixtures only set up). Grants go first come, first served, so
// readers do not starve a waiting writer. A hold lasts as long as its connection: a worker that
// dies releases what it held. Time spent waiting is added to the test's timeout.
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

export type LockMode = 'shared' | 'exclusive';

const portFile = (runDir: string) => join(runDir, 'run-lock.port');

/** The lock's server. Resolves once it listens (its port written under the run's folder); the function stops it. */
export async function startRunLock(runDir: string): Promise<() => Promise<void>> {
  const holders = new Map<Socket, LockMode>();
  const queue: Array<{ socket: Socket; mode: LockMode }> = [];
  const grant = () => {
    while (queue.length > 0) {
      const next = queue[0]!;
      const exclusiveHeld = [...holders.values()].includes('exclusive');
      if (next.mode === 'shared' ? exclusiveHeld : holders.size > 0) return;
      queue.shift();
      holders.set(next.socket, next.mode);
      next.socket.write('granted\n');
    }
  };
  const server: Server = createServer((socket) => {
    let asked = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      asked += chunk;
      if (!asked.includes('\n')) return;
      const mode = asked.trim();
      asked = '';
      if ((mode !== 'shared' && mode !== 'exclusive') || holders.has(socket) || queue.some((w) => w.socket === socket)) return void socket.destroy();
      queue.push({ socket, mode });
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

  /** Hold the lock in `mode` (after releasing any hold); resolves with the milliseconds waited. */
  async acquire(mode: LockMode): Promise<number> {
    this.release();
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
      socket.write(`${mode}\n`);
    });
    this.socket = socket;
    return performance.now() - started;
  }

  release(): void {
    this.socket?.destroy();
    this.socket = null;
  }
}
