import type { FastifyInstance } from 'fastify';
import { bearerAuthentication, callerOf } from '../auth/bearer.ts';
import type { ReferenceContext } from '../context.ts';
import { CoreError } from '../errors.ts';
import { decideSend } from '../send/accept.ts';
import { checkMediaRule, checkRecipients, resolveSendFrom } from '../send/checks.ts';
import { payloadFingerprint } from '../send/fingerprint.ts';
import { requireIdempotencyKey } from '../send/idempotencyKey.ts';
import type { SendRequest } from '../send/sendRequest.ts';

/**
 * POST /api/core/messages/send (section 4.6). The order of answers is part of the contract the
 * harness relies on: 401, missing Idempotency-Key, body (schema, then media rule), sendFrom given
 * as a phone number, ownership (403), campaign registration, recipient format, then the
 * idempotency record (replay or 409), and only then acceptance.
 */
export async function messageRoutes(app: FastifyInstance, { ctx }: { ctx: ReferenceContext }): Promise<void> {
  app.addHook('onRequest', bearerAuthentication(ctx.stores.clients));
  app.addHook('onRequest', requireIdempotencyKey);

  app.post('/messages/send', { schema: { body: ctx.schemas.sendRequest } }, async (request, reply) => {
    const client = callerOf(request);
    const body = request.body as SendRequest;
    checkMediaRule(body);
    const number = resolveSendFrom(body, client, ctx.stores.numbers);
    checkRecipients(body, ctx.schemas.e164);

    const decision = await ctx.writes.run(() =>
      decideSend(ctx.stores, {
        client,
        number,
        idempotencyKey: request.idempotencyKey!,
        fingerprint: payloadFingerprint(body),
        request: body,
        nowMs: Date.now(),
        retentionMs: ctx.options.idempotencyTtlSeconds * 1000,
      }),
    );

    if (decision.kind === 'conflict') {
      // Profile send.unsafeRetry: 409, nothing created.
      throw new CoreError('CONFLICT', 'This Idempotency-Key was used with a different payload; a changed payload needs a new key.', {
        header: 'Idempotency-Key',
      });
    }
    reply.code(decision.statusCode).type('application/json; charset=utf-8');
    if (decision.kind === 'replay') return reply.header('idempotent-replayed', 'true').send(decision.body);

    // Committed: hand the messages to the carrier and the events to the dispatcher at once.
    ctx.carrier.take(decision.accepted);
    ctx.dispatcher.dispatch(decision.webhooks);
    return reply.send(decision.body);
  });
}
