import type { FastifyRequest } from 'fastify';
import { parseBasicCredentials } from '../reference/auth/basicCredentials.ts';
import { FormParameters, readTokenParameters, type TokenParameters } from '../reference/auth/tokenParameters.ts';
import { CoreError, coreErrorBody, OAuthError } from '../reference/errors.ts';
import { issueToken, TOKEN_CHALLENGE } from '../reference/routes/token.ts';
import { unauthorized } from '../reference/auth/bearer.ts';
import { sourceOf } from '../reference/http/sources.ts';
import type { ReferenceContext } from '../reference/context.ts';
import { onTokenPath } from '../reference/http/rejections.ts';
import { objectBodyOf, ofServer, rawBodyOf, tokenOf, type Answer, type FaultDefinition } from './fault.ts';

// Faults of the token endpoint (section 4.1, errors 7.1). Four refuse, before the route runs, a
// request the route accepts; one unwraps a parameter, and one cuts a secret short, before the
// route reads them; the others rewrite the route's answer.

/** The members of a token request's JSON object body; undefined for form fields or any other body. */
function jsonMembersOf(request: FastifyRequest): Record<string, unknown> | undefined {
  return request.body instanceof FormParameters ? undefined : objectBodyOf(request);
}

const TOKEN = 'POST /api/auth/token';

/** A preHandler that reads a grant_type `taken` accepts as client_credentials, in a form body or a JSON one. */
function grantReadAs(taken: (grant: string) => boolean): NonNullable<FaultDefinition['preHandler']> {
  const grant = (value: unknown) => (typeof value === 'string' && taken(value) ? 'client_credentials' : value);
  return (request) => {
    if (request.body instanceof FormParameters) {
      const values = request.body.values.get('grant_type');
      if (values) request.body = new FormParameters(new Map([...request.body.values, ['grant_type', values.map((v) => grant(v) as string)]]));
    } else if (request.body && typeof request.body === 'object') {
      const body = request.body as Record<string, unknown>;
      body.grant_type = grant(body.grant_type);
    }
  };
}

/**
 * The answer of a fault that hands a client that asks again within `windowMs` the token it was
 * issued a moment ago, reported with a full expires_in. Each fault keeps the last token issued to
 * each client id, and when, per server.
 */
function reissuedWithin(windowMs: number): NonNullable<FaultDefinition['answer']> {
  const lastIssued = new WeakMap<ReferenceContext, Map<string, { token: string; at: number }>>();
  return ({ request, status, body }, ctx) => {
    if (status !== 200 || typeof body.access_token !== 'string') return;
    const issued = ofServer(lastIssued, ctx, () => new Map<string, { token: string; at: number }>());
    const basic = parseBasicCredentials(request.headers.authorization);
    const clientId = typeof basic === 'object' ? basic.clientId : parametersOf(request)?.clientId;
    if (clientId === undefined) return;
    const earlier = issued.get(clientId);
    if (earlier && Date.now() - earlier.at < windowMs) body.access_token = earlier.token;
    else issued.set(clientId, { token: body.access_token, at: Date.now() });
  };
}
/** Tokens issued to HTTP Basic under token.basic-lifetime-halved, and when each stops working. */
const halvedTokens = new Map<string, number>();

/** The body's token parameters, or undefined where the route refuses them as unreadable. */
function parametersOf(request: FastifyRequest): TokenParameters | undefined {
  try {
    return readTokenParameters(request.body);
  } catch {
    return undefined;
  }
}

/** The client id and secret a request presents: its HTTP Basic credentials, else its body's. */
function presentedCredentials(request: FastifyRequest): { clientId?: string | undefined; clientSecret?: string | undefined } | undefined {
  const basic = parseBasicCredentials(request.headers.authorization);
  return basic !== undefined && basic !== 'malformed' ? basic : bodyCredentials(request);
}

/** Makes the request present `client`'s real secret where it presented another (HTTP Basic or body). */
function presentRealSecret(request: FastifyRequest, client: { clientId: string; clientSecret: string }): void {
  const basic = parseBasicCredentials(request.headers.authorization);
  if (basic !== undefined && basic !== 'malformed') {
    const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
    request.headers.authorization = `Basic ${Buffer.from(`${encode(client.clientId)}:${encode(client.clientSecret)}`).toString('base64')}`;
  } else if (request.body instanceof FormParameters) {
    request.body = new FormParameters(new Map([...request.body.values, ['client_secret', [client.clientSecret]]]));
  } else {
    (request.body as Record<string, unknown>).client_secret = client.clientSecret;
  }
}

