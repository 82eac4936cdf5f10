import type { Db } from '../db/open.ts';
import { ManyRows } from './manyRows.ts';

/** The text and media of an outbound send, stored once for all its messages. */
export interface MessageContent {
  contentId: string;
  text: string | null;
  /** The media items as JSON text. */
  media: string | null;
}

export interface OutboundMessage {
  messageId: string;
  apiClientId: string;
  numberId: string;
  to: string;
  messageType: 'SMS' | 'MMS';
  contentId: string;
  externalReference: string;
  createdAt: number;
}

export interface InboundMessage {
  messageId: string;
  apiClientId: string;
  numberId: string;
  from: string;
  text: string;
  createdAt: number;
}

/** The parameters of the outbound insert, in its order: what crosses to the writer thread for each message. */
export type OutboundRow = [messageId: string, apiClientId: string, numberId: string, to: string, messageType: string, contentId: string, externalReference: string, createdAt: number];
// An inbound message is complete when it is received: createdAt twice, for created_at and completed_at.
export type InboundRow = [messageId: string, apiClientId: string, numberId: string, from: string, text: string, createdAt: number, completedAt: number];
export type ContentRow = [contentId: string, text: string | null, media: string | null];

export const outboundRow = (m: OutboundMessage): OutboundRow => [m.messageId, m.apiClientId, m.numberId, m.to, m.messageType, m.contentId, m.externalReference, m.createdAt];
export const inboundRow = (m: InboundMessage): InboundRow => [m.messageId, m.apiClientId, m.numberId, m.from, m.text, m.createdAt, m.createdAt];
export const contentRow = (c: MessageContent): ContentRow => [c.contentId, c.text, c.media];

export type CompletionRow = [messageId: string, status: FinalStatus, errorCode: string | null, nowMs: number];

function pushAll(row: readonly unknown[], into: unknown[]): void {
  for (const value of row) into.push(value);
}

/** Final outcomes of outbound messages (profile message.transitions). */
export type FinalStatus = 'DELIVERED' | 'FAILED';

export class MessageStore {
  private readonly insertContentStmt;
  private readonly insertOutboundStmt;
  private readonly insertInboundStmt;
  private readonly completeStmt;
  private readonly contentsMany;
  private readonly outboundsMany;
  private readonly completeMany;
  private readonly inProgressStmt;
  private readonly countStmt;

  constructor(db: Db) {
    // Positional parameters (the *Row tuples above): binding an array is cheaper than looking
    // each named parameter up on an object, and the rows cross threads as these arrays.
    this.insertContentStmt = db.prepare<[ContentRow]>('INSERT INTO message_contents (content_id, text, media) VALUES (?, ?, ?)');
    this.insertOutboundStmt = db.prepare<[OutboundRow]>(
      `INSERT INTO messages (message_id, api_client_id, direction, number_id, counterpart, message_type, content_id,
         external_reference, status, created_at)
       VALUES (?, ?, 'outbound', ?, ?, ?, ?, ?, 'QUEUED', ?)`,
    );
    this.insertInboundStmt = db.prepare<[InboundRow]>(
      `INSERT INTO messages (message_id, api_client_id, direction, number_id, counterpart, message_type, text, status, created_at, completed_at)
       VALUES (?, ?, 'inbound', ?, ?, 'SMS', ?, 'RECEIVED', ?, ?)`,
    );
    // QUEUED -> SENT -> final: the simulated carrier takes the message and reports its outcome
    // in one step, so both timestamps are written together.
    this.completeStmt = db.prepare<[string, string | null, number, number, string]>(
      `UPDATE messages SET status = ?, error_code = ?, sent_at = ?, completed_at = ?
       WHERE message_id = ? AND status IN ('QUEUED', 'SENT')`,
    );
    // The same for the rows of a whole batch of sends (ManyRows): one statement per table.
    this.contentsMany = new ManyRows<ContentRow>(db, 'INSERT INTO message_contents (content_id, text, media) VALUES', '(?, ?, ?)', pushAll);
    this.outboundsMany = new ManyRows<OutboundRow>(
      db,
      `INSERT INTO messages (message_id, api_client_id, direction, number_id, counterpart, message_type, content_id,
         external_reference, status, created_at) VALUES`,
      "(?, ?, 'outbound', ?, ?, ?, ?, ?, 'QUEUED', ?)",
      pushAll,
    );
    this.completeMany = new ManyRows<CompletionRow>(
      db,
      'UPDATE messages SET status = v.column2, error_code = v.column3, sent_at = v.column4, completed_at = v.column4 FROM (VALUES',
      '(?, ?, ?, ?)',
      pushAll,
      ") AS v WHERE messages.message_id = v.column1 AND messages.status IN ('QUEUED', 'SENT')",
    );
    this.inProgressStmt = db.prepare<[], { messageId: string; to: string }>(
      `SELECT message_id AS messageId, counterpart AS "to" FROM messages WHERE status IN ('QUEUED', 'SENT')`,
    );
    this.countStmt = db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM messages WHERE direction = 'outbound'`);
  }

  insertContent(content: ContentRow): void {
    this.insertContentStmt.run(content);
  }

  insertOutbound(message: OutboundRow): void {
    this.insertOutboundStmt.run(message);
  }

  insertInbound(message: InboundRow): void {
    this.insertInboundStmt.run(message);
  }

  complete(messageId: string, status: FinalStatus, errorCode: string | null, nowMs: number): void {
    this.completeStmt.run(status, errorCode, nowMs, nowMs, messageId);
  }

  insertContents(contents: readonly ContentRow[]): void {
    this.contentsMany.run(contents);
  }

  insertOutbounds(messages: readonly OutboundRow[]): void {
    this.outboundsMany.run(messages);
  }

  /** complete() for many messages. */
  completeAll(outcomes: readonly CompletionRow[]): void {
    this.completeMany.run(outcomes);
  }

  inProgress(): Array<{ messageId: string; to: string }> {
    return this.inProgressStmt.all();
  }

  countOutbound(): number {
    return this.countStmt.get()!.n;
  }
}
