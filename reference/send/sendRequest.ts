/** The body of POST /api/core/messages/send once it has passed the schema (section 4.6). */
export interface SendRequest {
  sendFrom: string;
  to: string[];
  messageType: 'SMS' | 'MMS';
  text?: string;
  media?: Array<{ url: string; contentType: string }>;
  externalReference: string;
}
