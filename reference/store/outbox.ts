import type { Db } from '../db/open.ts';
import { ManyRows } from './manyRows.ts';

export type WebhookKind = 'message.delivery' | 'message.inbound';

/**
 * pending: to be POSTed (now or at next_attempt_at); delivered: a 2xx was received;
 * failed: every attempt failed; gone: the receiver answered 410; undeliverable: no target was
 * configured when the event was produced, so there is nothing to retry; refused: the target's
 * address is one the server does not call (profile webhook.targets), checked at delivery.
 */
export type OutboxState = 'pending' | 'delivered' | 'failed' | 'gone' | 'undeliverable' | 'refused';

export interface OutboxEntry {
  webhookId: string;
  apiClientId: string;
  kind: WebhookKind;
  messageId: string;
  targetUrl: string | null;
  payload: string;
  createdAt: number;
}

/** The parameters of the outbox insert, in its order (see OutboxStore.insertRow). */
export type OutboxRow = [webhookId: string, apiClientId: string, kind: WebhookKind, messageId: string, targetUrl: string | null, payload: string, state: OutboxState, createdAt: number];

/** An event as the insert takes it; without a target it is recorded as undeliverable and never attempted. */
export function outboxRow(entry: OutboxEntry): OutboxRow {
  return [entry.webhookId, entry.apiClientId, entry.kind, entry.messageId, entry.targetUrl, entry.payload, entry.targetUrl ? 'pending' : 'undeliverable', entry.createdAt];
}

/** What the dispatcher needs to make one attempt. */
export interface DueWebhook {
  webhookId: string;
  /** Which event it carries: a delivery outcome or inbound traffic (each retried alike, WH-103, WH-110). */
  kind: WebhookKind;
  targetUrl: string;
  payload: string;
  webhookSecret: string;
  attempts: number;
  nextAttemptAt: number;
}

export class OutboxStore {
  private readonly insertStmt;
  private readonly insertMany;
  private readonly settleStmt;
  private readonly retryStmt;
  private readonly pendingStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare<[...OutboxRow, number, number]>(
      `INSERT INTO webhook_outbox (webhook_id, api_client_id, kind, message_id, target_url, payload, state, attempts,
         created_at, next_attempt_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
    );
    this.insertMany = new ManyRows<OutboxRow>(
      db,
      `INSERT INTO webhook_outbox (webhook_id, api_client_id, kind, message_id, target_url, payload, state, attempts,
         created_at, next_attempt_at, updated_at) VALUES`,
      '(?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)',
      (row, into) => into.push(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[7], row[7]),
    );
    this.settleStmt = db.prepare(
      `UPDATE webhook_outbox SET state = @state, attempts = @attempts, last_result = @lastResult, next_attempt_at = NULL,
         updated_at = @now WHERE webhook_id = @webhookId`,
    );
    this.retryStmt = db.prepare(
      `UPDATE webhook_outbox SET attempts = @attempts, last_result = @lastResult, next_attempt_at = @nextAttemptAt,
         updated_at = @now WHERE webhook_id = @webhookId`,
    );
    this.pendingStmt = db.prepare<[], DueWebhook>(
      `SELECT o.webhook_id AS webhookId, o.kind, o.target_url AS targetUrl, o.payload, c.webhook_secret AS webhookSecret,
         o.attempts, o.next_attempt_at AS nextAttemptAt
       FROM webhook_outbox o JOIN clients c USING (api_client_id)
       WHERE o.state = 'pending' ORDER BY o.next_attempt_at`,
    );
  }

  /** Stores an event; without a target it is recorded as undeliverable and never attempted. */
  insert(entry: OutboxEntry): OutboxState {
    const row = outboxRow(entry);
    this.insertRow(row);
    return row[6];
  }

  /** next_attempt_at and updated_at start at created_at. */
  insertRow(row: OutboxRow): void {
    this.insertStmt.run(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[7], row[7]);
  }

  /** insertRow() for many rows. */
  insertRows(rows: readonly OutboxRow[]): void {
    this.insertMany.run(rows);
  }

  settle(webhookId: string, state: Exclude<OutboxState, 'pending'>, attempts: number, lastResult: string, nowMs: number): void {
    this.settleStmt.run({ webhookId, state, attempts, lastResult, now: nowMs });
  }

  scheduleRetry(webhookId: string, attempts: number, lastResult: string, nextAttemptAt: number, nowMs: number): void {
    this.retryStmt.run({ webhookId, attempts, lastResult, nextAttemptAt, now: nowMs });
  }

  pending(): DueWebhook[] {
    return this.pendingStmt.all();
  }
}
