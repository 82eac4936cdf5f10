import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startChildServer } from './childServer.ts';

// How long does the reference take to exit after SIGTERM while clients hold connections open?
// Three at once: one connected that sent nothing, one that sent half a request's headers, one
// that sent complete headers and half of the body they announce. Prints the time from SIGTERM to
// exit, or that it was still running at --cap seconds (then it is killed). Asserts nothing.
// Extra reference flags go after `--`.
//   npx tsx bench/shutdown.ts [--cap 30] [-- reference flags]

const { values, positionals } = parseArgs({ allowPositionals: true, options: { cap: { type: 'string', default: '30' } } });
const capMs = Number(values.cap) * 1000;

const workDir = mkdtempSync(join(tmpdir(), 'shutdown-'));
const server = await startChildServer('reference/main.ts', ['--port', '0', '--db', join(workDir, 'bench.db'), '--fresh', '--log-level', 'error', ...positionals]);
const { hostname, port } = new URL(server.baseUrl);

const open = (sent: string) =>
  new Promise<Socket>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      if (sent) socket.write(sent);
      resolve(socket);
    });
    socket.on('error', () => undefined);
    socket.resume();
  });

const sockets = [
  await open(''),
  await open('GET /api/core/whoami HTTP/1.1\r\nHost: x\r\n'),
  await open('POST /api/core/messages/send HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"sendFrom":'),
];
await new Promise((resolve) => setTimeout(resolve, 200));
const exited = new Promise<number | null>((resolve) => server.process.once('exit', (code) => resolve(code)));
const started = performance.now();
server.process.kill('SIGTERM');
const outcome = await Promise.race([exited.then((code) => ({ code })), new Promise<undefined>((resolve) => setTimeout(resolve, capMs))]);
if (outcome) {
  console.log(`SIGTERM with an idle, a half-headers and a half-body connection open: exited (code ${outcome.code}) after ${((performance.now() - started) / 1000).toFixed(2)} s`);
} else {
  console.log(`SIGTERM with an idle, a half-headers and a half-body connection open: still running at ${capMs / 1000} s; killed`);
  server.process.kill('SIGKILL');
  await exited;
}
for (const socket of sockets) socket.destroy();
rmSync(workDir, { recursive: true, force: true });
