import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { startChildServer } from './childServer.ts';

// Can one source address hold the server's connections? It opens --hold idle TCP connections
// (nothing sent) from 127.0.0.1; while they are open, another client, from 127.0.0.2, makes
// --requests requests, each on a new connection. Prints how many connections the first address
// kept and how many of the other's requests were answered; asserts nothing. The reference runs
// with its default limits.
//   npx tsx bench/connection-hog.ts [--hold 1100] [--requests 50]

const { values } = parseArgs({
  options: {
    hold: { type: 'string', default: '1100' },
    requests: { type: 'string', default: '50' },
  },
});
const hold = Number(values.hold);
const requests = Number(values.requests);

const workDir = mkdtempSync(join(tmpdir(), 'connection-hog-'));
const server = await startChildServer('reference/main.ts', ['--port', '0', '--db', join(workDir, 'bench.db'), '--fresh', '--log-level', 'error']);
const { hostname, port } = new URL(server.baseUrl);

const sockets: Socket[] = [];
try {
  let open = 0;
  await Promise.all(
    Array.from({ length: hold }, () =>
      new Promise<void>((resolve) => {
        const socket = connect({ host: hostname, port: Number(port), localAddress: '127.0.0.1' });
        sockets.push(socket);
        socket.on('connect', () => {
          open += 1;
          resolve();
        });
        socket.on('close', () => {
          open -= 1;
          resolve();
        });
        socket.on('error', () => undefined);
      }),
    ),
  );
  // The server closes what it will not keep as soon as it accepts it.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const held = sockets.filter((socket) => !socket.destroyed && socket.readyState === 'open').length;

  const statuses = new Map<string, number>();
  const started = performance.now();
  for (let i = 0; i < requests; i += 1) {
    const agent = new Agent({ localAddress: '127.0.0.2', connect: { timeout: 2000 } });
    const outcome = await request(`${server.baseUrl}/api/core/whoami`, { dispatcher: agent, headersTimeout: 2000, bodyTimeout: 2000 }).then(
      async (answer) => {
        await answer.body.dump();
        return String(answer.statusCode);
      },
      (error: { code?: string }) => error.code ?? 'error',
    );
    statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
    await agent.close().catch(() => undefined);
  }
  const answered = [...statuses].filter(([outcome]) => /^\d+$/.test(outcome)).reduce((sum, [, count]) => sum + count, 0);
  console.log(`127.0.0.1 opened ${hold} idle connections; ${held} still open after 1 s (${open} by the client's count)`);
  console.log(`127.0.0.2, ${requests} requests on new connections meanwhile: ${answered} answered (${JSON.stringify(Object.fromEntries(statuses))}) in ${Math.round(performance.now() - started)} ms`);
} finally {
  for (const socket of sockets) socket.destroy();
  await server.stop();
  rmSync(workDir, { recursive: true, force: true });
}
