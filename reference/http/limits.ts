import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { ReferenceOptions } from '../options.ts';
import { EdgeRefusal } from './rejections.ts';
import { SourceCounts, sourceOf } from './sources.ts';

// Bounds on a connection (reference/README.md, Limits and defenses). Node's HTTP server allows a
// whole request 300 s by default and fastify sets that to none at all, so a client that sends
// complete headers and stalls the body holds a socket for ever; and it accepts any number of
// connections, from one address as from many.

export type ConnectionLimits = Pick<
  ReferenceOptions,
  'requestTimeoutMs' | 'headersTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnections' | 'maxConnectionsPerSource' | 'maxRequestsPerSource'
>;

/** The fastify options that carry the limits (applied when fastify makes its server). */
export function connectionOptions(limits: ConnectionLimits) {
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      // Node checks the timeouts above on this interval (30 s by default, which would let a
      // stalled request live up to 30 s past its limit).
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
      // Checked by a hook instead, so that the 400 is in the contract's body (http/rejections.ts).
      requireHostHeader: false,
    },
  };
}

/** The limits fastify has no option for, set on its server. */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  // Beyond this many open connections, a new one is closed at once.
  server.maxConnections = limits.maxConnections;
  // And beyond this many from one source address (http/sources.ts), as at once: one address
  // holding idle connections up to the server-wide limit would shut every other client out.
  // Before the HTTP server's own listener, so that a refused socket never gets a parser.
  const open = new SourceCounts();
  server.prependListener('connection', (socket: Socket) => {
    const source = sourceOf(socket.remoteAddress);
    socket.once('close', () => open.remove(source));
    if (open.add(source) > limits.maxConnectionsPerSource) socket.destroy();
  });
}

/**
 * At most `max` requests in progress at once from one source address (from the moment their
 * headers are read until their answer is sent or their connection closes); one beyond is 429
 * with Retry-After: 1, in the contract of its path. Connections alone do not bound this where a
 * client holds many, and every request in progress holds memory, a slot of the writer's batch
 * or of the provider's pool.
 */
export function limitRequestsPerSource(app: FastifyInstance, max: number): void {
  const inProgress = new SourceCounts();
  // Runs on every request, so it is synchronous (done-style), as the other such hooks.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const source = sourceOf(request.ip);
    reply.raw.once('close', () => inProgress.remove(source));
    if (inProgress.add(source) > max) {
      throw new EdgeRefusal(429, `Too many requests in progress from this address (at most ${max} at once); retry after the time Retry-After gives.`, { limit: max, per: 'source address', unit: 'requests in progress' }, { 'retry-after': '1' });
    }
    done();
  });
}
