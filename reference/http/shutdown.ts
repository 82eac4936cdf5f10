import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How often, while the server shuts down, connections that have become idle are closed. */
const IDLE_SWEEP_MS = 100;

/**
 * Bounded shutdown (reference/README.md, Connections and the edges of HTTP). When the server
 * closes it stops accepting connections and closes the idle keep-alive ones (Node's close()),
 * and from then on each connection as soon as it is idle, its requests answered (a request
 * pipelined behind one in progress is still answered: 503, http/rejections.ts). Node also stops
 * checking its request and headers timeouts then, so a connection that sent half a request, or
 * nothing yet, would hold the server open for ever: after `graceMs` every connection still open
 * is closed. The requests in progress had the grace period to finish; one that has not been
 * answered by then loses its answer, and nothing unanswered was acknowledged: a send is
 * committed before its 2xx is written (Durability), and the writer commits what it was given
 * before the server exits.
 */
export function boundShutdown(app: FastifyInstance, graceMs: number): void {
  const open = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  let timer: NodeJS.Timeout | undefined;
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
    sweep.unref();
    timer = setTimeout(() => {
      if (open.size > 0) app.log.warn({ connections: open.size }, `closing ${open.size} connection(s) still open ${graceMs / 1000} s after shutdown began`);
      for (const socket of open) socket.destroy();
    }, graceMs);
    // The open connections keep the process alive while they last; the timer alone does not.
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearTimeout(timer);
    clearInterval(sweep);
  });
}
