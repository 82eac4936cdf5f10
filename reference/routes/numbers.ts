import type { FastifyInstance } from 'fastify';
import { callerOf } from '../auth/bearer.ts';
import type { ReferenceContext } from '../context.ts';
import { CoreError } from '../errors.ts';
import type { FaultName } from '../faults/index.ts';
import { numberJson, type NumberSettings } from '../store/numbers.ts';
import type { SearchCriteria } from '../upstream/inventory.ts';

/** The numbers resource: list (4.3), search (4.4) and update (4.5). */
export async function numberRoutes(app: FastifyInstance, { ctx }: { ctx: ReferenceContext }): Promise<void> {
  const { faults } = ctx.options;
  app.addHook('onRequest', ctx.behaviour.authenticate);

  // Profile numbers.route: GET, 200, {numbers: [Number]}; the caller's numbers only.
  app.get('/numbers', async (request, reply) => {
    const client = callerOf(request);
    // Kill-matrix fault (reference/faults.ts): the list forgets its client filter.
    const owners = faults.has('numbers.list-leaks-other-clients') ? ctx.seeded.map((seeded) => seeded.apiClientId) : [client.apiClientId];
    const numbers = owners.flatMap((owner) => ctx.stores.numbers.listForClient(owner)).map(numberJson).map((number) => listedWithFaults(number, faults));
    // Kill-matrix fault: a JSON body labelled as plain text.
    if (faults.has('errors.text-plain-content-type')) return reply.type('text/plain; charset=utf-8').send(JSON.stringify({ numbers }));
    return { numbers };
  });

  // Profile search.route: POST /api/core/numbers/search, 200. The provider is asked over HTTP.
  app.post('/numbers/search', { schema: { body: ctx.schemas.searchRequest } }, async (request) => {
    const result = await ctx.upstream.search(request.body as SearchCriteria).catch((error: unknown) => {
      // Kill-matrix fault: a provider's error status is taken for the server's own failure.
      if (faults.has('search.upstream-failure-500') && error instanceof CoreError && typeof error.details.providerStatus === 'number') {
        throw new CoreError('SERVER_ERROR');
      }
      throw error;
    });
    if (!faults.has('search.field-missing')) return result;
    // Kill-matrix fault: a field of the answer left out.
    const { providerResultCount: _dropped, ...rest } = result;
    return rest;
  });

  // Profile update.route: PATCH, 200 with the updated Number; another client's number is 404.
  app.patch(
    '/numbers/:numberId',
    { schema: { params: ctx.schemas.numberIdParams, body: ctx.schemas.numberSettings } },
    async (request) => {
      const client = callerOf(request);
      const { numberId } = request.params as { numberId: string };
      const body = request.body as Partial<NumberSettings>;
      // Kill-matrix faults: a null campaignregId is refused; the enable flags an update leaves out are stored as false.
      if (faults.has('update.null-refused') && body.campaignregId === null) throw new CoreError('INVALID_REQUEST', 'campaignregId must be a string.', { field: 'body/campaignregId' });
      const changes = faults.has('update.other-fields-reset') ? { smsEnabled: false, mmsEnabled: false, ...body } : body;
      // Kill-matrix faults (reference/faults.ts): the update acts as the number's owner whoever
      // asks; the enable flags are answered but not stored.
      const owner = faults.has('update.foreign-number-allowed') ? (ctx.stores.numbers.byId(numberId)?.apiClientId ?? client.apiClientId) : client.apiClientId;
      const { smsEnabled: _sms, mmsEnabled: _mms, ...withoutFlags } = changes;
      const stored = faults.has('update.flags-not-persisted') ? withoutFlags : changes;
      // The writer reads and writes in one transaction, so two concurrent updates of different fields both land.
      const updated = await ctx.writes.run({ op: 'updateNumber', apiClientId: owner, numberId, changes: stored });
      if (!updated) throw new CoreError('NOT_FOUND', 'No number with this numberId is assigned to this API client.');
      return numberJson(faults.has('update.flags-not-persisted') ? { ...updated, ...changes } : updated);
    },
  );
}

/**
 * A listed number as the list faults change it: numbers.id-missing-when-unregistered leaves out
 * the numberId of a number without a campaignregId, numbers.e164-number-ids gives such a number
 * its phone number as numberId, numbers.campaign-field-misspelt adds campaignRegId.
 */
function listedWithFaults(number: ReturnType<typeof numberJson>, faults: ReadonlySet<FaultName>): Record<string, unknown> {
  if (number.campaignregId === null && faults.has('numbers.id-missing-when-unregistered')) {
    const { numberId: _dropped, ...rest } = number;
    return rest;
  }
  if (number.campaignregId === null && faults.has('numbers.e164-number-ids')) return { ...number, numberId: number.phoneNumber };
  if (faults.has('numbers.campaign-field-misspelt')) return { ...number, campaignRegId: number.campaignregId };
  return number;
}
