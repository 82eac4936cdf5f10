import { parseBasicCredentials } from '../reference/auth/basicCredentials.ts';
import { unauthorized } from '../reference/auth/bearer.ts';
import { tokenHash } from '../reference/auth/tokenHash.ts';
import { CoreError, coreErrorBody } from '../reference/errors.ts';
import { basicTokensOf, fileBasicTokens, ofServer, routeOf, tokenOf, type FaultDefinition } from './fault.ts';

// Faults of bearer authentication (section 5). Each wraps the authenticate hook every core
// route runs first (behaviour.authenticate) and falls back to it; one also reads the tokens the
// token endpoint issues.

/**
 * The tokens a server with auth.token-case-insensitive issued, by their lower-case form, per
 * server (its stores): the reference keeps only their hashes, which cannot be matched in any case.
 */
const issuedTokens = new WeakMap<object, Map<string, string>>();
const issuedBy = (stores: object) => ofServer(issuedTokens, stores, () => new Map<string, string>());

/** When each token last authenticated a request, per server, under auth.expiry-slides-with-use; the window is the bundled reference's short-lived tokens' lifetime. */
const lastUsedTimes = new WeakMap<object, Map<string, number>>();
const lastUsedBy = (stores: object) => ofServer(lastUsedTimes, stores, () => new Map<string, number>());
const SLIDING_WINDOW_MS = 5_000;

/** How many requests each token authenticated, per server, under auth.token-use-quota, and how many it may. */
const tokenUses = new WeakMap<object, Map<string, number>>();
const TOKEN_USE_QUOTA = 150;

/** When each token was issued and to which client, and when each client last failed to authenticate, per server, under auth.failed-token-request-revokes. */
const revocations = new WeakMap<object, { issued: Map<string, { client: string; at: number }>; failed: Map<string, number> }>();
const revocationsOf = (stores: object) => ofServer(revocations, stores, () => ({ issued: new Map<string, { client: string; at: number }>(), failed: new Map<string, number>() }));

/**
 * The hooks of a fault that refuses a client's older tokens once it obtained newer ones: the
 * token endpoint's answers are watched for the tokens it issues and when (in clear), and a token
 * is refused 401 when `refused` says so, given when it was issued and when the client's later
 * tokens were.
 */
function refusedAfterRenewal(refused: (issuedAt: number, renewals: number[]) => boolean): Pick<FaultDefinition, 'route' | 'answer' | 'behaviour'> {
  return {
    route: 'POST /api/auth/token',
    answer({ status, body }, { stores }) {
      if (status !== 200 || typeof body.access_token !== 'string') return;
      const client = stores.clients.byTokenHash(tokenHash(body.access_token), Date.now());
      if (client) issuedAt(stores).set(body.access_token, { client: client.apiClientId, at: Date.now() });
    },
    behaviour: ({ authenticate }, { stores }) => ({
      authenticate: async (request, reply) => {
        const token = tokenOf(request);
        const issued = token === undefined ? undefined : issuedAt(stores).get(token);
        if (issued !== undefined) {
          const renewals = [...issuedAt(stores).values()].filter((other) => other.client === issued.client && other.at > issued.at).map((other) => other.at);
          if (refused(issued.at, renewals)) throw unauthorized('The bearer token is unknown or expired.', true);
        }
        return authenticate(request, reply);
      },
    }),
  };
}

/** The client id a token request names, in its body or its HTTP Basic header. */
function namedClientId(body: unknown, authorization: string | undefined): string | undefined {
  const inBody = (body as { client_id?: unknown } | null)?.client_id;
  const basic = parseBasicCredentials(authorization);
  return typeof inBody === 'string' ? inBody : typeof basic === 'object' ? basic.clientId : undefined;
}

/** The client that last obtained a token, per server, under auth.token-acts-for-latest-client. */
const latestClient = new WeakMap<object, string>();

/** Updates let through despite their credentials, and the refusal each is answered with, under auth.refused-update-applied. */
const refusedButApplied = new WeakMap<object, CoreError>();

