import { setMaxListeners } from 'node:events';
import { isIP } from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import type { Logger } from 'pino';
import type { DueWebhook, OutboxStore } from '../store/outbox.ts';
import { untilCommitted } from '../store/untilCommitted.ts';
import type { Writes } from '../store/writes.ts';
import type { WebhookPolicy } from './policy.ts';
import { TargetRefused, type WebhookTargets } from './targets.ts';
import { WEBHOOK_BACKOFF_BASE_IN_MS, WEBHOOK_MAX_ATTEMPTS, WEBHOOK_TIMEOUT_IN_MS } from './retryPolicy.ts';

interface AttemptResult {
  status?: number;
  retryAfterSeconds?: number;
  error?: string;
  /** The target check refused the address the delivery would have connected to. */
  refused?: string;
}

/**
 * A connector that checks each address before connecting to it (profile webhook.targets): the
 * host is resolved here, every address it resolves to is checked, and the connection goes to a
 * checked address, so DNS cannot answer one address to the check and another to the connection.
 * TLS still verifies the certificate against the host name.
 */
function checkedConnector(targets: WebhookTargets, timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs });
  return (options, callback) => {
    const port = Number(options.port || (options.protocol === 'https:' ? 443 : 80));
    targets.resolveForDelivery(options.hostname, port).then(
      (resolved) => {
        if (!resolved.ok) return callback(new TargetRefused(resolved), null);
        connect({ ...options, hostname: resolved.address, servername: options.servername ?? (isIP(options.hostname) ? undefined : options.hostname) }, callback);
      },
      (error: Error) => callback(error, null),
    );
  };
}

/**
 * Delivers committed webhook events: POSTs each one as soon as it is handed over (no polling
 * interval between acceptance and callback), records every attempt, and schedules retries from
 * the outbox so that a restart resumes where the last process stopped.
 */
export class WebhookDispatcher {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  // A bounded pool per receiver: a burst of events queues instead of opening a socket per event.
  private readonly agent: Agent;
  private closing = false;

  constructor(
    private readonly writes: Writes,
    private readonly outbox: OutboxStore,
    private readonly logger: Logger,
    private readonly policy: Pick<WebhookPolicy, 'signedHeaders' | 'attemptPayload' | 'attemptTarget' | 'delivered' | 'retried' | 'gone' | 'retryDelayMs' | 'parseRetryAfter' | 'honouredRetryAfter'>,
    targets: WebhookTargets,
    private readonly retryBaseMs: number = WEBHOOK_BACKOFF_BASE_IN_MS,
    /** How long an attempt waits to connect, and then for the receiver's answer: past it the attempt failed (WH-104) and is retried. */
    private readonly timeoutMs: number = WEBHOOK_TIMEOUT_IN_MS,
  ) {
    this.agent = new Agent({ connections: 32, keepAliveTimeout: 10_000, connect: checkedConnector(targets, timeoutMs) });
    // Every attempt in flight listens on the one shutdown signal, and a slow receiver keeps
    // many in flight; each listener goes when its attempt ends, so Node's leak warning at
    // eleven would only be noise on stderr.
    setMaxListeners(0, this.abort.signal);
  }

  /** Attempts freshly committed events now. */
  dispatch(webhooks: readonly DueWebhook[]): void {
    for (const webhook of webhooks) this.attempt(webhook);
  }

  /** Picks up every pending event of the outbox (at start, after a crash or a stop). */
  resume(): void {
    for (const webhook of this.outbox.pending()) this.schedule(webhook);
  }

