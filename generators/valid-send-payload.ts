import fc from 'fast-check';
import { externalReference, type ExternalReferenceConstraints } from './external-reference.ts';
import { mediaItems, type MediaItemsConstraints } from './media-items.ts';
import { messageText, type MessageTextConstraints } from './message-text.ts';
import type { TestOutcome } from './nanp-test-number.ts';
import { MESSAGE_TYPES, type MessageType, type SendPayload } from './send-payload.ts';
import { validE164Recipient } from './valid-e164-recipient.ts';

export interface ValidSendPayloadConstraints {
  /**
   * numberIds the client may send SMS from: owned, with a campaignregId (rules 4 and 5).
   * Pass the target's numbers; the default exists only for offline use.
   * @defaultValue ['num_01'], the numberId of the OpenAPI examples
   */
  numberIds?: readonly string[];
  /**
   * numberIds the client may send MMS from.
   * @defaultValue numberIds
   */
  mmsNumberIds?: readonly string[];
  /**
   * Message types to draw. A type with no numberId to send from is left out.
   * @defaultValue ['SMS', 'MMS']
   */
  messageTypes?: readonly MessageType[];
  /**
   * Fewest recipients; `to` must not be empty (section 4.6).
   * @defaultValue 1
   */
  minRecipients?: number;
  /**
   * Most recipients. The reference profile accepts up to 100; fewer keeps runs fast.
   * @defaultValue 3
   */
  maxRecipients?: number;
  /**
   * Send only to fictional NANP numbers that end with this outcome at the reference profile.
   * @defaultValue undefined: any valid recipient (real, boundary and test numbers)
   */
  outcome?: TestOutcome;
  /**
   * Recipients to draw instead; overrides `outcome`.
   * @defaultValue validE164Recipient({ outcome })
   */
  recipient?: fc.Arbitrary<string>;
  /** Constraints for `text`. @defaultValue messageText()'s defaults */
  text?: MessageTextConstraints;
  /** Constraints for `media`. @defaultValue mediaItems()'s defaults */
  media?: MediaItemsConstraints;
  /** Constraints for `externalReference`. @defaultValue externalReference()'s defaults */
  externalReference?: ExternalReferenceConstraints;
}

/**
 * Send bodies that break no rule of section 4.6: an SMS with text and no media, or an MMS
 * with one or more media items and optional text; one or many distinct E.164 recipients
 * (a repeated recipient is a separate question, see the profile's send.items); a required
 * externalReference.
 */
export function validSendPayload(constraints: ValidSendPayloadConstraints = {}): fc.Arbitrary<SendPayload> {
  const smsNumbers = constraints.numberIds ?? ['num_01'];
  const mmsNumbers = constraints.mmsNumberIds ?? smsNumbers;
  const minRecipients = constraints.minRecipients ?? 1;
  const maxRecipients = constraints.maxRecipients ?? 3;
  if (!(Number.isInteger(minRecipients) && Number.isInteger(maxRecipients) && minRecipients >= 1 && minRecipients <= maxRecipients)) {
    throw new Error(`validSendPayload: need 1 <= minRecipients <= maxRecipients, got ${minRecipients}..${maxRecipients}`);
  }
  const senders: Record<MessageType, readonly string[]> = { SMS: smsNumbers, MMS: mmsNumbers };
  const types = (constraints.messageTypes ?? MESSAGE_TYPES).filter((type) => senders[type].length > 0);
  if (types.length === 0) throw new Error('validSendPayload: no message type has a numberId to send from');

  const recipient = constraints.recipient ?? validE164Recipient(constraints.outcome === undefined ? {} : { outcome: constraints.outcome });
  const to = fc.uniqueArray(recipient, { minLength: minRecipients, maxLength: maxRecipients });
  const text = messageText(constraints.text);
  const reference = externalReference(constraints.externalReference);

  const sms = () =>
    fc.record({
      sendFrom: fc.constantFrom(...smsNumbers),
      to,
      messageType: fc.constant<'SMS'>('SMS'),
      text,
      externalReference: reference,
    });
  const mms = () =>
    fc.record(
      {
        sendFrom: fc.constantFrom(...mmsNumbers),
        to,
        messageType: fc.constant<'MMS'>('MMS'),
        text,
        // At least one item, whatever the caller asks: an MMS without media breaks rule 3.
        media: mediaItems({ ...constraints.media, minItems: Math.max(1, constraints.media?.minItems ?? 1) }),
        externalReference: reference,
      },
      { requiredKeys: ['sendFrom', 'to', 'messageType', 'media', 'externalReference'] },
    );
  const byType: Record<MessageType, () => fc.Arbitrary<SendPayload>> = { SMS: sms, MMS: mms };
  return fc.oneof(...types.map((type) => byType[type]()));
}
