import type { Logger } from 'pino';
import type { TokenLimits } from './auth/tokenGuard.ts';
import type { ClientWebhookSetting } from './fixtures/clientWebhooks.ts';
import type { FixtureSet } from './fixtures/schema.ts';
import { ConfigError } from './errors.ts';
import { WEBHOOK_BACKOFF_BASE_IN_MS, WEBHOOK_TIMEOUT_IN_MS } from './webhooks/retryPolicy.ts';

/** Everything buildApp needs; main.ts fills it from the command line, tests fill it directly. */
export interface ReferenceOptions {
  /** SQLite file, or ':memory:' for a throwaway database. */
  dbPath: string;
  /** Delete the database file (and its WAL) before opening it. */
  fresh: boolean;
  /** Clients and numbers to seed; the built-in demo set when absent. */
  fixtures?: FixtureSet;
  /** Client webhooks set at start (--client-webhook), over the fixtures' own. */
  clientWebhooks: readonly ClientWebhookSetting[];
  control: boolean;
  controlToken?: string;
  tokenTtlSeconds: number;
  idempotencyTtlSeconds: number;
  /** Inventory provider; when absent the bundled upstream simulator starts on a loopback port. */
  upstreamUrl?: string;
  upstreamTimeoutMs: number;
  /** The first retry of a failed webhook attempt comes after half to all of this; each later one doubles it (reference/webhooks/retryPolicy.ts). */
  webhookRetryBaseMs: number;
  /** How long an attempt waits for the receiver's answer before it counts as failed, and is retried (WH-104). */
  webhookTimeoutMs: number;
  /**
   * Webhook targets allowed although they are in a refused range (reference/webhooks/targets.ts):
   * IP addresses, CIDR ranges or host names. Empty by default: no loopback, private or
   * link-local target.
   */
  allowWebhookHosts: readonly string[];
  /** A whole request, headers and body, must arrive within this (Node's requestTimeout); else 408. */
  requestTimeoutMs: number;
  /** The headers of a request must arrive within this; else 408. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; a connection beyond is closed at once. */
  maxConnections: number;
  /** After shutdown began, connections still open after this are closed (reference/http/shutdown.ts). */
  shutdownGraceMs: number;
  /** Open connections at most from one source address (reference/http/sources.ts); one beyond is closed at once. */
  maxConnectionsPerSource: number;
  /** Requests in progress at once from one source address; one beyond is 429. */
  maxRequestsPerSource: number;
  /** Rate limits of the token endpoint (reference/auth/tokenGuard.ts). */
  tokenLimits: TokenLimits;
  /** Messages (one per recipient) each API client may send a second, bursts up to twice as many (reference/send/rateLimit.ts). */
  sendMessagesPerSecond: number;
  /** SQLite `synchronous` level; FULL (an fsync per commit) unless a caller knowingly trades durability. */
  synchronous: 'FULL' | 'NORMAL';
  logger: Logger;
  /** The answers to the document's open choices a client sees (WIRE_CHOICES); the reference profile's by default. */
  wire: WireChoices;
}

/**
 * Every open choice of the document ("not shown") that changes what a client sees on the wire,
 * with the legal answers the reference can give; the first is the reference profile's
 * (spec/profile.yaml). Any other is what another vendor may legitimately have chosen: the
 * choice matrix (cli/choice-matrix.ts) certifies the reference under them, to prove the harness
 * never fails a server for a legal choice. Routes are `METHOD /path`.
 */
export const WIRE_CHOICES = {
  /** Section 4.2, method not shown (profile whoami.route). */
  'whoami.method': ['GET', 'POST'],
  /**
   * Section 2, capabilities element shape and assignedNumbers fields not shown: strings and
   * {total, smsEnabled, mmsEnabled}, or objects {name} and {count} (profile whoami.fields).
   */
  'whoami.shapes': ['strings', 'objects'],
  /** Section 4.3, method not shown (profile numbers.route). */
  'numbers.method': ['GET', 'POST'],
  /** Section 4.3, envelope not shown: the property holding the list, or `array` for a bare array (profile numbers.route). */
  'numbers.envelope': ['numbers', 'data', 'items', 'array'],
  /**
   * Section 2, other fields of the number record not shown (only numberId is required): every
   * field with phoneNumber, the numberId and settable fields without it, or the numberId alone
   * (profile numbers.record).
   */
  'numbers.record': ['full', 'minimal', 'id-only'],
  /** Section 4.4, path and method not shown; the request carries a JSON body (profile search.route). */
  'search.route': ['POST /api/core/numbers/search', 'POST /api/core/inventory/search', 'PUT /api/core/numbers/search'],
  /** Section 4.5, method and path prefix not shown; the path holds {numberId} (profile update.route). */
  'update.route': ['PATCH /api/core/numbers/{numberId}', 'PUT /api/core/numbers/{numberId}/settings', 'POST /api/core/numbers/{numberId}/settings'],
  /** Section 4.5, response body not shown: 200 with the updated number, or 204 without a body (profile update.route). */
  'update.answer': ['number', 'empty'],
  /** Another client's number on update: 404 hides that it exists (RFC 9110 15.5.5), 403 is the send's rule 4 answer (profile update.foreignNumber). */
  'update.foreignNumber': ['404', '403'],
  /** Section 4.6, HTTP status of success not shown (profile send.successStatus). */
  'send.successStatus': ['202', '200', '201'],
  /**
   * Section 2, result item fields not shown but messageId, and where QUEUED sits: items {to,
   * messageId, status}, items {messageId, status}, or a top-level status with items {messageId,
   * recipient} (profile send.items).
   */
  'send.results': ['per-recipient', 'ids-only', 'status-on-body'],
  /** Rule 8, status of an unsafe retry not shown: 409 CONFLICT, or the Idempotency-Key draft's 422 (profile send.unsafeRetry). */
  'send.unsafeRetry': ['409', '422'],
  /**
   * A send refused after its body's shape (ownership, campaign registration, recipients…): its
   * key stays free for the corrected request, or is claimed and the refusal replayed
   * (Idempotency-Key draft 2.6: "success or error"; profile send.replay).
   */
  'send.rejections': ['free', 'stored'],
  /** A request with the key of a send still in flight: wait and answer from its record, or 409 at once (Idempotency-Key draft 2.6, 2.7). */
  'send.inFlight': ['wait', '409'],
  /**
   * Section 6, event payload fields not shown: {type, timestamp, data: {...}}, or the fields at
   * the top with an `event` name (profile webhook.payload).
   */
  'webhook.payload': ['typed', 'flat'],
  /** Section 6, signing not shown: Standard Webhooks headers, or none (profile webhook.signing). */
  'webhook.signing': ['standard-webhooks', 'none'],
  /** Status of invalid_client (sections 4.1, 7.1): always 401, or 400 unless the client used Basic (RFC 6749 5.2; profile token.errorStatus). */
  'token.invalidClient': ['401', '400'],
} as const satisfies Record<string, readonly [string, ...string[]]>;

