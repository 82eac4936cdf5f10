import type { FastifyReply, FastifyRequest } from 'fastify';
import { CoreError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: string | null;
  }
}

const MAX_KEY_LENGTH = 255;

/**
 * Section 4.6 rule 1 (SEND-001): a missing Idempotency-Key is 400 INVALID_REQUEST. Runs right after
 * authentication and before the body is read, so it is reported before any body problem.
 */
export async function requireIdempotencyKey(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const raw = request.headers['idempotency-key'];
  const key = (Array.isArray(raw) ? raw.join(', ') : raw)?.trim();
  if (!key) throw new CoreError('INVALID_REQUEST', 'The Idempotency-Key header is required.', { header: 'Idempotency-Key' });
  if (key.length > MAX_KEY_LENGTH) {
    throw new CoreError('INVALID_REQUEST', `The Idempotency-Key header is longer than ${MAX_KEY_LENGTH} characters.`, { header: 'Idempotency-Key' });
  }
  request.idempotencyKey = key;
}
