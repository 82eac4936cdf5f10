import { callerOf } from '../reference/auth/bearer.ts';
import { tokenHash } from '../reference/auth/tokenHash.ts';
import { TOKEN_CHALLENGE } from '../reference/routes/token.ts';
import type { ReferenceContext } from '../reference/context.ts';
import { currentClientAfterAwait, ofServer, routeOf, tokenOf, type FaultDefinition } from './fault.ts';

// Faults of the client context (sections 2, 4.2): each rewrites the whoami answer, but one that
// reads it for the wrong caller.

const WHOAMI = 'GET /api/core/whoami';

/** A whoami answer whose `kind` flag is true once any of the caller's numbers has that kind's override. */
function overrideCountsAsClientWebhook(kind: 'delivery' | 'inbound'): NonNullable<FaultDefinition['answer']> {
  const field = kind === 'delivery' ? 'webhookDeliveryOverride' : 'webhookInboundOverride';
  return ({ request, status, body }, { stores }) => {
    if (status !== 200) return;
    if (stores.numbers.listForClient(callerOf(request).apiClientId).some((n) => n[field] !== null)) body[`${kind}WebhookConfigured`] = true;
  };
}

/** The user-id of an HTTP Basic header as written (still form-encoded), if the header is Basic. */
function basicUserIdAsWritten(header: string | undefined): string | undefined {
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  return decoded.includes(':') ? decoded.slice(0, decoded.indexOf(':')) : undefined;
}

// Tokens issued through HTTP Basic, by hash, with the user-id as written (ctx.basic-token-raw-client-id).
const issuedThroughBasic = new Map<string, string>();

// The numbers each client was refused an update of, per server (ctx.count-includes-refused-update).
const refusedUpdates = new WeakMap<ReferenceContext, Map<string, Set<string>>>();

// The name of the client that last obtained a token, per server (ctx.name-of-latest-token).
const latestName = new WeakMap<ReferenceContext, { name?: string }>();

