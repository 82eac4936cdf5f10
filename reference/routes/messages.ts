import type { FastifyInstance } from 'fastify';
import { callerOf } from '../auth/bearer.ts';
import type { ReferenceContext } from '../context.ts';
import { checkMediaRule } from '../send/checks.ts';
import type { SendRequest } from '../send/sendRequest.ts';
import { SendService } from '../send/service.ts';
import { answerBody, idempotencyKeyHook, IdempotencyFaults, mediaRuleWaived, sendRequest, sendSchema } from '../sendFaults.ts';

/**
 * POST /api/core/messages/send (section 4.6). The order of answers is part of the contract the
 * harness relies on: 401, missing Idempotency-Key, body shape (schema, then media rule), then the
 * idempotency record (replay or 409), and only for a new key: sendFrom given as a phone number,
 * ownership (403), campaign registration, recipient format, and acceptance.
 */
export async function messageRoutes(app: FastifyInstance, { ctx }: { ctx: ReferenceContext }): Promise<void> {
  app.addHook('onRequest', ctx.behaviour.authenticate);
  // Kill-matrix faults (reference/faults.ts, reference/sendFaults.ts): each call below is the
  // ordinary behaviour unless its fault is on.
  const { faults } = ctx.options;
  app.addHook('onRequest', idempotencyKeyHook(faults));
  const sends = new SendService(ctx);
  const idempotencyFaults = new IdempotencyFaults(faults, ctx.stores.idempotency);

  app.post('/messages/send', { schema: { body: sendSchema(ctx.schemas.sendRequest, faults) } }, async (request, reply) => {
    const client = callerOf(request);
    const body = sendRequest(request.body as SendRequest, faults);
    if (!mediaRuleWaived(body, faults)) checkMediaRule(body);
    const answer = await idempotencyFaults.run(client, request.idempotencyKey!, body, (key) => sends.send(client, key, body));
    reply.code(answer.statusCode).type('application/json; charset=utf-8');
    if (answer.replayed) reply.header('idempotent-replayed', 'true');
    return reply.send(answerBody(answer.body, faults));
  });
}
