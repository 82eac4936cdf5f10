import type { IdempotencyRecord } from './idempotency.ts';
import type { Stores } from './index.ts';
import { contentRow, inboundRow, outboundRow, type CompletionRow, type ContentRow, type FinalStatus, type InboundMessage, type InboundRow, type MessageContent, type OutboundMessage, type OutboundRow } from './messages.ts';
import type { NumberRecord, NumberSettings } from './numbers.ts';
import { outboxRow, type OutboxEntry, type OutboxRow, type OutboxState } from './outbox.ts';

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
  /** The control plane's client status (profile client.status, CTX-203). */
  setClientStatus: { args: { apiClientId: string; status: string }; result: null };
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
  status: string;
  deliveryWebhookUrl: string | null;
  inboundWebhookUrl: string | null;
  numbers: Array<{ phoneNumber: string; settings: NumberSettings }>;
}

export type WriteOp = keyof WriteCommands;
export type WriteCommand = { [K in WriteOp]: { op: K } & WriteCommands[K]['args'] }[WriteOp];
export type WriteResult<K extends WriteOp> = WriteCommands[K]['result'];

type Handlers = { [K in WriteOp]: (stores: Stores, command: WriteCommands[K]['args']) => WriteResult<K> };

const RESET_TABLES = ['tokens', 'messages', 'message_contents', 'idempotency', 'webhook_outbox'] as const;

// The two commands of every send, acceptSend and (from the carrier) completeMessages, are packed
// into flat arrays of statement parameters (packCommand): that is what crosses to the writer
// thread as JSON, shorter to write and read than the objects with their key names, and bound
// to the statements as it is. The other commands are rare and travel as they are.
type PackedRows = [
  fingerprint: string,
  statusCode: number,
  body: string,
  content: ContentRow | null,
  messages: OutboundRow[],
  inbound: InboundRow[],
  events: OutboxRow[],
];
/** A command as the writer applies it (see packCommand). */
export type PackedCommand =
  | [op: 'acceptSend', apiClientId: string, idempotencyKey: string, nowMs: number, expiresAt: number, rows: PackedRows | null]
  | [op: 'completeMessages', nowMs: number, outcomes: Array<string | null>]
  | [op: Exclude<WriteOp, 'acceptSend' | 'completeMessages'>, command: WriteCommand];

export function packCommand(command: WriteCommand): PackedCommand {
  switch (command.op) {
    case 'acceptSend': {
      const { apiClientId, idempotencyKey, nowMs, expiresAt, rows } = command;
      const packed: PackedRows | null = rows && [
        rows.record.fingerprint,
        rows.record.statusCode,
        rows.record.body,
        rows.content && contentRow(rows.content),
        rows.messages.map(outboundRow),
        (rows.inbound ?? []).map(inboundRow),
        rows.events.map(outboxRow),
      ];
      return ['acceptSend', apiClientId, idempotencyKey, nowMs, expiresAt, packed];
    }
    case 'completeMessages': {
      // messageId, status, errorCode, one after another.
      const flat: Array<string | null> = [];
      for (const { messageId, status, errorCode } of command.outcomes) flat.push(messageId, status, errorCode);
      return ['completeMessages', command.nowMs, flat];
    }
    default:
      return [command.op, command];
  }
}

/**
 * The rows of the accepted sends of a batch, gathered to be inserted together: one statement
 * per table for the whole batch (ManyRows) rather than one per row.
 */
class SendRows {
  contents: ContentRow[] = [];
  messages: OutboundRow[] = [];
  inbound: InboundRow[] = [];
  events: OutboxRow[] = [];

  insert(stores: Stores): void {
    if (this.messages.length === 0 && this.contents.length === 0 && this.events.length === 0 && this.inbound.length === 0) return;
    const { contents, messages, inbound, events } = this;
    this.contents = [];
    this.messages = [];
    this.inbound = [];
    this.events = [];
    stores.messages.insertContents(contents);
    stores.messages.insertOutbounds(messages);
    for (const message of inbound) stores.messages.insertInbound(message);
    stores.outbox.insertRows(events);
  }
}

type Packed<K extends 'acceptSend' | 'completeMessages'> = Extract<PackedCommand, [K, ...unknown[]]>;

function acceptSend(stores: Stores, [, apiClientId, idempotencyKey, nowMs, expiresAt, rows]: Packed<'acceptSend'>, into: SendRows): WriteResult<'acceptSend'> {
  if (!rows || !stores.idempotency.claim(apiClientId, idempotencyKey, { fingerprint: rows[0], statusCode: rows[1], body: rows[2] }, expiresAt, nowMs)) {
    return { stored: false, record: stores.idempotency.find(apiClientId, idempotencyKey, nowMs) ?? null };
  }
  const [, , , content, messages, inbound, events] = rows;
  if (content) into.contents.push(content);
  for (const message of messages) into.messages.push(message);
  for (const message of inbound) into.inbound.push(message);
  for (const event of events) into.events.push(event);
  return { stored: true };
}

function completeMessages(stores: Stores, [, nowMs, flat]: Packed<'completeMessages'>): null {
  const outcomes: CompletionRow[] = [];
  for (let i = 0; i < flat.length; i += 3) outcomes.push([flat[i]!, flat[i + 1] as FinalStatus, flat[i + 2] ?? null, nowMs]);
  stores.messages.completeAll(outcomes);
  return null;
}

const HANDLERS: Omit<Handlers, 'acceptSend' | 'completeMessages'> = {
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
  setClientStatus(stores, { apiClientId, status }) {
    stores.clients.setStatus(apiClientId, status);
    return null;
  },
  receiveInbound(stores, { message, event }) {
    stores.messages.insertInbound(inboundRow(message));
    return stores.outbox.insert(event);
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
      stores.clients.setStatus(client.apiClientId, client.status);
      for (const number of client.numbers) {
        const stored = stores.numbers.byPhoneNumber(number.phoneNumber);
        if (stored) stores.numbers.update(stored.numberId, number.settings);
      }
    }
    return null;
  },
};

/**
 * Applies a batch of packed commands in their order to the stores of the connection it runs on,
 * inside the caller's transaction, and returns their results in that order. Each send's
 * idempotency claim is made in its turn, so a later send of the batch with the same key sees
 * it; the rows of accepted sends are inserted together before any other command (which may
 * read or delete them: a reset) and at the end.
 */
export function applyBatch(stores: Stores, batch: readonly PackedCommand[]): unknown[] {
  const rows = new SendRows();
  const results: unknown[] = [];
  for (const packed of batch) {
    if (packed[0] === 'acceptSend') {
      results.push(acceptSend(stores, packed, rows));
      continue;
    }
    rows.insert(stores);
    if (packed[0] === 'completeMessages') {
      results.push(completeMessages(stores, packed));
      continue;
    }
    const handler = HANDLERS[packed[0]] as (stores: Stores, command: WriteCommand) => unknown;
    results.push(handler(stores, packed[1]));
  }
  rows.insert(stores);
  return results;
}