export const CONTEXT_FAULTS = {
  'ctx.name-of-latest-token': {
    breaks: ['AUTH-007'],
    description: "the client context gives as apiClientName the name of whichever client last obtained a token (a module-level variable): a client's token, asked after another client got one, sees the other's name beside its own apiClientId",
    route: /^(POST \/api\/auth\/token|GET \/api\/core\/whoami)$/,
    answer({ request, status, body }, ctx) {
      if (status !== 200) return;
      const latest = ofServer(latestName, ctx, (): { name?: string } => ({}));
      if (routeOf(request) === 'POST /api/auth/token') {
        if (typeof body.access_token === 'string') latest.name = ctx.stores.clients.byTokenHash(tokenHash(body.access_token), Date.now())?.name;
        return;
      }
      if (latest.name !== undefined) body.apiClientName = latest.name;
    },
  },
  'whoami.field-missing': {
    breaks: ['CTX-001'],
    description: 'the client context leaves out apiClientName',
    route: WHOAMI,
    answer({ status, body }) {
      if (status === 200) delete body.apiClientName;
    },
  },
  'whoami.field-mistyped': {
    breaks: ['CTX-001'],
    description: 'the client context gives capabilities as the JSON text of the stored column instead of an array',
    route: WHOAMI,
    answer({ status, body }) {
      if (status === 200) body.capabilities = JSON.stringify(body.capabilities);
    },
  },
  'ctx.same-id-for-every-client': {
    breaks: ['CTX-002'],
    description: "the client context gives the first client's apiClientId to every client",
    route: WHOAMI,
    answer({ status, body }, { seeded }) {
      if (status === 200) body.apiClientId = seeded[0]!.apiClientId;
    },
  },
  'ctx.basic-token-raw-client-id': {
    breaks: ['AUTH-007'],
    description: "a token obtained with HTTP Basic keeps the Basic user-id as written, and the client context it sees gives that as apiClientId when form encoding changed it: a client whose id has reserved characters (special:client+1) sees 'special%3Aclient%2B1' through a Basic token and its own apiClientId through any other",
    route: /^(POST \/api\/auth\/token|GET \/api\/core\/whoami)$/,
    answer({ request, status, body }) {
      if (status !== 200) return;
      if (routeOf(request) === 'POST /api/auth/token') {
        const written = basicUserIdAsWritten(request.headers.authorization);
        if (written !== undefined && written !== decodeURIComponent(written.replace(/\+/g, ' ')) && typeof body.access_token === 'string') issuedThroughBasic.set(tokenHash(body.access_token), written);
        return;
      }
      const written = issuedThroughBasic.get(tokenHash(tokenOf(request) ?? ''));
      if (written !== undefined) body.apiClientId = written;
    },
  },
  'ctx.client-race': {
    breaks: ['CTX-002'],
    description: "the client context keeps the caller in a module-level variable across an await, so requests of two clients at once may each get the other's context",
    route: WHOAMI,
    preHandler: currentClientAfterAwait(),
  },
  'ctx.delivery-flag-always-true': {
    breaks: ['CTX-003'],
    description: 'deliveryWebhookConfigured is true even when the client has no delivery webhook',
    route: WHOAMI,
    answer({ status, body }) {
      if (status === 200) body.deliveryWebhookConfigured = true;
    },
  },
  'ctx.override-counts-as-client-webhook': {
    breaks: ['CTX-004'],
    description: "deliveryWebhookConfigured is true once any of the client's numbers has a webhookDeliveryOverride, as if a number's override were the client's webhook",
    route: WHOAMI,
    answer: overrideCountsAsClientWebhook('delivery'),
  },
  'ctx.inbound-override-counts-as-client-webhook': {
    breaks: ['CTX-004'],
    description: "inboundWebhookConfigured is true once any of the client's numbers has a webhookInboundOverride (the delivery flag is right)",
    route: WHOAMI,
    answer: overrideCountsAsClientWebhook('inbound'),
  },
  'ctx.cleared-override-clears-client-webhook': {
    breaks: ['CTX-004'],
    description: "an update that clears a number's webhookInboundOverride (null) clears its client's inbound webhook too, so inboundWebhookConfigured turns false (setting an override changes nothing)",
    route: 'PATCH /api/core/numbers/:numberId',
    async answer({ request, status }, ctx) {
      if (status >= 300 || (request.body as Record<string, unknown> | null)?.webhookInboundOverride !== null) return;
      const client = callerOf(request);
      await ctx.writes.run({ op: 'setClientWebhooks', apiClientId: client.apiClientId, delivery: client.deliveryWebhookUrl, inbound: null });
    },
  },
  'ctx.webhook-flags-swapped': {
    breaks: ['CTX-003'],
    description: 'inboundWebhookConfigured tells whether the delivery webhook is configured, and deliveryWebhookConfigured the inbound one',
    route: WHOAMI,
    answer({ status, body }) {
      if (status === 200) [body.inboundWebhookConfigured, body.deliveryWebhookConfigured] = [body.deliveryWebhookConfigured, body.inboundWebhookConfigured];
    },
  },
  'ctx.counts-every-number-sms-enabled': {
    breaks: ['CTX-201'],
    description: "assignedNumbers.smsEnabled counts every number of the client, SMS enabled or not (right for a client whose numbers all are)",
    route: WHOAMI,
    answer({ status, body }) {
      const counts = body.assignedNumbers as Record<string, unknown> | undefined;
      if (status === 200 && typeof counts?.total === 'number') counts.smsEnabled = counts.total;
    },
  },
  'ctx.count-drops-numbers-with-override': {
    breaks: ['CTX-005'],
    description: 'assignedNumbers.total leaves out the numbers with a webhookDeliveryOverride set (the count is of the numbers whose outcomes go to the client webhook); the numbers list still shows them',
    route: WHOAMI,
    answer({ request, status, body }, { stores }) {
      const counts = body.assignedNumbers as Record<string, unknown> | undefined;
      if (status !== 200 || typeof counts?.total !== 'number') return;
      counts.total = stores.numbers.listForClient(callerOf(request).apiClientId).filter((n) => n.webhookDeliveryOverride === null).length;
    },
  },
  'ctx.count-includes-refused-update': {
    breaks: ['CTX-005'],
    description: "assignedNumbers.total is folded from the client's number events, and a refused update of another client's number is folded as an assignment: the caller's count grows by each such number (its numbers list is right)",
    route: /^(PATCH \/api\/core\/numbers\/:numberId|GET \/api\/core\/whoami)$/,
    answer({ request, status, body }, ctx) {
      if (request.apiClient === null) return;
      const refused = ofServer(refusedUpdates, ctx, () => new Map<string, Set<string>>());
      const caller = callerOf(request).apiClientId;
      if (routeOf(request) !== WHOAMI) {
        const numberId = (request.params as { numberId?: string }).numberId;
        if ((status === 403 || status === 404) && numberId !== undefined && ctx.stores.numbers.byId(numberId) !== undefined) refused.set(caller, (refused.get(caller) ?? new Set()).add(numberId));
        return;
      }
      const counts = body.assignedNumbers as Record<string, unknown> | undefined;
      if (status === 200 && typeof counts?.total === 'number') counts.total += refused.get(caller)?.size ?? 0;
    },
  },
  'ctx.counts-every-client-number': {
    breaks: ['CTX-005'],
    description: "assignedNumbers.total counts the numbers of every client of the service, not the caller's own (the numbers list is right)",
    route: WHOAMI,
    answer({ status, body }, { stores, seeded }) {
      const counts = body.assignedNumbers as Record<string, unknown> | undefined;
      if (status === 200 && typeof counts?.total === 'number') counts.total = seeded.reduce((sum, client) => sum + stores.numbers.listForClient(client.apiClientId).length, 0);
    },
  },
  'ctx.counts-enabled-numbers-only': {
    breaks: ['CTX-005'],
    description: "assignedNumbers.total counts only the caller's numbers with SMS or MMS enabled (right while every number has one)",
    route: WHOAMI,
    answer({ request, status, body }, { stores }) {
      const counts = body.assignedNumbers as Record<string, unknown> | undefined;
      if (status === 200 && typeof counts?.total === 'number') counts.total = stores.numbers.listForClient(callerOf(request).apiClientId).filter((n) => n.smsEnabled || n.mmsEnabled).length;
    },
  },
  'ctx.search-ignores-capability': {
    breaks: ['CTX-202'],
    description: 'the search does not check the NUMBER_SEARCH capability: a client without it searches like any other (the context still shows what it lacks, and the sends check theirs)',
    route: 'POST /api/core/numbers/search',
    preHandler(request) {
      const client = request.apiClient;
      if (client && !client.capabilities.includes('NUMBER_SEARCH')) request.apiClient = { ...client, capabilities: [...client.capabilities, 'NUMBER_SEARCH'] };
    },
  },
  'ctx.suspended-client-lists-numbers': {
    breaks: ['CTX-203'],
    description: "the numbers list serves a token issued before its client's suspension (every other core route refuses it 403, and the token endpoint says unauthorized_client)",
    behaviour: ({ authenticate }, { stores }) => ({
      authenticate: async (request, reply) => {
        const token = tokenOf(request);
        const client = token === undefined ? undefined : stores.clients.byTokenHash(tokenHash(token), Date.now());
        if (routeOf(request) !== 'GET /api/core/numbers' || client?.status !== 'SUSPENDED') return authenticate(request, reply);
        request.apiClient = client;
      },
    }),
  },
  'ctx.suspended-client-invalid-client': {
    breaks: ['CTX-203'],
    description: "a suspended client's correct credentials get 401 invalid_client, as if they were wrong (its tokens issued before are refused 403 as they should be)",
    route: 'POST /api/auth/token',
    answer(answer) {
      if (answer.body.error !== 'unauthorized_client') return;
      answer.status = 401;
      answer.body.error = 'invalid_client';
      answer.reply.header('www-authenticate', TOKEN_CHALLENGE);
    },
  },
} satisfies Record<string, FaultDefinition>;
