import type { FastifyInstance } from 'fastify';
import { callerOf } from '../auth/bearer.ts';
import type { ReferenceContext } from '../context.ts';

/** GET /api/core/whoami (section 4.2; profile whoami.route and whoami.fields). */
export async function clientContextRoutes(app: FastifyInstance, { ctx }: { ctx: ReferenceContext }): Promise<void> {
  app.addHook('onRequest', ctx.behaviour.authenticate);

  app.get('/whoami', async (request) => {
    const client = callerOf(request);
    const numbers = ctx.stores.numbers.listForClient(client.apiClientId);
    const { faults } = ctx.options;
    return {
      // Kill-matrix faults: every client is named as the first one; the delivery flag is always set.
      apiClientId: faults.has('ctx.same-id-for-every-client') ? ctx.seeded[0]!.apiClientId : client.apiClientId,
      // Kill-matrix faults (reference/faults.ts): a field left out, a field of the wrong type.
      ...(!faults.has('whoami.field-missing') && { apiClientName: client.name }),
      apiClientStatus: client.status,
      capabilities: faults.has('whoami.field-mistyped') ? JSON.stringify(client.capabilities) : client.capabilities,
      assignedNumbers: {
        total: numbers.length,
        smsEnabled: numbers.filter((number) => number.smsEnabled).length,
        mmsEnabled: numbers.filter((number) => number.mmsEnabled).length,
      },
      inboundWebhookConfigured: client.inboundWebhookUrl !== null,
      deliveryWebhookConfigured: faults.has('ctx.delivery-flag-always-true') || client.deliveryWebhookUrl !== null,
    };
  });
}