export const AUTH_FAULTS = {
  'auth.refused-update-applied': {
    breaks: ['AUTH-001'],
    description: "an update whose credentials are refused (no token, one never issued, a Basic header) is answered 401 as it should be, but applied first, as the number's owner",
    route: 'PATCH /api/core/numbers/:numberId',
    answer(answer) {
      const refusal = refusedButApplied.get(answer.request);
      if (refusal === undefined) return;
      answer.status = refusal.status;
      answer.body = coreErrorBody(refusal, answer.request.id);
      for (const [name, value] of Object.entries(refusal.headers)) answer.reply.header(name, value);
    },
    behaviour: ({ authenticate }, { stores }) => ({
      authenticate: async (request, reply) => {
        try {
          return await authenticate(request, reply);
        } catch (error) {
          const number = routeOf(request) === 'PATCH /api/core/numbers/:numberId' && error instanceof CoreError && error.status === 401 ? stores.numbers.byId((request.params as { numberId?: string }).numberId ?? '') : undefined;
          const owner = number && stores.clients.byApiClientId(number.apiClientId);
          if (!owner) throw error;
          request.apiClient = owner;
          refusedButApplied.set(request, error as CoreError);
        }
      },
    }),
  },
  'auth.malformed-bearer-500': {
    breaks: ['AUTH-002'],
    description: 'an Authorization header that starts with Bearer but is not one well-formed token is answered 500',
    behaviour: ({ authenticate }) => ({
      authenticate: async (request, reply) => {
        const header = request.headers.authorization ?? '';
        if (/^bearer\b/i.test(header) && tokenOf(request) === undefined) throw new Error('cannot parse the bearer credentials');
        return authenticate(request, reply);
      },
    }),
  },
  'auth.bearer-one-space-only': {
    breaks: ['AUTH-106'],
    description: "a bearer token two spaces after the scheme name is refused 401 as malformed (the header is split on one space)",
    behaviour: ({ authenticate }) => ({
      authenticate: async (request, reply) => {
        if (/^bearer {2,}/i.test(request.headers.authorization ?? '')) throw unauthorized('The Authorization header is not a well-formed bearer token.', true);
        return authenticate(request, reply);
      },
    }),
  },
  'auth.dotted-token-500': {
    breaks: ['AUTH-004'],
    description: "a bearer token of three dot-separated parts is decoded as a JWT to find its client, and one whose parts are not base64 JSON is answered 500",
    behaviour: ({ authenticate }) => ({
      authenticate: async (request, reply) => {
        const token = tokenOf(request);
        const parts = token?.split('.');
        if (parts?.length === 3) JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
        return authenticate(request, reply);
      },
    }),
  },
  'auth.expired-token-accepted': {
    breaks: ['AUTH-003'],
    description: 'an expired access token is still accepted',
    // Tokens are looked up as of the epoch, so none has expired yet.
    behaviour: ({ authenticate }, { stores }) => ({
      authenticate: async (request, reply) => {
        const token = tokenOf(request);
        const client = token === undefined ? undefined : stores.clients.byTokenHash(tokenHash(token), 0);
        if (!client) return authenticate(request, reply);
        request.apiClient = client;
      },
    }),
  },
  'auth.basic-tokens-outlive-expires-in': {
    breaks: ['AUTH-003'],
    description: 'a token issued to a client that authenticated with HTTP Basic never expires, whatever expires_in it reported; tokens asked for with body credentials expire as they say',
    route: 'POST /api/auth/token',
    answer: fileBasicTokens,
    behaviour: ({ authenticate }, { stores }) => ({
      authenticate: async (request, reply) => {
        const token = tokenOf(request);
        const hash = token === undefined ? undefined : tokenHash(token);
        const client = hash !== undefined && basicTokensOf(stores).has(hash) ? stores.clients.byTokenHash(hash, 0) : undefined;
        if (!client) return authenticate(request, reply);
        request.apiClient = client;
      },
    }),
  },
  'auth.expiry-slides-with-use': {
    breaks: ['AUTH-003'],
    description: "a token's expiry moves forward with each request it authenticates: a token used at least every 5 s is never refused, one left alone expires as issued",
    behaviour: ({ authenticate }, { stores }) => {
      const lastUse = lastUsedBy(stores);
      return {
        authenticate: async (request, reply) => {
          const token = tokenOf(request);
          const hash = token === undefined ? undefined : tokenHash(token);
          const now = Date.now();
          const used = hash === undefined ? undefined : lastUse.get(hash);
          // Expired as issued, but used within the sliding window: still taken.
          const issuedTo = hash === undefined ? undefined : stores.clients.byTokenHash(hash, 0);
          if (hash !== undefined && issuedTo && used !== undefined && now - used < SLIDING_WINDOW_MS && !stores.clients.byTokenHash(hash, now)) {
            lastUse.set(hash, now);
            request.apiClient = issuedTo;
            return;
          }
          await authenticate(request, reply);
          if (hash !== undefined && request.apiClient) lastUse.set(hash, now);
        },
      };
    },
  },
  'auth.missing-token-accepted-on-numbers': {
    breaks: ['AUTH-001'],
    description: "the numbers list without an Authorization header is answered with the first client's numbers",
    behaviour: ({ authenticate }, { stores, seeded }) => ({
      authenticate: async (request, reply) => {
        if (routeOf(request) !== 'GET /api/core/numbers' || request.headers.authorization !== undefined) return authenticate(request, reply);
        request.apiClient = stores.clients.byApiClientId(seeded[0]!.apiClientId)!;
      },
    }),
  },
  'auth.query-token-accepted': {
    breaks: ['AUTH-001'],
    description: "a request without an Authorization header is authenticated by a token given as the access_token query parameter (RFC 6750 2.3), on every core route",
    behaviour: ({ authenticate }) => ({
      authenticate: async (request, reply) => {
        const inQuery = (request.query as { access_token?: unknown } | undefined)?.access_token;
        if (request.headers.authorization === undefined && typeof inQuery === 'string') request.headers.authorization = `Bearer ${inQuery}`;
        return authenticate(request, reply);
      },
    }),
  },
  'auth.replay-without-token': {
    breaks: ['AUTH-001'],
    description: "a send without an Authorization header whose Idempotency-Key has a live record is answered with that record (the idempotency cache is read before authentication): another caller's accepted send is replayed to anyone",
    route: 'POST /api/core/messages/send',
    answer(answer, ctx) {
      const key = answer.request.headers['idempotency-key'];
      if (answer.status !== 401 || answer.request.headers.authorization !== undefined || typeof key !== 'string') return;
      for (const { apiClientId } of ctx.seeded) {
        const record = ctx.stores.idempotency.find(apiClientId, key, Date.now());
        if (!record) continue;
        answer.status = record.statusCode;
        answer.body = JSON.parse(record.body) as Record<string, unknown>;
        return;
      }
    },
  },
  'auth.defect-before-token-unchallenged': {
    breaks: ['AUTH-107'],
    description: 'a send without an Authorization header and without an Idempotency-Key is answered 400 INVALID_REQUEST, the key checked before the credential (legal by the document), and that answer carries no WWW-Authenticate',
    route: 'POST /api/core/messages/send',
    answer(answer) {
      const { headers, id } = answer.request;
      if (answer.status !== 401 || headers.authorization !== undefined || headers['idempotency-key'] !== undefined) return;
      answer.status = 400;
      answer.body = coreErrorBody(new CoreError('INVALID_REQUEST', 'The Idempotency-Key header is required.', { header: 'Idempotency-Key' }), id);
      answer.reply.removeHeader('www-authenticate');
    },
  },
  'auth.unknown-token-forbidden': {
    breaks: ['AUTH-004'],
    description: 'a well-formed token the server never issued is answered 403 FORBIDDEN instead of 401',
    // Never issued, not merely expired: unknown even as of the epoch.
    behaviour: ({ authenticate }, { stores }) => ({
      authenticate: async (request, reply) => {
        const token = tokenOf(request);
        if (token !== undefined && !stores.clients.byTokenHash(tokenHash(token), 0)) throw new CoreError('FORBIDDEN', 'This token grants no access.');
        return authenticate(request, reply);
      },
    }),
  },
  'auth.token-case-insensitive': {
    breaks: ['AUTH-004'],
    description: 'a bearer token is looked up without regard to letter case, so the issued token with its letters in another case is accepted',
    // The token endpoint's answers are watched for the tokens it issues, in clear.
    route: 'POST /api/auth/token',
    answer({ status, body }, { stores }) {
      if (status === 200 && typeof body.access_token === 'string') issuedBy(stores).set(body.access_token.toLowerCase(), body.access_token);
    },
    behaviour: ({ authenticate }, { stores }) => ({
      authenticate: async (request, reply) => {
        const token = tokenOf(request);
        const issued = token === undefined ? undefined : issuedBy(stores).get(token.toLowerCase());
        if (issued !== undefined && issued !== token) request.headers.authorization = `Bearer ${issued}`;
        return authenticate(request, reply);
      },
    }),
  },
  'auth.token-acts-for-latest-client': {
    breaks: ['AUTH-007'],
    description: 'whoami answers for the client that most recently obtained a token, whichever live token is presented (a "current client" kept by the token endpoint)',
    route: 'POST /api/auth/token',
    answer({ request, status }, { stores }) {
      if (status !== 200) return;
      const body = (request.body ?? {}) as { client_id?: unknown };
      const basic = /^Basic\s+(\S+)/i.exec(request.headers.authorization ?? '')?.[1];
      const id = typeof body.client_id === 'string' ? body.client_id : basic ? decodeURIComponent(Buffer.from(basic, 'base64').toString('utf8').split(':')[0]!.replace(/\+/g, ' ')) : undefined;
      const client = id === undefined ? undefined : stores.clients.byClientId(id);
      if (client) latestClient.set(stores, client.apiClientId);
    },
    behaviour: ({ authenticate }, { stores }) => ({
      authenticate: async (request, reply) => {
        await authenticate(request, reply);
        const latest = latestClient.get(stores);
        if (routeOf(request) === 'GET /api/core/whoami' && request.apiClient && latest) request.apiClient = stores.clients.byApiClientId(latest) ?? request.apiClient;
      },
    }),
  },
  'auth.head-unauthenticated': {
    breaks: ['AUTH-001'],
    description: 'HEAD on a GET route is answered 200 whatever the credentials, as if it were answered before the bearer check (GET is still refused 401 without a token)',
    route: /^HEAD \/api\/core\//,
    answer(answer) {
      if (answer.status !== 401) return;
      answer.status = 200;
      answer.reply.removeHeader('www-authenticate');
    },
  },
  'auth.bare-bearer-challenge': {
    breaks: ['AUTH-101'],
    description: 'a request without credentials is challenged with a bare "WWW-Authenticate: Bearer", no auth-param at all (a failed token still gets realm and error)',
    behaviour: ({ authenticate }) => ({
      authenticate: async (request, reply) => {
        try {
          return await authenticate(request, reply);
        } catch (error) {
          if (request.headers.authorization === undefined && error instanceof CoreError && error.status === 401) throw new CoreError('UNAUTHORIZED', error.message, {}, { 'www-authenticate': 'Bearer' });
          throw error;
        }
      },
    }),
  },
  'auth.expired-challenge-unescaped-quote': {
    breaks: ['AUTH-102'],
    description: 'an expired token is challenged with an error_description whose inner quotes are not escaped (error_description="token "expired""), so the header no longer parses; unknown tokens and requests without one get the well-formed challenge',
    behaviour: ({ authenticate }, { stores }) => ({
      authenticate: async (request, reply) => {
        try {
          return await authenticate(request, reply);
        } catch (error) {
          const token = tokenOf(request);
          const expired = token !== undefined && stores.clients.byTokenHash(tokenHash(token), 0) !== undefined;
          if (expired && error instanceof CoreError && error.status === 401) {
            throw new CoreError('UNAUTHORIZED', error.message, {}, { 'www-authenticate': 'Bearer realm="api", error="invalid_token", error_description="token "expired""' });
          }
          throw error;
        }
      },
    }),
  },
  'auth.scheme-case-drops-error-code': {
    breaks: ['AUTH-102'],
    description: 'a failed token sent under the scheme spelled other than "Bearer" ("bearer", "BEARER") is challenged with no error code, as if no credentials had been sent',
    behaviour: ({ authenticate }) => ({
      authenticate: async (request, reply) => {
        const header = request.headers.authorization ?? '';
        try {
          return await authenticate(request, reply);
        } catch (error) {
          if (/^bearer\b/i.test(header) && !header.startsWith('Bearer') && error instanceof CoreError && error.status === 401) throw unauthorized(error.message, false);
          throw error;
        }
      },
    }),
  },
  'auth.malformed-bearer-no-error-code': {
    breaks: ['AUTH-102'],
    description: 'a bearer credential that is not one well-formed token ("Bearer a b") is challenged with no error code, as if no credentials had been sent',
    behaviour: ({ authenticate }) => ({
      authenticate: async (request, reply) => {
        const header = request.headers.authorization ?? '';
        if (/^bearer\s+\S/i.test(header) && tokenOf(request) === undefined) throw unauthorized('The Authorization header is not a well-formed bearer token.', false);
        return authenticate(request, reply);
      },
    }),
  },
  'auth.token-prefix-compared': {
    breaks: ['AUTH-004'],
    description: 'a bearer token is compared over its first 32 characters only (a column too short for it): the issued token with a character after the 32nd changed is accepted',
    // The token endpoint's answers are watched for the tokens it issues, in clear.
    route: 'POST /api/auth/token',
    answer({ status, body }, { stores }) {
      if (status === 200 && typeof body.access_token === 'string') issuedBy(stores).set(`prefix:${body.access_token.slice(0, 32)}`, body.access_token);
    },
    behaviour: ({ authenticate }, { stores }) => ({
      authenticate: async (request, reply) => {
        const token = tokenOf(request);
        const issued = token === undefined || token.length <= 32 ? undefined : issuedBy(stores).get(`prefix:${token.slice(0, 32)}`);
        if (issued !== undefined && issued !== token && issued.length === token!.length) request.headers.authorization = `Bearer ${issued}`;
        return authenticate(request, reply);
      },
    }),
  },
  'auth.update-refuses-tokens': {
    breaks: ['AUTH-005'],
    description: 'the number update route answers 401 to every bearer token, however freshly issued',
    behaviour: ({ authenticate }) => ({
      authenticate: async (request, reply) => {
        if (routeOf(request) === 'PATCH /api/core/numbers/:numberId') throw unauthorized('The bearer token is unknown or expired.', true);
        return authenticate(request, reply);
      },
    }),
  },
  'auth.expired-accepted-by-send': {
    breaks: ['AUTH-003'],
    description: 'the send route does not check whether a token has expired; the other routes forget an expired token the first time they refuse it, so that one is then unknown to the send route as well',
    behaviour: ({ authenticate }, { stores }) => {
      const forgotten = forgottenBy(stores);
      return {
        authenticate: async (request, reply) => {
          const token = tokenOf(request);
          const hash = token === undefined ? undefined : tokenHash(token);
          if (hash !== undefined && forgotten.has(hash)) throw unauthorized('The bearer token is unknown or expired.', true);
          // Known as of the epoch: issued, expired or not.
          const issuedTo = hash === undefined ? undefined : stores.clients.byTokenHash(hash, 0);
          if (routeOf(request) === 'POST /api/core/messages/send' && issuedTo) {
            request.apiClient = issuedTo;
            return;
          }
          try {
            return await authenticate(request, reply);
          } catch (error) {
            if (hash !== undefined && issuedTo) forgotten.add(hash);
            throw error;
          }
        },
      };
    },
  },
  'auth.failed-token-request-revokes': {
    breaks: ['AUTH-007'],
    description: "a token request for a known client that fails (a wrong secret) revokes every token the client was issued before it: its live tokens are refused 401 from then on",
    route: 'POST /api/auth/token',
    answer({ request, status, body }, { stores }) {
      const { issued, failed } = revocationsOf(stores);
      if (status === 200 && typeof body.access_token === 'string') {
        const client = stores.clients.byTokenHash(tokenHash(body.access_token), Date.now());
        if (client) issued.set(body.access_token, { client: client.apiClientId, at: Date.now() });
        return;
      }
      const clientId = body.error === 'invalid_client' ? namedClientId(request.body, request.headers.authorization) : undefined;
      const client = clientId === undefined ? undefined : stores.clients.byClientId(clientId);
      if (client) failed.set(client.apiClientId, Date.now());
    },
    behaviour: ({ authenticate }, { stores }) => ({
      authenticate: async (request, reply) => {
        const { issued, failed } = revocationsOf(stores);
        const token = tokenOf(request);
        const mine = token === undefined ? undefined : issued.get(token);
        if (mine !== undefined && (failed.get(mine.client) ?? 0) > mine.at) throw unauthorized('The bearer token is unknown or expired.', true);
        return authenticate(request, reply);
      },
    }),
  },
  'auth.token-use-quota': {
    breaks: ['TOKEN-011'],
    description: 'a token is refused 401 once it has authenticated 150 requests, long before its expires_in is out (a per-token quota counted as if it were the lifetime)',
    behaviour: ({ authenticate }, { stores }) => {
      const uses = ofServer(tokenUses, stores, () => new Map<string, number>());
      return {
        authenticate: async (request, reply) => {
          const token = tokenOf(request);
          const hash = token === undefined ? undefined : tokenHash(token);
          if (hash !== undefined && (uses.get(hash) ?? 0) >= TOKEN_USE_QUOTA) throw unauthorized('The bearer token is unknown or expired.', true);
          await authenticate(request, reply);
          if (hash !== undefined && request.apiClient) uses.set(hash, (uses.get(hash) ?? 0) + 1);
        },
      };
    },
  },
  'auth.older-tokens-revoked': {
    breaks: ['TOKEN-011'],
    description: "issuing a token to a client revokes the client's tokens obtained more than 3 s before: a token used alone lives its expires_in, one in use a while is refused once the client obtains another",
    ...refusedAfterRenewal((issued, renewals) => renewals.some((at) => at - issued > 3_000)),
  },
  'auth.renewal-grace-5s': {
    breaks: ['TOKEN-011'],
    description: "once a client obtains a new token, each of its older tokens lives 5 s more (a grace for requests in flight), not the lifetime its expires_in said: a token presented right after a renewal works, the client's token of a minute ago does not",
    ...refusedAfterRenewal((_issued, renewals) => renewals.length > 0 && Date.now() > Math.min(...renewals) + 5_000),
  },
  'auth.token-suffix-ignored': {
    breaks: ['AUTH-004'],
    description: 'characters after an issued token are ignored: the issued token with more characters appended is accepted as the token',
    // The token endpoint's answers are watched for the tokens it issues, in clear.
    route: 'POST /api/auth/token',
    answer({ status, body }, { stores }) {
      if (status === 200 && typeof body.access_token === 'string') issuedBy(stores).set(`issued:${body.access_token}`, body.access_token);
    },
    behaviour: ({ authenticate }, { stores }) => ({
      authenticate: async (request, reply) => {
        const token = tokenOf(request);
        if (token !== undefined) {
          for (let end = token.length - 1; end > 0; end--) {
            const issued = issuedBy(stores).get(`issued:${token.slice(0, end)}`);
            if (issued !== undefined) {
              request.headers.authorization = `Bearer ${issued}`;
              break;
            }
          }
        }
        return authenticate(request, reply);
      },
    }),
  },
} satisfies Record<string, FaultDefinition>;

/** The expired tokens a server with auth.expired-accepted-by-send has refused once, by their hash, per server. */
const forgottenTokens = new WeakMap<object, Set<string>>();
const forgottenBy = (stores: object) => ofServer(forgottenTokens, stores, () => new Set<string>());

/** When each token was issued, and to which client, per server, under auth.older-tokens-revoked. */
const issuedTimes = new WeakMap<object, Map<string, { client: string; at: number }>>();
const issuedAt = (stores: object) => ofServer(issuedTimes, stores, () => new Map<string, { client: string; at: number }>());
