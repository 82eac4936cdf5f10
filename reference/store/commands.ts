import type { IdempotencyRecord } from './idempotency.ts';
import type { Stores } from './index.ts';
import type { FinalStatus, InboundMessage, MessageContent, OutboundMessage } from './messages.ts';
import type { NumberRecord, NumberSettings } from './numbers.ts';
import type { OutboxEntry, OutboxState } from './outbox.ts';

/**
 * Every write of the reference, as plain data. Writes are described rather than passed as
 * closures because they are applied by the writer thread on its own connection: a command is
 * posted there, applied inside a group-commit transaction, and its result posted back once the
 * transaction (and its fsync) is done. Commands and results travel as JSON, so an absent value
 * is null (an undefined property would vanish on the way and leave a statement parameter unset).
 */
export interface WriteCommands {
  /**
   * A send's idempotency check and, for a new key, its durable part: the messages, their
   * delivery events, the idempotency record, and the inbound messages (with their events) of
   * recipients that are the service's own numbers (send/loopback.ts), in one transaction. A live record for the key
   * wins and nothing is written, so of several concurrent sends with a key one stores (IDEM-003).
   * Without rows (the send is refused unless its key has a record) it is the lookup alone.
   * Rows without content are a stored refusal (the send.rejections choice): the record alone.
   */
  acceptSend: {
    args: {
      apiClientId: string;
      idempotencyKey: string;
      nowMs: number;
      expiresAt: number;
      rows: { record: IdempotencyRecord; content: MessageContent | null; messages: OutboundMessage[]; events: OutboxEntry[]; inbound?: InboundMessage[] } | null;
    };
    result: { stored: true } | { stored: false; record: IdempotencyRecord | null };
  };
  insertToken: { args: { hash: string; apiClientId: string; expiresAt: number }; result: null };
  /** Every live token of the client expires now; the result is how many did. */
  expireTokens: { args: { apiClientId: string; nowMs: number }; result: number };
  /** Read and write in one transaction so two concurrent updates of different fields both land. */
  updateNumber: { args: { apiClientId: string; numberId: string; changes: Partial<NumberSettings> }; result: NumberRecord | null };
  setClientWebhooks: { args: { apiClientId: string; delivery: string | null; inbound: string | null }; result: null };
  receiveInbound: { args: { message: InboundMessage; event: OutboxEntry }; result: OutboxState };
  /** QUEUED -> SENT -> final, both timestamps at once (profile message.transitions). */
  completeMessages: { args: { outcomes: Array<{ messageId: string; status: FinalStatus; errorCode: string | null }>; nowMs: number }; result: null };
  settleWebhook: {
    args: { webhookId: string; state: Exclude<OutboxState, 'pending'>; attempts: number; lastResult: string; nowMs: number };
    result: null;
  };
  scheduleWebhookRetry: { args: { webhookId: string; attempts: number; lastResult: string; nextAttemptAt: number; nowMs: number }; result: null };
  purgeExpired: { args: { nowMs: number }; result: { tokens: number; idempotencyRecords: number } };
  /** The control plane's reset: the seeded state, keeping numberIds and secrets. */
  resetToSeed: { args: { clients: SeedState[] }; result: null };
}

export interface SeedState {
  apiClientId: string;
  deliveryWebhookUrl: string | null;
  inboundWebhookUrl: string | null;
  numbers: Array<{ phoneNumber: string; settings: NumberSettings }>;
}

export type WriteOp = keyof WriteCommands;
export type WriteCommand = { [K in WriteOp]: { op: K } & WriteCommands[K]['args'] }[WriteOp];
export type WriteResult<K extends WriteOp> = WriteCommands[K]['result'];

type Handlers = { [K in WriteOp]: (stores: Stores, command: WriteCommands[K]['args']) => WriteResult<K> };

const RESET_TABLES = ['tokens', 'messages', 'message_contents', 'idempotency', 'webhook_outbox'] as const;

const HANDLERS: Handlers = {
  acceptSend(stores, { apiClientId, idempotencyKey, nowMs, expiresAt, rows }) {
    if (!rows || !stores.idempotency.claim(apiClientId, idempotencyKey, rows.record, expiresAt, nowMs)) {
      return { stored: false, record: stores.idempotency.find(apiClientId, idempotencyKey, nowMs) ?? null };
    }
    if (rows.content) stores.messages.insertContent(rows.content);
    for (const message of rows.messages) stores.messages.insertOutbound(message);
    for (const message of rows.inbound ?? []) stores.messages.insertInbound(message);
    for (const event of rows.events) stores.outbox.insert(event);
    return { stored: true };
  },
  insertToken(stores, { hash, apiClientId, expiresAt }) {
    stores.tokens.insert(hash, apiClientId, expiresAt);
    return null;
  },
  expireTokens(stores, { apiClientId, nowMs }) {
    return stores.tokens.expireAllFor(apiClientId, nowMs);
  },
  updateNumber(stores, { apiClientId, numberId, changes }) {
    const current = stores.numbers.findOwned(apiClientId, numberId);
    if (!current) return null;
    const next = { ...current, ...changes };
    stores.numbers.update(numberId, next);
    return next;
  },
  setClientWebhooks(stores, { apiClientId, delivery, inbound }) {
    stores.clients.setWebhooks(apiClientId, delivery, inbound);
    return null;
  },
  receiveInbound(stores, { message, event }) {
    stores.messages.insertInbound(message);
    return stores.outbox.insert(event);
  },
  completeMessages(stores, { outcomes, nowMs }) {
    for (const { messageId, status, errorCode } of outcomes) stores.messages.complete(messageId, status, errorCode, nowMs);
    return null;
  },
  settleWebhook(stores, { webhookId, state, attempts, lastResult, nowMs }) {
    stores.outbox.settle(webhookId, state, attempts, lastResult, nowMs);
    return null;
  },
  scheduleWebhookRetry(stores, { webhookId, attempts, lastResult, nextAttemptAt, nowMs }) {
    stores.outbox.scheduleRetry(webhookId, attempts, lastResult, nextAttemptAt, nowMs);
    return null;
  },
  purgeExpired(stores, { nowMs }) {
    return { tokens: stores.tokens.purgeExpired(nowMs), idempotencyRecords: stores.idempotency.purgeExpired(nowMs) };
  },
  resetToSeed(stores, { clients }) {
    for (const table of RESET_TABLES) stores.db.prepare(`DELETE FROM ${table}`).run();
    for (const client of clients) {
      stores.clients.setWebhooks(client.apiClientId, client.deliveryWebhookUrl, client.inboundWebhookUrl);
      for (const number of client.numbers) {
        const stored = stores.numbers.byPhoneNumber(number.phoneNumber);
        if (stored) stores.numbers.update(stored.numberId, number.settings);
      }
    }
    return null;
  },
};

/** Applies one command to the stores of the connection it runs on (inside the caller's transaction). */
export function applyWrite(stores: Stores, command: WriteCommand): unknown {
  const handler = HANDLERS[command.op] as (stores: Stores, command: WriteCommand) => unknown;
  return handler(stores, command);
}