function namesCredentials(request: FastifyRequest): boolean {
  const parameters = parametersOf(request);
  return parameters?.clientId !== undefined || parameters?.clientSecret !== undefined;
}

/**
 * The body credentials of a client_credentials request without an Authorization header, as far
 * as the route reads them before it authenticates the client; undefined for a request it
 * refuses before that (credentials in the URI, unreadable parameters, another grant_type).
 */
function bodyCredentials(request: FastifyRequest): TokenParameters | undefined {
  const query = request.query as Record<string, unknown>;
  if (request.headers.authorization !== undefined || 'client_id' in query || 'client_secret' in query) return undefined;
  const parameters = parametersOf(request);
  return parameters?.grantType === 'client_credentials' ? parameters : undefined;
}

/** A refusal for a missing client_id or client_secret (the route's TOKEN-009 answer). */
function missingCredential({ request, status }: Answer): TokenParameters | undefined {
  const credentials = status === 400 ? bodyCredentials(request) : undefined;
  return credentials && (credentials.clientId === undefined || credentials.clientSecret === undefined) ? credentials : undefined;
}

/**
 * invalid_client for credentials the route could read (in the body, or well-formed Basic): a
 * failed authentication, an unknown client or a wrong secret (the route's TOKEN-007 answer).
 */
function failedAuthentication({ request, body }: Answer): boolean {
  if (body.error !== 'invalid_client') return false;
  const basic = parseBasicCredentials(request.headers.authorization);
  return request.headers.authorization === undefined || (basic !== undefined && basic !== 'malformed');
}

/**
 * A preHandler that drops an Authorization: Basic header that does not decode (and that `which`
 * picks) when the body carries both credentials, so the body authenticates alone.
 */
function bodyWinsOverMalformedBasic(which: (header: string) => boolean): NonNullable<FaultDefinition['preHandler']> {
  return (request) => {
    const header = request.headers.authorization;
    if (header === undefined || parseBasicCredentials(header) !== 'malformed' || !which(header)) return;
    const body = readTokenParameters(request.body);
    if (body.clientId !== undefined && body.clientSecret !== undefined) delete request.headers.authorization;
  };
}

