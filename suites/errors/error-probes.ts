import { MALFORMED_JSON } from '../support/malformed-json.ts';
import type { CallOptions } from '../../harness/api-client.ts';
import { CORE_OPERATIONS, type CoreOperation, type RouteContext, noOpUpdate, requestFor, unknownNumberIdLike, unknownToken } from '../support/core-routes.ts';
import { anyOwnNumber, deliveredRecipients, smsPayload } from '../support/sends.ts';

/**
 * Requests every conforming server answers with an error, whatever its profile: each breaks one
 * rule the document states (or names a resource that cannot exist). The errors suites read
 * the answers' form (7.2), not which 4xx a route chose where the document leaves it open.
 * None needs a fixture beyond the primary client and one of its numbers, so the error
 * requirements stay testable on any target.
 */
export interface ErrorProbe {
  name: string;
  op: CoreOperation;
  build(ctx: RouteContext): Promise<CallOptions>;
}


/**
 * The valid request to a body route with its JSON body spoiled: everything else (credentials,
 * Idempotency-Key, numberId) is right, so the body is the only defect.
 */
export async function malformedRequest(op: CoreOperation, ctx: RouteContext, spoil: (valid: string) => string): Promise<CallOptions> {
  const valid = await requestFor(op, ctx);
  const { json, ...rest } = valid;
  return { ...rest, headers: { ...rest.headers, 'content-type': 'application/json' }, body: spoil(JSON.stringify(json ?? {})) };
}

/** A path under /api/core/ that no route of the interface has. */
export const NO_SUCH_CORE_PATH = '/api/core/conformance-no-such-route';

export const ERROR_PROBES: readonly ErrorProbe[] = [
  ...CORE_OPERATIONS.map(
    (op): ErrorProbe => ({
      name: `${op} without a bearer token`,
      op,
      build: async (ctx) => ({ ...(await requestFor(op, ctx)), as: 'none' }),
    }),
  ),
  // Section 4: all /api/core/* routes answer errors with the CORE wrapper; a path under it that
  // names no route is answered by the same server, with or without a token (a framework's own
  // 404 page is the usual slip).
  {
    name: 'a path under /api/core/ that names no route',
    op: 'whoami',
    build: async () => ({ path: NO_SUCH_CORE_PATH }),
  },
  {
    name: 'a path under /api/core/ that names no route, without a bearer token',
    op: 'whoami',
    build: async () => ({ path: NO_SUCH_CORE_PATH, as: 'none' }),
  },
  {
    name: 'numbers with an unknown bearer token',
    op: 'numbers',
    build: async () => ({ as: 'none', headers: { authorization: `Bearer ${unknownToken()}` } }),
  },
  ...(['search', 'update', 'send'] as const).map(
    (op): ErrorProbe => ({
      name: `${op} with malformed JSON`,
      op,
      build: (ctx) => malformedRequest(op, ctx, MALFORMED_JSON[0]!.spoil),
    }),
  ),
  {
    name: 'update of a numberId that does not exist',
    op: 'update',
    build: async (ctx) => {
      const own = anyOwnNumber(ctx.knownNumbers);
      return { params: { numberId: unknownNumberIdLike(own) }, json: await noOpUpdate(ctx.api, own) };
    },
  },
  {
    // Long enough to trip a router's or framework's own limits, whose errors must still be CORE's.
    name: 'update of a 2048-character numberId',
    op: 'update',
    build: async (ctx) => ({ params: { numberId: 'n'.repeat(2048) }, json: await noOpUpdate(ctx.api, anyOwnNumber(ctx.knownNumbers)) }),
  },
  {
    name: 'send without an Idempotency-Key',
    op: 'send',
    build: async (ctx) => ({ json: smsPayload(anyOwnNumber(ctx.knownNumbers), deliveredRecipients(ctx.target), 'no-key') }),
  },
  {
    name: 'send with an E.164 number as sendFrom',
    op: 'send',
    build: async (ctx) => {
      const phone = ctx.knownNumbers.primary.map((n) => n.phoneNumber).find((p): p is string => typeof p === 'string' && /^\+[1-9]\d{1,14}$/.test(p));
      return { headers: { 'idempotency-key': ctx.newKey() }, json: smsPayload(phone ?? '+12025550142', deliveredRecipients(ctx.target), 'e164-sendfrom') };
    },
  },
  // The other invalid sends of section 4.6 (rules 2, 3 and 6's recipient): siblings of the
  // E.164 sendFrom above, which a server may answer from one place and these from another.
  {
    name: 'send of an SMS that carries media',
    op: 'send',
    build: async (ctx) => ({ headers: { 'idempotency-key': ctx.newKey() }, json: { ...smsPayload(anyOwnNumber(ctx.knownNumbers), deliveredRecipients(ctx.target), 'sms-with-media'), media: ctx.target.mediaSample } }),
  },
  {
    name: 'send of an MMS without media',
    op: 'send',
    build: async (ctx) => ({ headers: { 'idempotency-key': ctx.newKey() }, json: { ...smsPayload(anyOwnNumber(ctx.knownNumbers), deliveredRecipients(ctx.target), 'mms-without-media'), messageType: 'MMS' } }),
  },
  {
    name: 'send to a recipient that is not an E.164 number',
    op: 'send',
    build: async (ctx) => ({ headers: { 'idempotency-key': ctx.newKey() }, json: smsPayload(anyOwnNumber(ctx.knownNumbers), ['not-a-phone-number'], 'invalid-recipient') }),
  },
  {
    // Not owned by the client (4.6 rule 4), whoever else may own it; needs no second client.
    name: 'send from a numberId that does not exist',
    op: 'send',
    build: async (ctx) => ({
      headers: { 'idempotency-key': ctx.newKey() },
      json: smsPayload(unknownNumberIdLike(anyOwnNumber(ctx.knownNumbers)), deliveredRecipients(ctx.target), 'unknown-sendfrom'),
    }),
  },
];
