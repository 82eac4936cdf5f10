import { createServer } from 'node:net';
import { freePortsFrom } from '../harness/workers.ts';

/** A loopback port nothing listens on right now, for a server the run is about to start. */
export function freePort(): Promise<number> {
  return new Promise((done, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/**
 * The first of `count` consecutive loopback ports nothing listens on right now: a receiver on
 * webhooks.listenPort whose workers take the ports after it needs them all (harness/run-receiver.ts).
 */
export async function freePorts(count: number): Promise<number> {
  for (;;) {
    const first = await freePort();
    if ((await freePortsFrom('127.0.0.1', first, count)) === count) return first;
  }
}
