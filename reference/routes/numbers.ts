import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../auth/bearer.ts';
import { requireCapability } from '../auth/capabilities.ts';
import type { ReferenceContext } from '../context.ts';
import { CoreError } from '../errors.ts';
import { coreRoute } from '../options.ts';
import { numberJson, type NumberRecord, type NumberSettings } from '../store/numbers.ts';
import { withoutAssigned } from '../upstream/client.ts';
import type { SearchCriteria } from '../upstream/inventory.ts';
import { requestedUpstreamStatus, UPSTREAM_STATUS_HEADER } from '../upstream/triggers.ts';
import { targetRefused } from '../webhooks/targetRefused.ts';

/**
 * The numbers resource: list (4.3), search (4.4) and update (4.5), each by the method, path and
 * answer of its wire choice (reference/options.ts; the reference profile's by default).
 */
export async function numberRoutes(app: FastifyInstance, { ctx }: { ctx: ReferenceContext }): Promise<void> {
  const { wire } = ctx.options;
  app.addHook('onRequest', ctx.behaviour.authenticate);

  // Profile numbers.route: GET, 200, {numbers: [Number]} (NUM-201); the caller's numbers only
  // (NUM-001, NUM-003). The numbers.envelope choice names the property, or `array` for none.
  const envelope = wire['numbers.envelope'];
  // The numbers.record choice: the profile's record, without the phone number, or the numberId alone.
  const record = (number: NumberRecord) => {
    const json = numberJson(number);
    if (wire['numbers.record'] === 'id-only') return { numberId: json.numberId };
    if (wire['numbers.record'] === 'full') return json;
    const { phoneNumber: _left, ...minimal } = json;
    return minimal;
  };
  app.route({
    method: wire['numbers.method'],
    url: '/numbers',
    handler: async (request) => {
      const numbers = ctx.stores.numbers.listForClient(callerOf(request).apiClientId).map(record);
      return envelope === 'array' ? numbers : { [envelope]: numbers };
    },
  });

  // Profile search.route: POST /api/core/numbers/search, 200 (SEARCH-001, SEARCH-201). The
  // provider is asked over HTTP; its failures are 502 (SEARCH-002, SEARCH-203).
  // Profile client.capabilities: only a client with NUMBER_SEARCH searches. Sandbox triggers
  // (upstream/triggers.ts): a Sandbox-Upstream-Status header is checked and forwarded, and a
  // rateCenter UPSTREAM-<status> or UPSTREAM-STALL reaches the provider as any criterion does.
  app.route({
    ...coreRoute(wire['search.route']),
    schema: { body: ctx.behaviour.schemas.searchRequest },
    handler: async (request) => {
      const client = callerOf(request);
      requireCapability(client, 'NUMBER_SEARCH');
      // Each client searches in its own share of the provider's connections (upstream/client.ts).
      const found = await ctx.upstream.search(client.apiClientId, request.body as SearchCriteria, requestedUpstreamStatus(request.headers[UPSTREAM_STATUS_HEADER]));
      return withoutAssigned(found, (phoneNumber) => ctx.stores.numbers.isServiceNumber(phoneNumber));
    },
  });

  // Profile update.route: PATCH, 200 with the updated Number (UPD-001, UPD-201), or as the
  // update.route and update.answer choices say; only the fields named change (UPD-003); another
  // client's number is 404 like a missing one (UPD-002, UPD-202), or 403 by the update.foreignNumber choice.
  app.route({
    ...coreRoute(wire['update.route']),
    schema: { params: ctx.behaviour.schemas.numberIdParams, body: ctx.behaviour.schemas.numberSettings },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const client = callerOf(request);
      const { numberId } = request.params as { numberId: string };
      const changes = request.body as Partial<NumberSettings>;
      // Profile webhook.targets (UPD-210): an override the server must not call is refused here,
      // where the client can see why, and not only at delivery.
      for (const field of ['webhookDeliveryOverride', 'webhookInboundOverride'] as const) {
        const url = changes[field];
        if (typeof url !== 'string') continue;
        const check = await ctx.behaviour.checkWebhookTarget(url);
        if (!check.ok) throw targetRefused(field, check);
      }
      // The writer reads and writes in one transaction, so two concurrent updates of different fields both land.
      // One row, by numberId and owner: no other number's settings move (UPD-007).
      const updated = await ctx.writes.run({ op: 'updateNumber', apiClientId: client.apiClientId, numberId, changes });
      if (!updated) {
        if (wire['update.foreignNumber'] === '403' && ctx.stores.numbers.byId(numberId)) throw new CoreError('FORBIDDEN', 'This number is assigned to another API client.');
        throw new CoreError('NOT_FOUND', 'No number with this numberId is assigned to this API client.');
      }
      if (wire['update.answer'] === 'empty') return reply.code(204).send();
      return record(updated);
    },
  });
}