export type WireChoiceName = keyof typeof WIRE_CHOICES;
export type WireChoices = { readonly [N in WireChoiceName]: (typeof WIRE_CHOICES)[N][number] };

/** The reference profile's answers: the first value of each choice. */
export const PROFILE_WIRE_CHOICES = Object.fromEntries(
  Object.entries(WIRE_CHOICES).map(([name, values]) => [name, values[0]]),
) as WireChoices;

/** `name=value` as given to --choice; an unknown name or value is a ConfigError listing the known ones. */
export function parseWireChoice(text: string): [WireChoiceName, string] {
  const at = text.indexOf('=');
  const name = at < 0 ? text : text.slice(0, at);
  if (!(name in WIRE_CHOICES)) throw new ConfigError(`--choice: unknown choice "${name}"; known: ${Object.keys(WIRE_CHOICES).join(', ')}`);
  const values: readonly string[] = WIRE_CHOICES[name as WireChoiceName];
  const value = at < 0 ? '' : text.slice(at + 1);
  if (!values.includes(value)) throw new ConfigError(`--choice ${name}: "${value}" is not one of ${values.map((v) => `"${v}"`).join(', ')}`);
  return [name as WireChoiceName, value];
}

/** A route choice `METHOD /path` as its method and path. */
export function choiceRoute(choice: string): { method: string; path: string } {
  const [method, path] = choice.split(' ') as [string, string];
  return { method, path };
}

/** A route choice as method and fastify path under the /api/core prefix (`{numberId}` as `:numberId`). */
export function coreRoute(choice: string): { method: string; url: string } {
  const { method, path } = choiceRoute(choice);
  return { method, url: path.replace(/^\/api\/core/, '').replace(/\{(\w+)\}/g, ':$1') };
}

export const DEFAULTS = {
  dbPath: './reference.db',
  host: '127.0.0.1',
  port: 8080,
  tokenTtlSeconds: 3600,
  idempotencyTtlSeconds: 24 * 3600,
  upstreamTimeoutMs: 2000,
  webhookRetryBaseMs: WEBHOOK_BACKOFF_BASE_IN_MS,
  webhookTimeoutMs: WEBHOOK_TIMEOUT_IN_MS,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  // Longer than the 60 s idle timeout of common load balancers, as fastify's default.
  keepAliveTimeoutMs: 72_000,
  maxConnections: 1024,
  // Long enough for any request in progress to be answered (a provider call is bounded by the
  // upstream timeout, 2 s; a send by its batch's commit), short next to the 10-30 s an
  // orchestrator waits before it kills a process.
  shutdownGraceMs: 5_000,
  // An eighth of the server's connections: eight addresses, not one, to shut everyone else out.
  // A proxy in front makes every client one address: raise it there, or limit at the proxy.
  maxConnectionsPerSource: 128,
  // Above the 50 connections of the benchmarks and the few dozen a certification run holds.
  maxRequestsPerSource: 64,
  // Well above what a certification run asks for (about 60 token requests in 25 s, 10 of them
  // failing on purpose), well below what makes the token endpoint a CPU sink.
  tokenLimits: { requestsPerSourcePerMinute: 300, failuresPerSourcePerMinute: 30, failuresPerClientPerMinute: 10 },
  // Well above what a certification run sends (about 1,500 messages, a few hundred a second at
  // its busiest), well below what one client can make the server write (over 20,000 a second).
  sendMessagesPerSecond: 500,
  logLevel: 'info',
} as const;

/** Core request bodies above this size are answered 413 (profile send.limits: 256 KiB). */
export const CORE_BODY_LIMIT_BYTES = 256 * 1024;
/** The token endpoint carries a few short fields only. */
export const TOKEN_BODY_LIMIT_BYTES = 16 * 1024;
