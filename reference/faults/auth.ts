import type { FastifyRequest } from 'fastify';
import { bearerToken, unauthorized } from '../auth/bearer.ts';
import { tokenHash } from '../auth/tokenHash.ts';
import { CoreError } from '../errors.ts';
import type { FaultDefinition } from './fault.ts';

// Faults of bearer authentication (section 5). Each wraps the authenticate hook every core
// route runs first (behaviour.authenticate) and falls back to it.

const tokenOf = (request: FastifyRequest): string | undefined => bearerToken(request.headers.authorization ?? '');
const routeOf = (request: FastifyRequest): string => `${request.method} ${request.routeOptions.url}`;

export const AUTH_FAULTS = {
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
} satisfies Record<string, FaultDefinition>;
