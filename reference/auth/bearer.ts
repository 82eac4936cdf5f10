import type { FastifyReply, FastifyRequest } from 'fastify';
import { CoreError } from '../errors.ts';
import type { FaultName } from '../faults/index.ts';
import type { ClientStore, ClientRecord } from '../store/clients.ts';
import { tokenHash } from './tokenHash.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The API client of the bearer token; set by the authenticate hook of every core route. */
    apiClient: ClientRecord | null;
  }
}

// RFC 6750 2.1: b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

// The scheme of an Authorization header: its first token (RFC 9110 11.4).
const SCHEME = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)/;

/**
 * RFC 6750 3: no error code when no bearer credentials were sent (no header, or another scheme
 * such as Basic: an unsupported authentication method); invalid_token when a bearer token failed.
 */
function unauthorized(message: string, tokenSent: boolean): CoreError {
  const challenge = tokenSent ? 'Bearer realm="api", error="invalid_token"' : 'Bearer realm="api"';
  return new CoreError('UNAUTHORIZED', message, {}, { 'www-authenticate': challenge });
}

export function bearerAuthentication(clients: ClientStore, faults: ReadonlySet<FaultName> = new Set()) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') throw unauthorized('A bearer token is required.', false);
    const match = BEARER.exec(header);
    // Kill-matrix fault (reference/faults.ts): a Bearer header the parser cannot read is taken for a server failure.
    if (!match && faults.has('auth.malformed-bearer-500') && /^bearer\b/i.test(header)) throw new Error('cannot parse the bearer credentials');
    if (!match) {
      const bearerScheme = SCHEME.exec(header)?.[1]?.toLowerCase() === 'bearer';
      throw unauthorized(bearerScheme ? 'The Authorization header is not a well-formed bearer token.' : 'The Authorization header does not use the Bearer scheme.', bearerScheme);
    }
    // Kill-matrix fault: tokens are looked up as of the epoch, so none has expired yet.
    const client = clients.byTokenHash(tokenHash(match[1]!), faults.has('auth.expired-token-accepted') ? 0 : Date.now());
    // Kill-matrix fault: a token that was never issued (not merely expired) is taken for a lack of permission.
    if (!client && faults.has('auth.unknown-token-forbidden') && !clients.byTokenHash(tokenHash(match[1]!), 0)) throw new CoreError('FORBIDDEN', 'This token grants no access.');
    if (!client) throw unauthorized('The bearer token is unknown or expired.', true);
    request.apiClient = client;
  };
}

export function callerOf(request: FastifyRequest): ClientRecord {
  if (!request.apiClient) throw new Error('route reached without authentication');
  return request.apiClient;
}
