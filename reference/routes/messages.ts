import type { FastifyInstance } from 'fastify';
import { callerOf } from '../auth/bearer.ts';
import type { ReferenceContext } from '../context.ts';
import { requireIdempotencyKey } from '../send/idempotencyKey.ts';
import type { SendRequest } from '../send/sendRequest.ts';
import { SendService } from '../send/service.ts';

/**
 * POST /api/core/messages/send (section 4.6). The order of answers is part of the contract the
 * harness relies on: 401, missing Idempotency-Key, body shape (schema, then media rule), the
 * client's send rate (429, profile send.rateLimit), then the idempotency record (replay or 409),
 * and only for a new key: the client's capability for the messageType (403), sendFrom given as a
 * phone number, ownership (403), campaign registration, the number's smsEnabled or mmsEnabled
 * (400), recipient format, and acceptance.
 */
export async function messageRoutes(app: FastifyInstance, { ctx }: { ctx: ReferenceContext }): Promise<void> {
  app.addHook('onRequest', ctx.behaviour.authenticate);
  app.addHook('onRequest', requireIdempotencyKey);
  const sends = new SendService(ctx);

  app.post('/messages/send', { schema: { body: ctx.behaviour.schemas.sendRequest } }, async (request, reply) => {
    const client = callerOf(request);
    const body = request.body as SendRequest;
    ctx.behaviour.send.checkMediaRule(body);
    // Profile send.rateLimit: over the client's rate, 429 before the idempotency record is read.
    const refused = ctx.sendRateLimit.admit(client.apiClientId, body.to.length);
    if (refused) await refused;
    const answer = await sends.send(client, request.idempotencyKey!, body, request.id);
    reply.code(answer.statusCode).type('application/json; charset=utf-8');
    // IDEM-202: a replay says so; a first answer does not.
    if (answer.replayed) reply.header('idempotent-replayed', 'true');
    return reply.send(answer.body);
  });
}
