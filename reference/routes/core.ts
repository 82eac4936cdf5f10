import type { FastifyInstance } from 'fastify';
import type { ReferenceContext } from '../context.ts';
import { clientContextRoutes } from './clientContext.ts';
import { coreErrorHandler, coreNotFoundHandler } from './coreErrorHandler.ts';
import { messageRoutes } from './messages.ts';
import { numberRoutes } from './numbers.ts';

/**
 * Everything under /api/core (VER-001: no version segment): the CORE error wrapper (ERR-001)
 * and a request id header on every answer, JSON bodies (ERR-004).
 */
export async function coreRoutes(app: FastifyInstance, { ctx }: { ctx: ReferenceContext }): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.setErrorHandler(coreErrorHandler);
  app.setNotFoundHandler(coreNotFoundHandler);
  // Core bodies are JSON only; fastify would otherwise hand a text/plain body to the schema. Its JSON
  // parser takes application/json in any letter case and with any parameters (ERR-008, ERR-009).
  // Every path under /api/core/ that names no route is answered in the CORE wrapper (ERR-001).
  app.removeContentTypeParser('text/plain');
  await app.register(clientContextRoutes, { ctx });
  await app.register(numberRoutes, { ctx });
  await app.register(messageRoutes, { ctx });
}
