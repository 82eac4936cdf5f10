/**
 * The body of `POST /api/core/messages/send` (section 4.6), as the generators build it.
 * Media items follow the reference profile's shape (spec/profile.yaml, choice send.media);
 * the document leaves their fields unspecified.
 */
export type MessageType = 'SMS' | 'MMS';

export const MESSAGE_TYPES: readonly MessageType[] = ['SMS', 'MMS'];

export interface MediaItem {
  /** Absolute https URL of the content. */
  url: string;
  /** Media type, type/subtype (RFC 6838). */
  contentType: string;
}

export interface SendPayload {
  sendFrom: string;
  to: string[];
  messageType: MessageType;
  text?: string;
  media?: MediaItem[];
  externalReference: string;
}

/** Path of the send route (section 4.6). */
export const SEND_PATH = '/api/core/messages/send';
