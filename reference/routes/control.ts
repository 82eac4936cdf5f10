import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReferenceContext } from '../context.ts';
import { receiveInbound, type SimulatedInbound } from '../control/inbound.ts';
import { resetToSeed } from '../control/reset.ts';
import { CoreError } from '../errors.ts';
import { parseMode } from '../upstream/simulator.ts';
import { targetRefused } from '../webhooks/targetRefused.ts';

const nullableUrl = { anyOf: [{ type: 'null' }, { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048 }] };

/** The control plane's request schemas (exported for test/spec/schemas-meta.test.ts). */
export const CONTROL_SCHEMAS = {
  upstream: {
    type: 'object',
    additionalProperties: false,
    required: ['mode'],
    properties: { mode: { enum: ['ok', 'fail', 'stall'] }, status: { type: 'integer', minimum: 300, maximum: 599 } },
  },
  expireTokens: { type: 'object', additionalProperties: false, required: ['clientId'], properties: { clientId: { type: 'string', minLength: 1 } } },
  inbound: {
    type: 'object',
    additionalProperties: false,
    required: ['numberId', 'from', 'text'],
    properties: { numberId: { type: 'string', minLength: 1 }, from: { type: 'string', pattern: '^\\+[1-9][0-9]{1,14}$' }, text: { type: 'string', maxLength: 1600 } },
  },
  webhooks: { type: 'object', additionalProperties: false, properties: { delivery: nullableUrl, inbound: nullableUrl } },
  clientStatus: { type: 'object', additionalProperties: false, required: ['status'], properties: { status: { enum: ['ACTIVE', 'SUSPENDED'] } } },
  clientParams: { type: 'object', required: ['clientId'], properties: { clientId: { type: 'string', minLength: 1 } } },
};

/** A control token for a server whose operator gave none: 32 random bytes, base64url. */
export function newControlToken(): string {
  return randomBytes(32).toString('base64url');
}

function sameSecret(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The test-control plane (ARCHITECTURE.md): registered only with --control. Lets a harness
 * reach paths a black box cannot: provider failure, token expiry, inbound traffic, webhook
 * targets, a client's status, and a reset between runs. Never open: every request carries the control token
 * (--control-token, or the one buildApp made), else 401.
 */
export async function controlRoutes(app: FastifyInstance, { ctx }: { ctx: ReferenceContext }): Promise<void> {
  const { controlToken } = ctx.options;
  if (controlToken === undefined) throw new Error('the control plane needs a control token');
  // A request carrying the server's own webhook headers is one of its deliveries, whatever its
  // target: it never acts on the control plane, with or without a control token.
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (request.headers['webhook-id'] !== undefined || request.headers['webhook-signature'] !== undefined) {
      throw new CoreError('FORBIDDEN', 'A webhook delivery is never a control request.');
    }
  });
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
    if (!match || !sameSecret(match[1]!, controlToken)) {
      throw new CoreError('UNAUTHORIZED', 'The control token is required.', {}, { 'www-authenticate': 'Bearer realm="control"' });
    }
  });

  const clientFor = (id: string) => {
    const client = ctx.stores.clients.byEitherId(id);
    if (!client) throw new CoreError('NOT_FOUND', 'No API client has this id.', { clientId: id });
    return client;
  };

  app.post('/upstream', { schema: { body: CONTROL_SCHEMAS.upstream } }, async (request) => {
    const mode = parseMode(request.body)!;
    await ctx.upstream.setMode(mode);
    return mode;
  });

  app.post('/tokens/expire', { schema: { body: CONTROL_SCHEMAS.expireTokens } }, async (request) => {
    const client = clientFor((request.body as { clientId: string }).clientId);
    const expired = await ctx.writes.run({ op: 'expireTokens', apiClientId: client.apiClientId, nowMs: Date.now() });
    return { expired };
  });

  app.post('/inbound', { schema: { body: CONTROL_SCHEMAS.inbound } }, async (request, reply) => {
    const inbound = request.body as SimulatedInbound;
    const received = await receiveInbound(ctx, inbound);
    if (!received) throw new CoreError('NOT_FOUND', 'No number has this numberId.', { numberId: inbound.numberId });
    if (received.webhook) ctx.dispatcher.dispatch([received.webhook]);
    return reply.code(201).send({ messageId: received.messageId });
  });

  app.put('/clients/:clientId/webhooks', { schema: { params: CONTROL_SCHEMAS.clientParams, body: CONTROL_SCHEMAS.webhooks } }, async (request) => {
    const client = clientFor((request.params as { clientId: string }).clientId);
    const body = request.body as { delivery?: string | null; inbound?: string | null };
    for (const field of ['delivery', 'inbound'] as const) {
      const url = body[field];
      if (typeof url !== 'string') continue;
      const check = await ctx.webhookTargets.check(url);
      if (!check.ok) throw targetRefused(field, check);
    }
    const delivery = body.delivery === undefined ? client.deliveryWebhookUrl : body.delivery;
    const inbound = body.inbound === undefined ? client.inboundWebhookUrl : body.inbound;
    await ctx.writes.run({ op: 'setClientWebhooks', apiClientId: client.apiClientId, delivery, inbound });
    return { clientId: client.clientId, delivery, inbound };
  });

  // Profile client.status (CTX-203): suspend a client, or make it ACTIVE again. Its tokens stay
  // issued; what a suspended client is answered is the behaviour's (reference/auth/capabilities.ts).
  app.put('/clients/:clientId/status', { schema: { params: CONTROL_SCHEMAS.clientParams, body: CONTROL_SCHEMAS.clientStatus } }, async (request) => {
    const client = clientFor((request.params as { clientId: string }).clientId);
    const { status } = request.body as { status: 'ACTIVE' | 'SUSPENDED' };
    await ctx.writes.run({ op: 'setClientStatus', apiClientId: client.apiClientId, status });
    return { clientId: client.clientId, status };
  });

  app.post('/reset', async () => {
    await resetToSeed(ctx);
    await ctx.upstream.setMode({ mode: 'ok' });
    return { reset: true };
  });
}
