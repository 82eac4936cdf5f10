import { randomBytes, randomUUID } from 'node:crypto';
import type { ApiClient, ApiResponse, CallOptions } from '../../harness/api-client.ts';
import type { OperationId, Target } from '../../harness/config.ts';
import { expect, notTestable } from '../../harness/fixtures.ts';
import { readNumbers, type KnownNumbers, type NumberRecord } from '../../harness/known-numbers.ts';
export { unknownNumberIdLike } from '../../harness/known-numbers.ts';
import { anyOwnNumber, deliveredRecipients, smsNumber, smsPayload } from './sends.ts';
import type { RequirementId, RequirementLabel } from '../../harness/requirement-ids.ts';

/**
 * The /api/core routes and, for each, a request that is right in every respect but the one a
 * test is about, and credentials and numberIds the target never issued. Shared by the bearer,
 * client-context, errors, search, update and versioning suites, so "every core route" means
 * the same five routes everywhere. Routes are resolved by the api client from the
 * target's config; nothing here names a method or a path the document leaves open.
 */

/**
 * "METHOD /path" of the request `res` answered, the path as appended to the target's baseUrl: a
 * baseUrl with a path of its own (https://host/sandbox) puts it before every route.
 */
export function routeRequested(target: Target, res: ApiResponse): string {
  const base = new URL(target.baseUrl).pathname.replace(/\/+$/, '');
  const path = new URL(res.request.url).pathname;
  return `${res.request.method} ${base !== '' && path.startsWith(`${base}/`) ? path.slice(base.length) : path}`;
}

/** Section 4: every route under /api/core (4.2 to 4.6). */
export const CORE_OPERATIONS = ['whoami', 'numbers', 'search', 'update', 'send'] as const satisfies readonly OperationId[];
export type CoreOperation = (typeof CORE_OPERATIONS)[number];

/**
 * The requirement a valid request of each route breaks when it is not accepted: what a
 * precondition "the route answers 2xx" is judged on, whatever requirement its test checks next.
 */
export const ACCEPTED_BY: Readonly<Record<CoreOperation, RequirementId>> = { whoami: 'CTX-001', numbers: 'NUM-001', search: 'SEARCH-001', update: 'UPD-001', send: 'SEND-008' };

/** The routes whose request carries a JSON body (4.4, 4.5, 4.6). */
export const BODY_OPERATIONS = ['search', 'update', 'send'] as const satisfies readonly CoreOperation[];

export interface RouteContext {
  api: ApiClient;
  target: Target;
  knownNumbers: KnownNumbers;
  newKey: () => string;
}

/**
 * Search bodies tried in turn when a test needs a search the target accepts: the document
 * names the fields but not which are required or which combinations are valid (4.4), so no
 * single body can be assumed. Values describe one real exchange (Washington, DC).
 */
export const SEARCH_CANDIDATES: ReadonlyArray<Record<string, string>> = [
  { npa: '202' },
  { state: 'DC' },
  { zipCode: '20001' },
  { npa: '202', nxx: '555', city: 'Washington', state: 'DC', zipCode: '20001', rateCenter: 'WSHNGTNZN1' },
  {},
];

/** The search body used where only the credentials are under test: its acceptance does not matter. */
export const SEARCH_PROBE = SEARCH_CANDIDATES[0]!;

/**
 * An update body that sets a field to the value it already has, so a server that wrongly
 * accepts the request changes nothing. Read fresh: other tests change and restore settings.
 */
export async function noOpUpdate(api: ApiClient, numberId: string): Promise<Record<string, unknown>> {
  const record = (await readNumbers(api)).find((n) => n.numberId === numberId);
  return noOpPatchOf(record);
}

export function noOpPatchOf(record: NumberRecord | undefined): Record<string, unknown> {
  if (!record) return {};
  for (const field of ['smsEnabled', 'mmsEnabled', 'campaignregId', 'webhookInboundOverride', 'webhookDeliveryOverride'] as const) {
    if (field in record) return { [field]: record[field] };
  }
  return {};
}

/**
 * A request to `op` that is valid in everything but its credentials: the caller adds
 * `as` and, where it tests a credential, the Authorization header. For send it carries an
 * Idempotency-Key and a well-formed body, for update a real numberId of the primary client and
 * a no-op body, so the credential is the only thing a server can object to.
 */
export async function requestFor(op: CoreOperation, ctx: RouteContext): Promise<CallOptions> {
  switch (op) {
    case 'whoami':
    case 'numbers':
      return {};
    case 'search':
      return { json: SEARCH_PROBE };
    case 'update': {
      const numberId = anyOwnNumber(ctx.knownNumbers);
      return { params: { numberId }, json: await noOpUpdate(ctx.api, numberId) };
    }
    case 'send':
      return { headers: { 'idempotency-key': ctx.newKey() }, json: smsPayload(anyOwnNumber(ctx.knownNumbers), deliveredRecipients(ctx.target), 'bearer') };
  }
}

/**
 * A request to `op` that a conforming server accepts (2xx) when the credentials are right.
 * Search uses a body the target was seen to accept; send needs a number with a campaignregId.
 */
export async function acceptedRequestFor(op: CoreOperation, ctx: RouteContext): Promise<CallOptions> {
  switch (op) {
    case 'search': {
      const found = await acceptedSearch(ctx.api);
      if (!found.body) notTestable('no search body among the candidates was accepted with the managed token, so no search is known to succeed (SEARCH-001 reports why)');
      return { json: found.body };
    }
    case 'send':
      return { headers: { 'idempotency-key': ctx.newKey() }, json: smsPayload(smsNumber(ctx.knownNumbers), deliveredRecipients(ctx.target), 'accepted') };
    default:
      return requestFor(op, ctx);
  }
}

