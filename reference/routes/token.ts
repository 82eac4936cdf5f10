import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { parseBasicCredentials } from '../auth/basicCredentials.ts';
import { newAccessToken, tokenHash } from '../auth/tokenHash.ts';
import { readTokenParameters, FormParameters } from '../auth/tokenParameters.ts';
import type { ReferenceContext } from '../context.ts';
import { OAuthError } from '../errors.ts';
import { EdgeRefusal, onTokenPath } from '../http/rejections.ts';
import { sourceOf } from '../http/sources.ts';
import { TOKEN_BODY_LIMIT_BYTES } from '../options.ts';

// Profile token.headers (TOKEN-102, TOKEN-202): on every answer of the token endpoint, success or error.
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** Profile token.errorStatus (TOKEN-104, TOKEN-105, TOKEN-201): the challenge of every invalid_client (always 401). */
export const TOKEN_CHALLENGE = 'Basic realm="token"';

/** TOKEN-006: the OAuth error body {error, error_description}, never the CORE wrapper; TOKEN-010: a 4xx status. */
function sendOAuthError(reply: FastifyReply, error: OAuthError): FastifyReply {
  const headers: Record<string, string> = { ...error.headers, ...NO_STORE };
  if (error.status === 401) headers['www-authenticate'] = TOKEN_CHALLENGE;
  return reply.code(error.status).headers(headers).send({ error: error.code, error_description: error.message });
}

export function oauthErrorHandler(error: FastifyError | OAuthError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof OAuthError) return sendOAuthError(reply, error);
  const status = error.statusCode ?? 500;
  if (error instanceof EdgeRefusal) {
    // Shutting down (503) or over a limit (429): RFC 6749's code for a temporary condition; else a defect of the request.
    const code = error.statusCode === 503 || error.statusCode === 429 ? 'temporarily_unavailable' : 'invalid_request';
    return sendOAuthError(reply, new OAuthError(code, error.message, error.statusCode, error.headers));
  }
  if (status === 413) return sendOAuthError(reply, new OAuthError('invalid_request', 'The request body is too large.', 413));
  if (status >= 400 && status < 500) return sendOAuthError(reply, new OAuthError('invalid_request', error.message));
  request.log.error({ err: error }, 'unexpected failure at the token endpoint');
  return reply.code(500).headers(NO_STORE).send({ error: 'server_error', error_description: 'The server failed to issue a token.' });
}

/**
 * POST /api/auth/token: the OAuth 2 client_credentials grant (section 4.1, RFC 6749). TOKEN-001:
 * credentials, not a bearer token, get a token; VER-001: the path has no version segment.
 */
