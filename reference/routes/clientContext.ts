import type { FastifyInstance } from 'fastify';
import { callerOf } from '../auth/bearer.ts';
import type { ReferenceContext } from '../context.ts';

/**
 * GET /api/core/whoami (section 4.2; profile whoami.route and whoami.fields: CTX-201). CTX-001:
 * every field, typed; CTX-002: the authenticated client's; CTX-003: the webhook flags as configured.
 */
export async function clientContextRoutes(app: FastifyInstance, { ctx }: { ctx: ReferenceContext }): Promise<void> {
  app.addHook('onRequest', ctx.behaviour.authenticate);

  app.get('/whoami', async (request) => {
    const client = callerOf(request);
    const numbers = ctx.stores.numbers.listForClient(client.apiClientId);
    return {
      apiClientId: client.apiClientId,
      apiClientName: client.name,
      apiClientStatus: client.status,
      capabilities: client.capabilities,
      assignedNumbers: {
        total: numbers.length,
        smsEnabled: numbers.filter((number) => number.smsEnabled).length,
        mmsEnabled: numbers.filter((number) => number.mmsEnabled).length,
      },
      inboundWebhookConfigured: client.inboundWebhookUrl !== null,
      deliveryWebhookConfigured: client.deliveryWebhookUrl !== null,
    };
  });
}
