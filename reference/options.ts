import type { Logger } from 'pino';
import type { FaultName } from './faults/index.ts';
import type { TokenLimits } from './auth/tokenGuard.ts';
import type { ClientWebhookSetting } from './fixtures/clientWebhooks.ts';
import type { FixtureSet } from './fixtures/schema.ts';

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
  /** Rate limits of the token endpoint (reference/auth/tokenGuard.ts). */
  tokenLimits: TokenLimits;
  /** SQLite `synchronous` level; FULL (an fsync per commit) unless a caller knowingly trades durability. */
  synchronous: 'FULL' | 'NORMAL';
  logger: Logger;
  /** Deliberate misbehaviours for the kill matrix (reference/faults/); empty except with --faults. */
  faults: ReadonlySet<FaultName>;
}

export const DEFAULTS = {
  dbPath: './reference.db',
  host: '127.0.0.1',
  port: 8080,
  tokenTtlSeconds: 3600,
  idempotencyTtlSeconds: 24 * 3600,
  upstreamTimeoutMs: 2000,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  // Longer than the 60 s idle timeout of common load balancers, as fastify's default.
  keepAliveTimeoutMs: 72_000,
  maxConnections: 1024,
  // Well above what a certification run asks for (about 60 token requests in 25 s, 10 of them
  // failing on purpose), well below what makes the token endpoint a CPU sink.
  tokenLimits: { requestsPerSourcePerMinute: 300, failuresPerSourcePerMinute: 30, failuresPerClientPerMinute: 10 },
  logLevel: 'info',
} as const;

/** Core request bodies above this size are answered 413 (profile send.limits: 256 KiB). */
export const CORE_BODY_LIMIT_BYTES = 256 * 1024;
/** The token endpoint carries a few short fields only. */
export const TOKEN_BODY_LIMIT_BYTES = 16 * 1024;