export const TOKEN_FAULTS = {
  'token.json-success-201': {
    breaks: ['TOKEN-101'],
    description: 'a token asked for with a JSON body is issued with status 201 (form and Basic requests get 200); the document shows no success status, so this breaks RFC 6749 5.1 alone',
    route: TOKEN,
    answer(answer) {
      if (answer.status === 200 && String(answer.request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) answer.status = 201;
    },
  },
  'token.form-credentials-refused': {
    breaks: ['TOKEN-004'],
    description: 'client credentials in a form-encoded body are refused (invalid_request)',
    route: TOKEN,
    preHandler(request) {
      if (request.body instanceof FormParameters && namesCredentials(request)) {
        throw new OAuthError('invalid_request', 'Client credentials in a form-encoded body are not supported.');
      }
    },
  },
  'token.basic-refused': {
    breaks: ['TOKEN-005'],
    description: 'HTTP Basic client authentication is refused (invalid_client)',
    route: TOKEN,
    preHandler(request) {
      if (parseBasicCredentials(request.headers.authorization) !== undefined) throw new OAuthError('invalid_client', 'HTTP Basic client authentication is not supported.');
    },
  },
  'token.form-grant-any-case': {
    breaks: ['TOKEN-008'],
    description: 'in a form-encoded body, grant_type is compared without letter case, so CLIENT_CREDENTIALS issues a token (a JSON body is still refused unsupported_grant_type)',
    route: TOKEN,
    preHandler(request) {
      if (!(request.body instanceof FormParameters)) return;
      const grants = request.body.values.get('grant_type');
      if (grants?.length === 1 && grants[0]!.toLowerCase() === 'client_credentials') {
        request.body = new FormParameters(new Map([...request.body.values, ['grant_type', ['client_credentials']]]));
      }
    },
  },
  'token.basic-with-own-client-id-refused': {
    breaks: ['TOKEN-106'],
    description: "HTTP Basic credentials with the same client's client_id alone in the body are refused invalid_request, as if the client_id were a second authentication method",
    route: TOKEN,
    preHandler(request) {
      const basic = parseBasicCredentials(request.headers.authorization);
      const parameters = parametersOf(request);
      if (basic === undefined || basic === 'malformed' || parameters === undefined) return;
      if (parameters.clientId === basic.clientId && parameters.clientSecret === undefined) {
        throw new OAuthError('invalid_request', 'Use one client authentication method: HTTP Basic or body credentials, not both (RFC 6749 2.3).');
      }
    },
  },
  'token.array-parameter-unwrapped': {
    breaks: ['TOKEN-012'],
    description: 'a JSON token parameter given as an array of one string is read as that string, so ["client_credentials"] and a wrapped secret issue a token',
    route: TOKEN,
    preValidation(request) {
      const fields = jsonMembersOf(request);
      if (!fields) return;
      for (const [name, value] of Object.entries(fields)) {
        if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') fields[name] = value[0];
      }
    },
  },
  'token.mistyped-secret-invalid-client': {
    breaks: ['TOKEN-112'],
    description: 'a JSON client_secret that is not a string is answered 401 invalid_client, as a wrong secret, instead of 400 invalid_request (no token is issued)',
    route: TOKEN,
    preValidation(request) {
      const secret = jsonMembersOf(request)?.client_secret;
      if (secret !== undefined && secret !== null && typeof secret !== 'string') throw new OAuthError('invalid_client', 'Client authentication failed.');
    },
  },
  'token.core-error-shape': {
    breaks: ['TOKEN-006'],
    description: 'a token request with no client credentials at all is answered in the CORE error wrapper',
    route: TOKEN,
    answer(answer) {
      const credentials = missingCredential(answer);
      if (credentials && credentials.clientId === undefined && credentials.clientSecret === undefined) {
        answer.body = coreErrorBody(new CoreError('INVALID_REQUEST', 'client_id and client_secret are required.'), answer.request.id);
      }
    },
  },
  'token.malformed-json-core-wrapper': {
    breaks: ['TOKEN-006'],
    description: "a token request whose JSON body does not parse is answered by the framework's parser in the CORE wrapper, not the OAuth body",
    route: TOKEN,
    answer(answer) {
      const code = (answer.error as { code?: unknown } | undefined)?.code;
      if (answer.status === 400 && code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
        answer.body = coreErrorBody(new CoreError('INVALID_REQUEST', 'The body is not valid JSON.'), answer.request.id);
      }
    },
  },
  'token.malformed-json-413': {
    breaks: ['TOKEN-103'],
    description: 'a token request whose JSON body does not parse is answered invalid_request in the OAuth body, with status 413 instead of 400',
    route: TOKEN,
    answer(answer) {
      if (answer.status === 400 && (answer.error as { code?: unknown } | undefined)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY') answer.status = 413;
    },
  },
  'token.undecodable-basic-crashes': {
    breaks: ['TOKEN-010'],
    description: 'Basic credentials whose form-encoding holds a broken percent escape make the decoder throw, and the token endpoint answers 500',
    route: TOKEN,
    preHandler(request) {
      const match = /^Basic +(\S+)$/i.exec(request.headers.authorization ?? '');
      if (match && /%(?![0-9A-Fa-f]{2})/.test(Buffer.from(match[1]!, 'base64').toString('utf8'))) decodeURIComponent('%');
    },
  },
  'token.uri-credentials-ignored': {
    breaks: ['TOKEN-203'],
    description: 'client credentials in the query string are ignored: a request whose body carries valid ones gets a token',
    route: TOKEN,
    preHandler(request) {
      const query = request.query as Record<string, unknown>;
      delete query.client_id;
      delete query.client_secret;
    },
  },
  'token.405-without-allow': {
    breaks: ['TOKEN-113'],
    description: 'another method than POST at the token path is answered 405 without the Allow header',
    // No route takes these requests: fastify names their route undefined, and the hook below picks the token path.
    route: /^(GET|PUT|DELETE|PATCH) /,
    answer(answer, ctx) {
      if (answer.status === 405 && onTokenPath(answer.request.url, ctx.behaviour.paths.token)) answer.reply.removeHeader('allow');
    },
  },
  'token.allow-lowercase': {
    breaks: ['TOKEN-113'],
    description: "another method than POST at the token path is answered 405 with Allow: post, a method name in lower case (method names are case-sensitive: another method)",
    route: /^(GET|PUT|DELETE|PATCH) /,
    answer(answer, ctx) {
      if (answer.status === 405 && onTokenPath(answer.request.url, ctx.behaviour.paths.token)) answer.reply.header('allow', 'post');
    },
  },
  'token.empty-grant-type-unsupported': {
    breaks: ['TOKEN-116'],
    description: 'grant_type given with no value (grant_type=) is answered unsupported_grant_type, as a grant type not supported, instead of invalid_request for a missing parameter (an absent grant_type still gets invalid_request)',
    route: TOKEN,
    rawBody: true,
    answer({ request, body }) {
      if (body.error === 'invalid_request' && /(^|&)grant_type=(&|$)/.test(rawBodyOf(request) ?? '')) body.error = 'unsupported_grant_type';
    },
  },
  'token.query-credentials-read': {
    breaks: ['TOKEN-117'],
    description: 'client_id and client_secret missing from the body are read from the query string, so a POST whose credentials are only in the URI gets a token (the profile check, with valid body credentials too, still sees its refusal)',
    route: TOKEN,
    preHandler(request) {
      const query = request.query as Record<string, unknown>;
      if (typeof query.client_id !== 'string' || typeof query.client_secret !== 'string' || request.headers.authorization !== undefined || namesCredentials(request)) return;
      const fields = { client_id: query.client_id, client_secret: query.client_secret };
      delete query.client_id;
      delete query.client_secret;
      if (request.body instanceof FormParameters) request.body = new FormParameters(new Map([...request.body.values, ...Object.entries(fields).map(([k, v]) => [k, [v]] as [string, string[]])]));
      else if (objectBodyOf(request)) Object.assign(objectBodyOf(request)!, fields);
    },
  },
  'token.get-query-credentials-issue': {
    breaks: ['TOKEN-113'],
    description: "a GET of the token path whose query carries grant_type=client_credentials and a client's valid credentials issues a token (a GET without them is still 405)",
    route: /^GET /,
    async answer(answer, ctx) {
      if (answer.status !== 405 || !onTokenPath(answer.request.url, ctx.behaviour.paths.token)) return;
      const query = answer.request.query as Record<string, unknown>;
      if (query.grant_type !== 'client_credentials' || typeof query.client_id !== 'string' || typeof query.client_secret !== 'string') return;
      const client = await ctx.tokenGuard.authenticate(sourceOf(answer.request.ip), query.client_id, query.client_secret, ctx.stores.clients.byClientId(query.client_id));
      if (!client) return;
      answer.status = 200;
      answer.body = await issueToken(ctx, client.apiClientId, ctx.options.tokenTtlSeconds);
      answer.reply.removeHeader('allow');
    },
  },
  'token.json-unknown-member-refused': {
    breaks: ['TOKEN-109'],
    description: 'a JSON token request with a member other than grant_type, client_id, client_secret and scope is refused invalid_request (a form request with an unknown parameter gets its token)',
    route: TOKEN,
    preHandler(request) {
      const body = request.body;
      if (!/json/i.test(request.headers['content-type'] ?? '') || typeof body !== 'object' || body === null) return;
      if (Object.keys(body).some((k) => !['grant_type', 'client_id', 'client_secret', 'scope'].includes(k))) throw new OAuthError('invalid_request', 'Unknown member in the token request.');
    },
  },
  'token.other-method-not-found': {
    breaks: ['TOKEN-204'],
    description: 'another method than POST at the token path is answered 404 NOT_FOUND in the CORE wrapper, as an unknown route',
    route: /^(GET|PUT|DELETE|PATCH) /,
    answer(answer, ctx) {
      if (answer.status !== 405 || !onTokenPath(answer.request.url, ctx.behaviour.paths.token)) return;
      const notFound = new CoreError('NOT_FOUND', 'No route matches this method and path.');
      answer.status = notFound.status;
      answer.body = coreErrorBody(notFound, answer.request.id);
      answer.reply.removeHeader('allow');
    },
  },
  'token.other-method-core-wrapper': {
    breaks: ['TOKEN-006'],
    description: 'another method than POST at the token path is answered 405 (with Allow: POST) in the CORE wrapper, as the core routes answer a wrong method, instead of the OAuth body',
    route: /^(GET|PUT|DELETE|PATCH) /,
    answer(answer, ctx) {
      if (answer.status !== 405 || !onTokenPath(answer.request.url, ctx.behaviour.paths.token)) return;
      answer.body = coreErrorBody(new CoreError('INVALID_REQUEST', 'This path takes POST only.'), answer.request.id);
    },
  },
  'token.basic-unknown-client-400': {
    breaks: ['TOKEN-104'],
    description: 'HTTP Basic naming a client id nobody was given is answered 400 invalid_client without a challenge (a known client with a wrong secret still gets 401 with WWW-Authenticate: Basic)',
    route: 'POST /api/auth/token',
    answer(answer, ctx) {
      const basic = parseBasicCredentials(answer.request.headers.authorization);
      if (answer.status !== 401 || typeof basic !== 'object' || ctx.stores.clients.byClientId(basic.clientId) !== undefined) return;
      answer.status = 400;
      answer.reply.removeHeader('www-authenticate');
    },
  },
  'token.basic-challenge-without-realm': {
    breaks: ['TOKEN-104'],
    description: 'invalid_client after HTTP Basic is 401 with a bare "WWW-Authenticate: Basic", without the realm RFC 7617 requires',
    route: TOKEN,
    answer(answer) {
      if (answer.status === 401 && /^\s*basic\b/i.test(String(answer.reply.getHeader('www-authenticate') ?? ''))) answer.reply.header('www-authenticate', 'Basic');
    },
  },
  'token.undecodable-body-500': {
    breaks: ['TOKEN-010'],
    description: 'a token request whose body holds bytes that are not UTF-8 is answered 500 server_error (its decoder throws) instead of a client error, where the core routes refuse such bytes 400',
    route: TOKEN,
    rawBody: true,
    answer(answer) {
      if ((answer.status !== 400 && answer.status !== 401) || !(rawBodyOf(answer.request) ?? '').includes('\uFFFD')) return;
      answer.status = 500;
      answer.body = { error: 'server_error', error_description: 'The request body could not be decoded.' };
    },
  },
  'token.undecodable-basic-unchallenged': {
    breaks: ['TOKEN-105'],
    description: 'HTTP Basic credentials that do not decode to an id and a secret (no colon, not base64) are refused 401 invalid_client without WWW-Authenticate; a wrong secret still gets the Basic challenge',
    route: TOKEN,
    answer(answer) {
      if (answer.status === 401 && /^\s*basic\b/i.test(answer.request.headers.authorization ?? '') && typeof parseBasicCredentials(answer.request.headers.authorization) !== 'object') answer.reply.removeHeader('www-authenticate');
    },
  },
  'token.unsupported-grant-wrong-code': {
    breaks: ['TOKEN-008'],
    description: 'a grant_type other than client_credentials is answered invalid_request instead of unsupported_grant_type',
    route: TOKEN,
    answer({ body }) {
      if (body.error === 'unsupported_grant_type') body.error = 'invalid_request';
    },
  },
  'token.bearer-token-required': {
    breaks: ['TOKEN-001'],
    description: 'a token request without an Authorization header is refused (invalid_client), as if a bearer token were needed',
    route: TOKEN,
    preHandler(request) {
      if (request.headers.authorization === undefined) throw new OAuthError('invalid_client', 'A bearer token is required.');
    },
  },
  'token.expires-in-missing': {
    breaks: ['TOKEN-002'],
    description: 'the token response leaves out expires_in',
    route: TOKEN,
    answer({ status, body }) {
      if (status === 200) delete body.expires_in;
    },
  },
  'token.expires-in-milliseconds': {
    breaks: ['TOKEN-011'],
    description: 'the token response reports expires_in in milliseconds (2000 for a token that lives 2 s), while the token expires when its lifetime in seconds is out',
    route: TOKEN,
    answer({ status, body }) {
      if (status === 200 && typeof body.expires_in === 'number') body.expires_in *= 1000;
    },
  },
  'token.json-credentials-refused': {
    breaks: ['TOKEN-003'],
    description: 'client credentials in a JSON body are refused (invalid_request)',
    route: TOKEN,
    preHandler(request) {
      if (!(request.body instanceof FormParameters) && namesCredentials(request)) {
        throw new OAuthError('invalid_request', 'Client credentials in a JSON body are not supported.');
      }
    },
  },
  'token.failed-auth-wrong-code': {
    breaks: ['TOKEN-007'],
    description: 'failed client authentication (unknown client or wrong secret) is answered invalid_request instead of invalid_client',
    route: TOKEN,
    answer(answer) {
      if (!failedAuthentication(answer)) return;
      answer.status = 400;
      answer.body.error = 'invalid_request';
      answer.reply.removeHeader('www-authenticate');
    },
  },
  'token.missing-credential-wrong-code': {
    breaks: ['TOKEN-009'],
    description: 'a request missing client_id or client_secret is answered invalid_client instead of invalid_request',
    route: TOKEN,
    answer(answer) {
      if (!missingCredential(answer)) return;
      answer.status = 401;
      answer.body.error = 'invalid_client';
      answer.reply.header('www-authenticate', TOKEN_CHALLENGE);
    },
  },
  'token.grant-substring-accepted': {
    breaks: ['TOKEN-008'],
    description: 'grant_type is accepted when client_credentials is anywhere in it, so "client_credentials_v2" and "urn:client_credentials" issue a token (the exact value and other grants are answered as before)',
    route: TOKEN,
    preHandler: grantReadAs((grant) => grant.includes('client_credentials')),
  },
  'token.grant-type-case-insensitive': {
    breaks: ['TOKEN-008'],
    description: 'grant_type is compared without regard to letter case: "CLIENT_CREDENTIALS" issues a token (other grants are still unsupported_grant_type)',
    route: TOKEN,
    preHandler: grantReadAs((grant) => grant.toLowerCase() === 'client_credentials'),
  },
  'token.no-store-missing-form': {
    breaks: ['TOKEN-102'],
    description: 'token answers to a form-encoded request carry no Cache-Control: no-store (JSON requests still do)',
    route: TOKEN,
    answer({ request, reply }) {
      if (/^application\/x-www-form-urlencoded/i.test(request.headers['content-type'] ?? '')) reply.removeHeader('cache-control');
    },
  },
  'token.basic-lifetime-halved': {
    breaks: ['TOKEN-011'],
    description: 'a token issued to HTTP Basic client authentication stops working after half the lifetime its expires_in reports (tokens asked for with body credentials live their full lifetime)',
    route: TOKEN,
    answer({ request, status, body }) {
      if (status !== 200 || typeof body.access_token !== 'string' || !/^Basic\s/i.test(request.headers.authorization ?? '')) return;
      halvedTokens.set(body.access_token, Date.now() + (Number(body.expires_in) * 1000) / 2);
    },
    behaviour: ({ authenticate }) => ({
      authenticate: async (request, reply) => {
        const token = tokenOf(request);
        const until = token === undefined ? undefined : halvedTokens.get(token);
        if (until !== undefined && Date.now() > until) throw unauthorized('The bearer token is unknown or expired.', true);
        return authenticate(request, reply);
      },
    }),
  },
  'token.basic-reports-default-lifetime': {
    breaks: ['TOKEN-011'],
    description: "a token issued to HTTP Basic client authentication reports expires_in 3600 (the server's default) while it lives its client's own, shorter lifetime",
    route: TOKEN,
    answer({ request, status, body }) {
      if (status === 200 && typeof body.access_token === 'string' && /^Basic\s/i.test(request.headers.authorization ?? '')) body.expires_in = 3600;
    },
  },
  'token.reissued-with-full-lifetime': {
    breaks: ['TOKEN-011'],
    description: "a client that asks again within 3 s gets the token it was issued a moment ago, reported with a full expires_in although it expires when the first was due to",
    route: TOKEN,
    answer: reissuedWithin(3_000),
  },
  'token.json-array-unwrapped': {
    breaks: ['TOKEN-010'],
    description: 'a JSON body that is an array is read as its first element, so credentials wrapped in an array issue a token',
    route: TOKEN,
    preHandler(request) {
      if (Array.isArray(request.body)) request.body = request.body[0];
    },
  },
  'token.basic-client-id-any-case': {
    breaks: ['TOKEN-007'],
    description: 'a client id given by HTTP Basic is looked up without regard to letter case, so DEMO-PRIMARY with the right secret authenticates demo-primary (an id in a body is still compared as written)',
    route: TOKEN,
    preHandler(request, { seeded }) {
      const basic = parseBasicCredentials(request.headers.authorization);
      if (basic === undefined || basic === 'malformed') return;
      const client = seeded.find((c) => c.clientId !== basic.clientId && c.clientId.toLowerCase() === basic.clientId.toLowerCase());
      if (client) request.headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(basic.clientSecret)}`).toString('base64')}`;
    },
  },
  'token.missing-grant-unsupported': {
    breaks: ['TOKEN-116'],
    description: 'a token request without grant_type is answered unsupported_grant_type (the grant type read as empty, which is not client_credentials) instead of invalid_request',
    route: TOKEN,
    answer(answer) {
      if (answer.body?.error !== 'invalid_request' || !/grant_type/.test(String(answer.body.error_description ?? ''))) return;
      answer.body = { ...answer.body, error: 'unsupported_grant_type', error_description: 'The grant type is not supported.' };
    },
  },
  'token.basic-scheme-as-written': {
    breaks: ['TOKEN-114'],
    description: "the Basic scheme is recognised only when written 'Basic': 'basic' or 'BASIC' credentials are taken for another scheme, so the request has none (400 invalid_request)",
    route: TOKEN,
    onRequest(request) {
      const header = request.headers.authorization ?? '';
      if (/^basic\s/i.test(header) && !/^Basic\s/.test(header)) request.headers.authorization = header.replace(/^\S+/, 'Other');
    },
  },
  'token.basic-scheme-anywhere': {
    breaks: ['TOKEN-115'],
    description: "the Basic scheme is looked for anywhere in the Authorization header: 'NotBasic <credentials>' or 'Digest Basic <credentials>' authenticates the client as Basic does",
    route: TOKEN,
    onRequest(request) {
      const header = request.headers.authorization ?? '';
      const at = header.search(/Basic +[A-Za-z0-9+/]+=* *$/);
      if (at > 0) request.headers.authorization = header.slice(at);
    },
  },
  'token.basic-double-padding-refused': {
    breaks: ['TOKEN-114'],
    description: "Basic credentials whose base64 ends in '==' are refused as undecodable (a hand-written decoder that takes one pad character)",
    route: TOKEN,
    preHandler(request) {
      if (/^Basic\s+\S*==\s*$/i.test(request.headers.authorization ?? '')) request.headers.authorization = 'Basic !';
    },
  },
  'token.form-plus-decoded-late': {
    breaks: ['TOKEN-004'],
    description: "form fields are percent-decoded first and '+' turned into a space after, so an encoded '%2B' in a client id or secret becomes a space (credentials without '+' still work)",
    route: TOKEN,
    rawBody: true,
    preHandler(request) {
      const raw = rawBodyOf(request);
      if (raw !== undefined && /x-www-form-urlencoded/i.test(request.headers['content-type'] ?? '') && /%2b/i.test(raw)) request.body = FormParameters.parse(raw.replace(/%2b/gi, '+'));
    },
  },
  'token.secret-prefix-accepted': {
    breaks: ['TOKEN-007'],
    description: "a client secret is compared only over the stored secret's length, so the real secret followed by anything issues a token",
    route: TOKEN,
    // What the client sent is cut to the length of the real secret before the route reads it.
    preHandler(request, { seeded }) {
      const given = presentedCredentials(request);
      const client = seeded.find((c) => c.clientId === given?.clientId);
      if (!client || !given?.clientSecret?.startsWith(client.clientSecret) || given.clientSecret === client.clientSecret) return;
      presentRealSecret(request, client);
    },
  },
  'token.any-known-secret': {
    breaks: ['TOKEN-007'],
    description: "a client secret is accepted when it is the secret of any client: a client's id with another client's secret issues a token for the named client",
    route: TOKEN,
    preHandler(request, { seeded }) {
      const given = presentedCredentials(request);
      const client = seeded.find((c) => c.clientId === given?.clientId);
      if (!client || given?.clientSecret === client.clientSecret || !seeded.some((c) => c.clientSecret === given?.clientSecret)) return;
      presentRealSecret(request, client);
    },
  },
  'token.json-any-known-secret': {
    breaks: ['TOKEN-007'],
    description: "in a JSON body only, a client secret is accepted when it is the secret of any client (a form body and HTTP Basic check the named client's own)",
    route: TOKEN,
    preHandler(request, { seeded }) {
      if (request.body instanceof FormParameters || parseBasicCredentials(request.headers.authorization) !== undefined) return;
      const given = bodyCredentials(request);
      const client = seeded.find((c) => c.clientId === given?.clientId);
      if (!client || given?.clientSecret === client.clientSecret || !seeded.some((c) => c.clientSecret === given?.clientSecret)) return;
      presentRealSecret(request, client);
    },
  },
  'token.form-secret-trimmed': {
    breaks: ['TOKEN-007'],
    description: 'a client secret in a form body is trimmed before it is compared, so the real secret with spaces around it, or a line feed after it, issues a token (a JSON body and HTTP Basic compare it as written)',
    route: TOKEN,
    preHandler(request, { seeded }) {
      if (!(request.body instanceof FormParameters)) return;
      const given = bodyCredentials(request);
      const client = seeded.find((c) => c.clientId === given?.clientId);
      if (!client || given?.clientSecret === client.clientSecret || given?.clientSecret?.trim() !== client.clientSecret) return;
      presentRealSecret(request, client);
    },
  },
  'token.json-client-id-trimmed': {
    breaks: ['TOKEN-007'],
    description: "a client id in a JSON body is trimmed before it is looked up, so ' demo-primary ' with the real secret authenticates demo-primary (a form body and HTTP Basic look it up as written)",
    route: TOKEN,
    preHandler(request, { seeded }) {
      const body = request.body instanceof FormParameters ? undefined : objectBodyOf(request);
      const id = body?.client_id;
      if (typeof id !== 'string' || id.trim() === id || !seeded.some((c) => c.clientId === id.trim())) return;
      body!.client_id = id.trim();
    },
  },
  'token.basic-subject-from-body': {
    breaks: ['TOKEN-007'],
    description: "HTTP Basic credentials that verify, with a body naming another client's id (and no secret), issue a token for the client the body names: the subject is taken from the body once Basic succeeded",
    route: TOKEN,
    preHandler(request, { seeded }) {
      const basic = parseBasicCredentials(request.headers.authorization);
      const named = parametersOf(request);
      if (typeof basic !== 'object' || named?.clientId === undefined || named.clientId === basic.clientId || named.clientSecret !== undefined) return;
      const authenticated = seeded.some((c) => c.clientId === basic.clientId && c.clientSecret === basic.clientSecret);
      const other = seeded.find((c) => c.clientId === named.clientId);
      if (authenticated && other) presentRealSecret(request, other);
    },
  },
  'token.unsupported-type-plain': {
    breaks: ['TOKEN-006'],
    description: "a token request labelled with a media type other than JSON or form fields (text/plain, XML, bytes, multipart) is refused 415 with a plain-text 'Unsupported Media Type' body, as the web framework answers it, instead of the OAuth body",
    route: TOKEN,
    answer(answer) {
      const type = (answer.request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (answer.status < 400 || type === '' || type === 'application/json' || type === 'application/x-www-form-urlencoded') return;
      answer.status = 415;
      answer.reply.header('content-type', 'text/plain; charset=utf-8');
      answer.text = 'Unsupported Media Type';
    },
  },
  'token.basic-grant-error-401': {
    breaks: ['TOKEN-103'],
    description: 'after HTTP Basic, unsupported_grant_type is answered 401 with a Basic challenge, as invalid_client is (with credentials in the body it is still 400)',
    route: TOKEN,
    answer(answer) {
      if (answer.body?.error !== 'unsupported_grant_type' || typeof parseBasicCredentials(answer.request.headers.authorization) !== 'object') return;
      answer.status = 401;
      answer.reply.header('www-authenticate', TOKEN_CHALLENGE);
    },
  },
  'token.typed-unknown-member-500': {
    breaks: ['TOKEN-010'],
    description: "a JSON token request's unknown members are read as strings (trimmed), so one whose value is an object, a number, an array, a boolean or null fails the handler: 500 SERVER_ERROR in the CORE wrapper (a string one is ignored)",
    route: TOKEN,
    preHandler(request) {
      const body = request.body instanceof FormParameters ? undefined : objectBodyOf(request);
      if (body && Object.entries(body).some(([k, v]) => !['grant_type', 'client_id', 'client_secret', 'scope'].includes(k) && typeof v !== 'string')) throw new Error('value.strip is not a function');
    },
  },
  'token.grant-echoed-unescaped': {
    breaks: ['ERR-004'],
    description: 'an unsupported grant_type is written into error_description as it came, unescaped: a grant holding a quote or a backslash gets a body that is no JSON (a plain one, such as password, gets valid JSON)',
    route: TOKEN,
    answer(answer) {
      if (answer.body?.error !== 'unsupported_grant_type') return;
      const grant = parametersOf(answer.request)?.grantType ?? '';
      answer.text = `{"error":"unsupported_grant_type","error_description":"grant type ${grant} is not supported"}`;
    },
  },
  'token.undecodable-basic-ignored': {
    breaks: ['TOKEN-106'],
    description: 'an Authorization: Basic header that does not decode is ignored when the body carries credentials: the body authenticates and a token is issued (alone, the header is still invalid_client)',
    route: TOKEN,
    preHandler: bodyWinsOverMalformedBasic(() => true),
  },
  'token.misencoded-basic-ignored': {
    breaks: ['TOKEN-106'],
    description: "an Authorization: Basic header that decodes from base64, but whose id or secret has broken form encoding (%zz), is ignored when the body carries credentials: the body authenticates and a token is issued (a header that is no base64 is still refused)",
    route: TOKEN,
    preHandler: bodyWinsOverMalformedBasic((header) => {
      const encoded = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header)?.[1];
      return encoded !== undefined && Buffer.from(encoded, 'base64').toString('utf8').includes(':');
    }),
  },
  'token.empty-param-second-method': {
    breaks: ['TOKEN-108'],
    description: 'an empty client_id or client_secret in the body beside HTTP Basic is counted as a second authentication method: 400 invalid_request',
    route: TOKEN,
    preHandler(request) {
      if (!/^Basic\s/i.test(request.headers.authorization ?? '') || !(request.body instanceof FormParameters)) return;
      if (request.body.values.has('client_id') || request.body.values.has('client_secret')) throw new OAuthError('invalid_request', 'Use one client authentication method.');
    },
  },
  'token.invalid-client-status-200': {
    breaks: ['TOKEN-010'],
    description: 'invalid_client is answered with status 200 (the OAuth error body is unchanged)',
    route: TOKEN,
    answer(answer) {
      if (!failedAuthentication(answer)) return;
      answer.status = 200;
      answer.reply.removeHeader('www-authenticate');
    },
  },
} satisfies Record<string, FaultDefinition>;