  /** Forgets scheduled retries (the control plane's reset clears the outbox they belong to). */
  cancelScheduled(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  async close(): Promise<void> {
    this.closing = true;
    this.cancelScheduled();
    this.abort.abort();
    await Promise.allSettled([...this.inFlight]);
    await this.agent.close();
  }

  private schedule(webhook: DueWebhook): void {
    const delay = webhook.nextAttemptAt - Date.now();
    if (delay <= 0) {
      this.attempt(webhook);
      return;
    }
    this.timers.set(
      webhook.webhookId,
      setTimeout(() => {
        this.timers.delete(webhook.webhookId);
        this.attempt(webhook);
      }, delay),
    );
  }

  private attempt(webhook: DueWebhook): void {
    if (this.closing) return;
    const running: Promise<void> = this.post(webhook)
      .then((result) => this.record(webhook, result))
      .catch((error: unknown) => this.logger.error({ err: error, webhookId: webhook.webhookId }, 'webhook bookkeeping failed'))
      .finally(() => this.inFlight.delete(running));
    this.inFlight.add(running);
  }

  private async post(webhook: DueWebhook): Promise<AttemptResult> {
    try {
      const payload = this.policy.attemptPayload(webhook.payload, webhook.attempts);
      const headers = this.policy.signedHeaders(webhook.webhookSecret, webhook.webhookId, payload, Date.now());
      const response = await request(this.policy.attemptTarget(webhook, webhook.attempts), {
        method: 'POST',
        headers,
        body: payload,
        dispatcher: this.agent,
        signal: this.abort.signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      await response.body.dump();
      return { status: response.statusCode, retryAfterSeconds: this.policy.parseRetryAfter(response.headers['retry-after'], Date.now()) };
    } catch (error) {
      if (error instanceof TargetRefused) return { refused: error.message };
      return { error: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
    }
  }

  /** Records an attempt; a store error is retried until it commits (a full disk would otherwise leave the event unscheduled until the next start). */
  private record(webhook: DueWebhook, result: AttemptResult): Promise<void> {
    return untilCommitted(() => this.recordOnce(webhook, result), {
      logger: this.logger,
      what: `recording webhook ${webhook.webhookId}`,
      stopped: () => this.closing,
      signal: this.abort.signal,
    }).then(() => undefined);
  }

  private async recordOnce(webhook: DueWebhook, result: AttemptResult): Promise<void> {
    // An attempt cut short by shutdown is not counted: the event stays pending for the next start.
    if (this.closing) return;
    const attempts = webhook.attempts + 1;
    const lastResult = result.status !== undefined ? `HTTP ${result.status}` : result.refused ?? `error ${result.error}`;
    const now = Date.now();
    const { webhookId } = webhook;
    const attempt = { ...result, kind: webhook.kind, webhookId };
    if (result.refused !== undefined) {
      // Not retried: the target is not one the server calls (profile webhook.targets).
      this.logger.warn({ webhookId, lastResult }, 'webhook not sent: its target is refused');
      await this.writes.run({ op: 'settleWebhook', webhookId, state: 'refused', attempts, lastResult, nowMs: now });
    } else if (this.policy.delivered(attempt)) {
      await this.writes.run({ op: 'settleWebhook', webhookId, state: 'delivered', attempts, lastResult, nowMs: now });
    } else if (this.policy.gone(attempt)) {
      await this.writes.run({ op: 'settleWebhook', webhookId, state: 'gone', attempts, lastResult, nowMs: now });
    } else if (attempts >= WEBHOOK_MAX_ATTEMPTS || !this.policy.retried(attempt)) {
      this.logger.warn({ webhookId, attempts, lastResult }, 'webhook abandoned after its last attempt');
      await this.writes.run({ op: 'settleWebhook', webhookId, state: 'failed', attempts, lastResult, nowMs: now });
    } else {
      const nextAttemptAt = now + this.policy.retryDelayMs(attempts, this.policy.honouredRetryAfter(attempt), Math.random, this.retryBaseMs);
      await this.writes.run({ op: 'scheduleWebhookRetry', webhookId, attempts, lastResult, nextAttemptAt, nowMs: now });
      this.schedule({ ...webhook, attempts, nextAttemptAt });
    }
  }
}
