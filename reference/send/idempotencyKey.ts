import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
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
 * Synchronous (done-style): a throw is handled as a rejection would be.
 */
export function requireIdempotencyKey(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  // Node joins repeated headers with ", ", which would make two keys one key "a, b". A repeated
  // key is a defect of the request: the server cannot tell which operation the client meant (IDEM-205).
  const { rawHeaders } = request.raw;
  let given = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'idempotency-key') given += 1;
  if (given > 1) {
    throw new CoreError('INVALID_REQUEST', 'The Idempotency-Key header is repeated; send it once.', { header: 'Idempotency-Key', reason: 'repeated' });
  }
  // An empty value, or spaces only, is no key (IDEM-106). The key is kept as written: keys that
  // differ in letter case are two keys (IDEM-006).
  const raw = request.headers['idempotency-key'];
  const key = (Array.isArray(raw) ? raw.join(', ') : raw)?.trim();
  if (!key) throw new CoreError('INVALID_REQUEST', 'The Idempotency-Key header is required.', { header: 'Idempotency-Key' });
  if (key.length > MAX_KEY_LENGTH) {
    throw new CoreError('INVALID_REQUEST', `The Idempotency-Key header is longer than ${MAX_KEY_LENGTH} characters.`, { header: 'Idempotency-Key' });
  }
  request.idempotencyKey = key;
  done();
}