/** The first search candidate the target answers 2xx, with every answer seen on the way. */
export async function acceptedSearch(api: ApiClient): Promise<{ body?: Record<string, string>; response?: ApiResponse; answers: ApiResponse[] }> {
  const answers: ApiResponse[] = [];
  for (const body of SEARCH_CANDIDATES) {
    const res = await api.call('search', { json: body });
    answers.push(res);
    if (res.status >= 200 && res.status < 300) return { body, response: res, answers };
  }
  return { answers };
}

/** Obtain a token for a client through the token endpoint (4.1), with a JSON body. */
export async function issueToken(api: ApiClient, clientId: string, clientSecret: string, requirement: RequirementLabel): Promise<string> {
  const res = await api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
  expect(res).toSucceed(`${requirement}: precondition: the client obtains a token from the token endpoint`);
  const token: unknown = res.body?.access_token;
  expect(typeof token === 'string' && token !== '', `${requirement}: precondition: the token response carries access_token`).toBe(true);
  return token as string;
}

/** A well-formed bearer token (RFC 6750 b64token, 43 base64url characters) the server never issued. */
export function unknownToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Well-formed bearer tokens (RFC 6750 b64token) the server never issued, in the shapes tokens
 * come in: each is a token like another to a server that only looks it up, and a server that
 * decodes tokens of some shape (a JWT's three dotted parts) must still answer 401, never 5xx and
 * never as the client the token's own claims name. `clientId` is the one an unsigned JWT claims.
 */
export function unknownTokenShapes(clientId: string): Array<{ shape: string; token: string }> {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = { sub: clientId, client_id: clientId, exp: Math.floor(Date.now() / 1000) + 3600 };
  return [
    { shape: '43 base64url characters', token: unknownToken() },
    { shape: 'a JWT signed with HS256 by a key the server never had', token: `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.${randomBytes(32).toString('base64url')}` },
    { shape: "an unsigned JWT (alg none) claiming the primary client's id", token: `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.` },
    { shape: "three dotted parts that are not base64 JSON ('a.b.c')", token: 'a.b.c' },
    { shape: "base64 with '+', '/' and '=' padding", token: `${randomBytes(31).toString('base64').replace(/=+$/, '')}+/==` },
    { shape: 'every b64token punctuation character', token: `-._~+/${randomBytes(8).toString('hex')}` },
    { shape: '64 hexadecimal digits', token: randomBytes(32).toString('hex') },
    { shape: 'a UUID', token: randomUUID() },
    { shape: 'one character', token: 'a' },
    { shape: '1,024 characters', token: randomBytes(768).toString('base64url') },
  ];
}

/**
 * `token` with the case of every letter swapped, where case is part of the token: when it holds
 * letters of both cases, as base64 and base64url tokens (RFC 6750's b64token) do, the swapped
 * string is another token, one the server never issued. Undefined for a token in one case: it
 * may be written in an alphabet whose case carries nothing (hexadecimal and base32 are
 * case-insensitive, RFC 4648 sections 6 and 8; a UUID is read in either case, RFC 9562 section
 * 4), which a server may read either way without accepting anything it did not issue.
 */
export function caseSwappedToken(token: string): string | undefined {
  if (!/[a-z]/.test(token) || !/[A-Z]/.test(token)) return undefined;
  return token.replace(/[a-zA-Z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
}

/**
 * `token` with one character in its middle replaced by another of the same class, so it keeps
 * the issued token's shape. A middle character carries full bits in base64 or hex, so the
 * altered token can never decode to the same bytes.
 */
export function tamperedToken(token: string): string {
  const i = Math.floor(token.length / 2);
  const c = token[i]!;
  const swap = /[0-9]/.test(c) ? (c === '7' ? '3' : '7') : /[a-z]/.test(c) ? (c === 'q' ? 'k' : 'q') : /[A-Z]/.test(c) ? (c === 'Q' ? 'K' : 'Q') : c === 'A' ? 'B' : 'A';
  return token.slice(0, i) + swap + token.slice(i + 1);
}

const BASE64_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * `token` with its character at `at` (an index; negative counts from the end, padding `=`
 * skipped) replaced so that the token differs whatever the server makes of it. A base64 digit
 * gets the digit whose value differs in the top bit (A ↔ g, q ↔ K, 7 ↔ b, - ↔ e): the top bits of
 * every base64 digit are significant, where the last digit's low bits may be padding that a
 * lenient decoder ignores, so a token whose last digit only changed its low bits could decode to
 * the same bytes. Any other character gets tamperedToken's swap.
 */
export function tokenAlteredAt(token: string, at: number): string {
  const end = token.replace(/=+$/, '').length;
  const i = at < 0 ? end + at : at;
  const c = token[i]!;
  const urlSafe = token.includes('-') || token.includes('_');
  const digits = BASE64_DIGITS + (urlSafe ? '-_' : '+/');
  const value = digits.indexOf(c);
  const swap = value >= 0 ? digits[value ^ 32]! : /[0-9]/.test(c) ? (c === '7' ? '3' : '7') : c === 'A' ? 'B' : 'A';
  return token.slice(0, i) + swap + token.slice(i + 1);
}
