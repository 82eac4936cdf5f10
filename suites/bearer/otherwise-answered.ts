// Requests a core route would answer otherwise than 401 with a valid token: the document's
// AUTH-001 and AUTH-004 (bearer.spec.ts) and RFC 6750's AUTH-107 (bearer.standard.spec.ts) send them.
import type { CallOptions } from '../../harness/api-client.ts';
import type { RouteContext } from '../support/core-routes.ts';
import { anyOwnNumber, deliveredRecipients, smsPayload } from '../support/sends.ts';

/**
 * Requests `op` would answer otherwise with a valid token. Rule 3's 401 does not depend on what
 * else the request carries: a server that reads a sandbox trigger or its idempotency records
 * before the credential answers a caller it does not know (a search failed upstream, a replay of
 * another caller's send). Where the request also breaks a rule of its own that needs no identity
 * (malformed JSON, a field of another type, no Idempotency-Key), the document orders no rule
 * before another (INTERPRETING, How a rule is checked), so that rule's request-defect answer is
 * legal too; never a success, a 5xx or an answer that needs an identity.
 */
export async function otherwiseAnswered(op: 'search' | 'update' | 'send', ctx: RouteContext): Promise<Array<{ name: string; request: CallOptions; alsoDefect: boolean }>> {
  const own = anyOwnNumber(ctx.knownNumbers);
  const malformed = { headers: { 'content-type': 'application/json' }, body: '{"' };
  switch (op) {
    case 'search': {
      const upstream = ctx.target.triggers.upstreamFailure;
      const failures = upstream?.kind === 'request' ? upstream.requests : [];
      return [
        { name: 'malformed JSON', request: malformed, alsoDefect: true },
        { name: 'a search field of another JSON type', request: { json: { npa: 212 } }, alsoDefect: true },
        ...failures.map((failure, i) => ({ name: `the search the sandbox fails upstream (triggers.upstreamFailure ${i + 1})`, request: { json: failure.body ?? {}, ...(failure.headers && { headers: failure.headers }) }, alsoDefect: false })),
      ];
    }
    case 'update':
      return [
        { name: 'malformed JSON', request: { ...malformed, params: { numberId: own } }, alsoDefect: true },
        { name: 'an smsEnabled of another JSON type', request: { params: { numberId: own }, json: { smsEnabled: 'yes' } }, alsoDefect: true },
      ];
    case 'send': {
      // A send the client made and the server accepted: its key, replayed without the client's token.
      const key = ctx.newKey();
      const payload = smsPayload(own, deliveredRecipients(ctx.target), 'bearer-replay');
      const first = await ctx.api.call('send', { headers: { 'idempotency-key': key }, json: payload });
      const replays = first.status >= 200 && first.status < 300
        ? [
            { name: "a safe retry of the client's accepted send (its Idempotency-Key, the same payload)", request: { headers: { 'idempotency-key': key }, json: payload }, alsoDefect: false },
            { name: "the key of the client's accepted send with another payload", request: { headers: { 'idempotency-key': key }, json: { ...payload, externalReference: `${payload.externalReference}-other` } }, alsoDefect: false },
          ]
        : [];
      return [
        ...replays,
        { name: 'malformed JSON', request: { ...malformed, headers: { ...malformed.headers, 'idempotency-key': ctx.newKey() } }, alsoDefect: true },
        { name: 'no Idempotency-Key', request: { json: payload }, alsoDefect: true },
        { name: 'an empty to', request: { headers: { 'idempotency-key': ctx.newKey() }, json: { ...payload, to: [] } }, alsoDefect: true },
      ];
    }
  }
}
