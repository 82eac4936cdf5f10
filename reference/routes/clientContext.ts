import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerOf } from '../auth/bearer.ts';
import type { ReferenceContext } from '../context.ts';

/**
 * /api/core/whoami (section 4.2; profile whoami.route and whoami.fields: CTX-201), by the method
 * of the whoami.method choice (GET in the profile) and the shapes of the whoami.shapes choice. CTX-001: every field, typed; CTX-002: the
 * authenticated client's; CTX-003: the webhook flags as configured.
 */
export async function clientContextRoutes(app: FastifyInstance, { ctx }: { ctx: ReferenceContext }): Promise<void> {
  app.addHook('onRequest', ctx.behaviour.authenticate);

  const whoami = async (request: FastifyRequest) => {
    const client = callerOf(request);
    const numbers = ctx.stores.numbers.listForClient(client.apiClientId);
    const objects = ctx.options.wire['whoami.shapes'] === 'objects';
    return {
      apiClientId: client.apiClientId,
      apiClientName: client.name,
      apiClientStatus: client.status,
      capabilities: objects ? client.capabilities.map((name) => ({ name })) : client.capabilities,
      // The client's own numbers, counted (CTX-005: total, or count with the objects shapes).
      assignedNumbers: objects
        ? { count: numbers.length }
        : {
            total: numbers.length,
            smsEnabled: numbers.filter((number) => number.smsEnabled).length,
            mmsEnabled: numbers.filter((number) => number.mmsEnabled).length,
          },
      inboundWebhookConfigured: client.inboundWebhookUrl !== null,
      deliveryWebhookConfigured: client.deliveryWebhookUrl !== null,
    };
  };
  app.route({ method: ctx.options.wire['whoami.method'], url: '/whoami', handler: whoami });
}
