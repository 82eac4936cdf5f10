// How many workers a run takes when `--workers` does not say (README: Workers).
//
// Workers pay where the run waits on the network: against a sandbox across a network every
// exchange costs a round trip, and four workers overlap those waits (bench/remote-target.ts at a
// 50 ms round trip: 151 s with one worker, 82 s with four, 58 s with four and a pool of numbers).
// On the machine that runs the target, the run is bound by the CPU both share, and a second worker
// costs more than it overlaps (bench/certify-time.ts). So the run times a few exchanges with the
// target before it starts, and takes several workers only when they are slow.
import { createServer } from 'node:net';
import { Agent, request } from 'undici';
import { MAX_WORKERS } from './settings.ts';

/** An exchange this slow or slower means the run waits on the target, not on this machine's CPU. */
export const SLOW_EXCHANGE_MS = 10;

/** Exchanges timed by `timeExchange`; the first also opens the connection and is not counted. */
const TIMED_EXCHANGES = 5;

export interface WorkerChoice {
  workers: number;
  /** Said on the run's first line: why this many. */
  why: string;
}

export interface RunSituation {
  /** The run certifies the bundled reference, started on this machine. */
  bundledReference: boolean;
  /** The shortest time of an exchange with the target, in ms (timeExchange); null when none could be timed. */
  exchangeMs: number | null;
  /** The config's webhooks.publicUrl, if it sets one. */
  publicUrl: string | undefined;
  /**
   * How many of the workers' receiver ports (a fixed webhooks.listenPort and the ones after it)
   * are free, counted up to MAX_WORKERS; null when the receivers take any free port (listenPort 0).
   */
  freeReceiverPorts: number | null;
}

/** The rules, in order: the first that applies decides. */
export function chooseWorkers(run: RunSituation): WorkerChoice {
  if (run.bundledReference) return { workers: 1, why: "the bundled reference shares this machine's cores" };
  if (run.exchangeMs === null) return { workers: 1, why: 'no exchange with the target could be timed' };
  const took = `an exchange with the target takes ${run.exchangeMs.toFixed(1)} ms`;
  if (run.exchangeMs < SLOW_EXCHANGE_MS) return { workers: 1, why: `${took}: the run is bound by this machine, not by waiting` };
  if (run.publicUrl !== undefined && !run.publicUrl.includes('{port}')) {
    // Each worker has its own receiver on its own port; a URL without the port reaches one of them.
    return { workers: 1, why: `${took}, but webhooks.publicUrl has no {port}: with {port} in it the run would take ${MAX_WORKERS}` };
  }
  if (run.freeReceiverPorts !== null && run.freeReceiverPorts < MAX_WORKERS) {
    // Each worker's receiver listens on its own port after listenPort; a taken one would stop the run.
    const workers = Math.max(1, run.freeReceiverPorts);
    return { workers, why: `${took}, but only ${run.freeReceiverPorts} of the ${MAX_WORKERS} receiver ports from webhooks.listenPort on are free` };
  }
  return { workers: MAX_WORKERS, why: `${took}: ${MAX_WORKERS} workers overlap the waits` };
}

/** How many consecutive ports from `first` on `host` can be listened on now, counted up to `wanted`. */
export async function freePortsFrom(host: string, first: number, wanted: number): Promise<number> {
  let free = 0;
  while (free < wanted && first + free <= 65_535 && (await canListen(host, first + free))) free++;
  return free;
}

function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/**
 * The shortest time of an exchange with `url` (a request without credentials, which any server
 * answers at once: 401 on a protected route), over one kept-alive connection; null if one fails.
 * The shortest, not a mean: the network's round trip is a floor under every exchange, where a
 * busy machine only slows some of them, and must not make a loaded run on one machine take workers.
 */
export async function timeExchange(url: string, method: string, timeoutMs = 5_000): Promise<number | null> {
  const agent = new Agent({ connections: 1, connectTimeout: timeoutMs });
  const times: number[] = [];
  try {
    for (let i = 0; i < TIMED_EXCHANGES; i++) {
      const started = performance.now();
      const answer = await request(url, { method: method as 'GET', dispatcher: agent, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      await answer.body.dump();
      if (i > 0) times.push(performance.now() - started);
    }
  } catch {
    return null;
  } finally {
    await agent.destroy();
  }
  return Math.min(...times);
}
