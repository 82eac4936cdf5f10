import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { CoreError, coreErrorBody } from '../errors.ts';
import { EdgeRefusal, edgeCoreError } from '../http/rejections.ts';

/**
 * Turns anything a core route (or the control plane) throws into the CORE wrapper (ERR-001):
 * malformed JSON and the other request defects are 400 INVALID_REQUEST, never 5xx (ERR-003,
 * ERR-201); a failure of the server's own is SERVER_ERROR with no internals (ERR-101).
 */
export function toCoreError(error: FastifyError | CoreError, request: FastifyRequest): CoreError {
  if (error instanceof CoreError) return error;
  if (error instanceof EdgeRefusal) return edgeCoreError(error);
  if (error.validation) {
    const issue = error.validation[0];
    const field = `${error.validationContext ?? 'body'}${issue?.instancePath ?? ''}`;
    // A limit (maxLength, maxItems, minItems) is named with its value, so a client can fit it (SEND-203).
    const limit = (issue?.params as { limit?: unknown } | undefined)?.limit;
    return new CoreError('INVALID_REQUEST', `${field} ${issue?.message ?? 'is invalid'}`, { field, rule: issue?.keyword, ...(typeof limit === 'number' && { limit }) });
  }
  const status = error.statusCode ?? 500;
  // ERR-203: a body over the limit (the profile's 256 KiB) is 413, naming the limit in bytes.
  if (status === 413) return new CoreError('PAYLOAD_TOO_LARGE', undefined, { limit: request.routeOptions.bodyLimit });
  if (status === 415) return new CoreError('UNSUPPORTED_MEDIA_TYPE');
  // Fastify's own 4xx messages (bad JSON, empty body, bad content-length) describe the request, not the server.
  if (status >= 400 && status < 500) return new CoreError('INVALID_REQUEST', error.message);
  request.log.error({ err: error }, 'unexpected failure');
  return new CoreError('SERVER_ERROR');
}

/** ERR-201: every CORE error repeats its requestId in x-request-id. */
export function sendCoreError(error: CoreError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply
    .code(error.status)
    .headers({ ...error.headers, 'x-request-id': request.id })
    .send(coreErrorBody(error, request.id));
}

export function coreErrorHandler(error: FastifyError | CoreError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendCoreError(toCoreError(error, request), request, reply);
}

export function coreNotFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendCoreError(new CoreError('NOT_FOUND', 'No route matches this method and path.'), request, reply);
}