export async function tokenRoutes(app: FastifyInstance, { ctx }: { ctx: ReferenceContext }): Promise<void> {
  app.setErrorHandler(oauthErrorHandler);
  // A fixtures client may have its own token lifetime (the demo's brief client: 2 s, so a harness
  // can wait out a token and see it refused, AUTH-003); else --token-ttl. expires_in says which (TOKEN-002).
  const ttlByClient = new Map(ctx.seeded.map(({ apiClientId, fixture }) => [apiClientId, fixture.tokenTtlSeconds ?? ctx.options.tokenTtlSeconds]));
  // Over the source's request rate, 429 before the body is read (reference/auth/tokenGuard.ts).
  app.addHook('onRequest', async (request) => ctx.tokenGuard.admit(sourceOf(request.ip)));
  // fastify matches a media type whatever the case of its letters and with any parameters, so form
  // fields labelled Application/X-WWW-Form-Urlencoded or with a charset are read (ERR-008, ERR-009).
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: TOKEN_BODY_LIMIT_BYTES },
    (_request, body, done) => done(null, FormParameters.parse(body as string)),
  );

  app.post(ctx.behaviour.paths.token, { bodyLimit: TOKEN_BODY_LIMIT_BYTES }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    // TOKEN-203 (profile token.credentialsInUri): credentials in the URI are refused.
    if ('client_secret' in query || 'client_id' in query) {
      throw new OAuthError('invalid_request', 'Client credentials must not be sent in the URI (RFC 6749 2.3.1).');
    }
    // TOKEN-003, TOKEN-004: credentials in a JSON or a form-encoded body.
    const parameters = readTokenParameters(request.body);
    // TOKEN-116: a missing grant_type is a missing parameter (RFC 6749 5.2), not an unsupported grant.
    if (parameters.grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required.');

    // TOKEN-005: credentials by HTTP Basic.
    const basic = parseBasicCredentials(request.headers.authorization);
    if (request.headers.authorization !== undefined && basic === undefined) {
      throw new OAuthError('invalid_client', 'Only HTTP Basic client authentication is supported in the Authorization header.');
    }
    if (basic === 'malformed') throw new OAuthError('invalid_client', 'The Basic credentials cannot be decoded.');
    // TOKEN-106: one authentication method.
    if (basic && (parameters.clientSecret !== undefined || (parameters.clientId !== undefined && parameters.clientId !== basic.clientId))) {
      throw new OAuthError('invalid_request', 'Use one client authentication method: HTTP Basic or body credentials, not both (RFC 6749 2.3).');
    }
    // TOKEN-008.
    if (parameters.grantType !== 'client_credentials') {
      throw new OAuthError('unsupported_grant_type', 'grant_type must be client_credentials.');
    }
    const clientId = basic ? basic.clientId : parameters.clientId;
    const clientSecret = basic ? basic.clientSecret : parameters.clientSecret;
    // TOKEN-009.
    if (clientId === undefined || clientSecret === undefined) {
      throw new OAuthError('invalid_request', 'client_id and client_secret are required (in the body or by HTTP Basic).');
    }

    // TOKEN-007. Rate-limited, and as slow for an unknown id as for a wrong secret.
    const client = await ctx.tokenGuard.authenticate(sourceOf(request.ip), clientId, clientSecret, ctx.stores.clients.byClientId(clientId));
    // Profile token.errorStatus: 401 always; by the token.invalidClient choice 400 when the
    // credentials came in the body (RFC 6749 5.2: 401 is required only after Basic).
    const status = basic === undefined && ctx.options.wire['token.invalidClient'] === '400' ? 400 : 401;
    if (!client) throw new OAuthError('invalid_client', 'Client authentication failed.', status);
    // Profile client.status (CTX-203): told only to a caller that proved the credentials.
    if (client.status !== 'ACTIVE') throw new OAuthError('unauthorized_client', `This API client is ${client.status}; check its account status.`);

    const ttl = ttlByClient.get(client.apiClientId) ?? ctx.options.tokenTtlSeconds;
    return reply.code(200).headers(NO_STORE).send(await issueToken(ctx, client.apiClientId, ttl));
  });
}

/** A new access token for the client, living `ttlSeconds`, stored by its hash; the token response's body (TOKEN-002, TOKEN-101; TOKEN-111: no refresh_token). */
export async function issueToken(ctx: ReferenceContext, apiClientId: string, ttlSeconds: number): Promise<{ access_token: string; token_type: 'bearer'; expires_in: number }> {
  const token = newAccessToken();
  await ctx.writes.run({ op: 'insertToken', hash: tokenHash(token), apiClientId, expiresAt: Date.now() + ttlSeconds * 1000 });
  return { access_token: token, token_type: 'bearer', expires_in: ttlSeconds };
}

/**
 * TOKEN-113, TOKEN-204 (profile token.otherMethods). RFC 6749 3.2: the token request is a POST, so any other method on the token path, including
 * ones the router does not know (PROPFIND), is 405 with Allow: POST (RFC 9110 15.5.6) in the
 * OAuth body. A hook on every request, since a request no route takes is answered by the CORE
 * 404 handler, and its body would be parsed (and perhaps refused) before that.
 */
export function methodNotAllowedOnTokenPath(tokenPath: string) {
  // Synchronous (done-style), as the other hooks every request runs: an async hook costs each
  // request a promise and a turn of the microtask queue.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (request.method === 'POST' || !onTokenPath(request.url, tokenPath)) return done();
    // Answered: the request goes no further, so done is not called.
    sendOAuthError(reply.header('allow', 'POST'), new OAuthError('invalid_request', 'The token endpoint accepts POST only.', 405));
  };
}
