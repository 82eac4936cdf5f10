import type { Db } from '../db/open.ts';

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

/** Final outcomes of outbound messages (profile message.transitions). */
export type FinalStatus = 'DELIVERED' | 'FAILED';

export class MessageStore {
  private readonly insertContentStmt;
  private readonly insertOutboundStmt;
  private readonly insertInboundStmt;
  private readonly completeStmt;
  private readonly inProgressStmt;
  private readonly countStmt;

  constructor(db: Db) {
    this.insertContentStmt = db.prepare('INSERT INTO message_contents (content_id, text, media) VALUES (@contentId, @text, @media)');
    this.insertOutboundStmt = db.prepare(
      `INSERT INTO messages (message_id, api_client_id, direction, number_id, counterpart, message_type, content_id,
         external_reference, status, created_at)
       VALUES (@messageId, @apiClientId, 'outbound', @numberId, @to, @messageType, @contentId, @externalReference, 'QUEUED', @createdAt)`,
    );
    this.insertInboundStmt = db.prepare(
      `INSERT INTO messages (message_id, api_client_id, direction, number_id, counterpart, message_type, text, status, created_at, completed_at)
       VALUES (@messageId, @apiClientId, 'inbound', @numberId, @from, 'SMS', @text, 'RECEIVED', @createdAt, @createdAt)`,
    );
    // QUEUED -> SENT -> final: the simulated carrier takes the message and reports its outcome
    // in one step, so both timestamps are written together.
    this.completeStmt = db.prepare(
      `UPDATE messages SET status = @status, error_code = @errorCode, sent_at = @now, completed_at = @now
       WHERE message_id = @messageId AND status IN ('QUEUED', 'SENT')`,
    );
    this.inProgressStmt = db.prepare<[], { messageId: string; to: string }>(
      `SELECT message_id AS messageId, counterpart AS "to" FROM messages WHERE status IN ('QUEUED', 'SENT')`,
    );
    this.countStmt = db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM messages WHERE direction = 'outbound'`);
  }

  insertContent(content: MessageContent): void {
    this.insertContentStmt.run(content);
  }

  insertOutbound(message: OutboundMessage): void {
    this.insertOutboundStmt.run(message);
  }

  insertInbound(message: InboundMessage): void {
    this.insertInboundStmt.run(message);
  }

  complete(messageId: string, status: FinalStatus, errorCode: string | null, nowMs: number): void {
    this.completeStmt.run({ messageId, status, errorCode, now: nowMs });
  }

  inProgress(): Array<{ messageId: string; to: string }> {
    return this.inProgressStmt.all();
  }

  countOutbound(): number {
    return this.countStmt.get()!.n;
  }
}
