import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { CoreError } from '../errors.ts';
import type { ClientStore, ClientRecord } from '../store/clients.ts';
import { requireActive } from './capabilities.ts';
import { tokenHash } from './tokenHash.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API client of the bearer token; set by the authenticate hook of every core route. */
    apiClient: ClientRecord | null;
  }
}

// RFC 6750 2.1: b64token; the scheme name in any case (AUTH-104), then one or more spaces (AUTH-106).
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

// The scheme of an Authorization header: its first token (RFC 9110 11.4).
const SCHEME = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)/;

/**
 * RFC 6750 3: a Bearer challenge on every 401 (AUTH-101); no error code when no bearer
 * credentials were sent (no header, or another scheme such as Basic: AUTH-103, AUTH-105);
 * invalid_token when a bearer token failed (AUTH-102).
 */
export function unauthorized(message: string, tokenSent: boolean): CoreError {
  const challenge = tokenSent ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"';
  return new CoreError('UNAUTHORIZED', message, {}, { 'www-authenticate': challenge });
}

/** The token of a well-formed `Bearer <token>` header; undefined for anything else. */
export function bearerToken(header: string): string | undefined {
  return BEARER.exec(header)?.[1];
}

/**
 * The onRequest hook of every core route: it sets request.apiClient or refuses the request.
 * AUTH-001: no token is 401; AUTH-002: a malformed one is 401; AUTH-003: an expired one is 401;
 * AUTH-004: an unknown one is 401; AUTH-005: a token of the token endpoint is accepted. A token
 * of a client that is not ACTIVE is 403 (profile client.status). It runs on onRequest, before
 * the body is parsed or any header of the route's is read, so a request without a valid token
 * is answered 401 with its challenge whatever else it breaks (AUTH-107: every answer to such a
 * request carries WWW-Authenticate).
 */
export type Authenticate = (request: FastifyRequest, reply: FastifyReply, done?: HookHandlerDoneFunction) => Promise<void> | void;

/**
 * The reference's authenticate is synchronous: as an onRequest hook it calls `done` (a throw is
 * handled as a rejection would be, without a promise and a microtask turn per request); a fault
 * that wraps it (faults/auth.ts) calls it without `done` from its own async hook.
 */
export function bearerAuthentication(clients: ClientStore): Authenticate {
  return function authenticate(request: FastifyRequest, _reply: FastifyReply, done?: HookHandlerDoneFunction): void {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') throw unauthorized('A bearer token is required.', false);
    const token = bearerToken(header);
    if (token === undefined) {
      const bearerScheme = SCHEME.exec(header)?.[1]?.toLowerCase() === 'bearer';
      throw unauthorized(bearerScheme ? 'The Authorization header is not a well-formed bearer token.' : 'The Authorization header does not use the Bearer scheme.', bearerScheme);
    }
    const client = clients.byTokenHash(tokenHash(token), Date.now());
    if (!client) throw unauthorized('The bearer token is unknown or expired.', true);
    requireActive(client);
    request.apiClient = client;
    done?.();
  };
}

export function callerOf(request: FastifyRequest): ClientRecord {
  if (!request.apiClient) throw new Error('route reached without authentication');
  return request.apiClient;
}
