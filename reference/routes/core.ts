import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ReferenceContext } from '../context.ts';
import { clientContextRoutes } from './clientContext.ts';
import { CoreError } from '../errors.ts';
import { coreErrorHandler, coreNotFoundHandler, sendCoreError } from './coreErrorHandler.ts';
import { messageRoutes } from './messages.ts';
import { numberRoutes } from './numbers.ts';

/** Everything under /api/core: the CORE error wrapper and a request id header on every answer. */
export async function coreRoutes(app: FastifyInstance, { ctx }: { ctx: ReferenceContext }): Promise<void> {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.setErrorHandler(ctx.options.faults.has('errors.malformed-json-500') ? malformedJsonAsServerError : coreErrorHandler);
  app.setNotFoundHandler(coreNotFoundHandler);
  // Core bodies are JSON only; fastify would otherwise hand a text/plain body to the schema.
  app.removeContentTypeParser('text/plain');
  await app.register(clientContextRoutes, { ctx });
  await app.register(numberRoutes, { ctx });
  await app.register(messageRoutes, { ctx });
}

/** Kill-matrix fault errors.malformed-json-500 (reference/faults.ts): a body that is not JSON is taken for the server's own failure. */
function malformedJsonAsServerError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') return sendCoreError(new CoreError('SERVER_ERROR'), request, reply);
  return coreErrorHandler(error, request, reply);
}
