import type { Server } from 'node:http';
import type { ReferenceOptions } from '../options.ts';

// Bounds on a connection (reference/README.md, Limits and defenses). Node's HTTP server allows a
// whole request 300 s by default and fastify sets that to none at all, so a client that sends
// complete headers and stalls the body holds a socket for ever; and it accepts any number of
// connections.

export type ConnectionLimits = Pick<ReferenceOptions, 'requestTimeoutMs' | 'headersTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnections'>;

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
}
