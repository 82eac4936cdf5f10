import { CoreError } from '../errors.ts';
import { requireCapability, type Capability } from '../auth/capabilities.ts';
import type { ClientRecord } from '../store/clients.ts';
import type { NumberRecord, NumberStore } from '../store/numbers.ts';
import type { SendRequest } from './sendRequest.ts';

// Something a caller meant as a phone number rather than a numberId: E.164, or bare digits.
export const PHONE_NUMBER_LIKE = /^\+?[0-9]{4,15}$/;

/**
 * Section 4.6 rules 2 and 3: media must be omitted for SMS (SEND-002) and is required for MMS
 * (SEND-003); an MMS with media passes (SEND-010).
 */
export function checkMediaRule(request: SendRequest): void {
  if (request.messageType === 'SMS' && request.media !== undefined) {
    throw new CoreError('INVALID_REQUEST', 'media must be omitted when messageType is SMS.', { field: 'media' });
  }
  // SEND-003: an empty media array is no media, however the request's schema reads it.
  if (request.messageType === 'MMS' && (request.media === undefined || request.media.length === 0)) {
    throw new CoreError('INVALID_REQUEST', 'media is required when messageType is MMS.', { field: 'media' });
  }
}

/**
 * Rules 6 (sendFrom part), 4 and 5, in that order: SEND-006, SEND-004, SEND-005. An E.164 number
 * is never a numberId, so it is reported as a format error before ownership is looked at; a
 * numberId that does not exist for this client is "not owned" (403), whether or not another
 * client has it. Any numberId of the client's list with a campaignregId resolves (NUM-002).
 */
export function resolveSendFrom(request: SendRequest, client: ClientRecord, numbers: NumberStore): NumberRecord {
  if (PHONE_NUMBER_LIKE.test(request.sendFrom)) {
    throw new CoreError('INVALID_REQUEST', 'sendFrom must be a numberId from /api/core/numbers, not a phone number.', { field: 'sendFrom' });
  }
  const number = numbers.findOwned(client.apiClientId, request.sendFrom);
  if (!number) throw new CoreError('FORBIDDEN', 'sendFrom is not a number owned by this API client.', { field: 'sendFrom' });
  if (number.campaignregId === null || number.campaignregId === '') {
    throw new CoreError('INVALID_REQUEST', 'The sendFrom number has no campaignregId configured.', { field: 'sendFrom', numberId: number.numberId });
  }
  return number;
}

/** The number setting and the client capability each messageType needs (a type the schema did not let through needs none here). */
const SETTING_OF_TYPE = { SMS: 'smsEnabled', MMS: 'mmsEnabled' } as const;
const CAPABILITY_OF_TYPE = { SMS: 'SMS', MMS: 'MMS' } as const;

/** Profile client.capabilities: an SMS send needs the client's SMS capability, an MMS send MMS (403). */
export function checkClientCapability(request: SendRequest, client: ClientRecord): void {
  const capability: Capability | undefined = CAPABILITY_OF_TYPE[request.messageType];
  if (capability !== undefined) requireCapability(client, capability);
}

/**
 * Profile send.numberCapability (SEND-210): an SMS needs a sendFrom number with smsEnabled, an
 * MMS one with mmsEnabled. Like a missing campaignregId (rule 5) it is a state of the number the
 * client controls itself (the update route), so it is 400 INVALID_REQUEST, not 403.
 */
export function checkNumberCapability(request: SendRequest, number: NumberRecord): void {
  const setting: 'smsEnabled' | 'mmsEnabled' | undefined = SETTING_OF_TYPE[request.messageType];
  if (setting !== undefined && !number[setting]) {
    throw new CoreError('INVALID_REQUEST', `The sendFrom number cannot send ${request.messageType}: its ${setting} is false.`, { field: 'sendFrom', numberId: number.numberId, setting });
  }
}

/** Rule 6, recipient part (SEND-007): every recipient must be E.164 exactly (no spaces, no 00 prefix). */
export function checkRecipients(request: SendRequest, e164: RegExp): void {
  const invalid = request.to.filter((recipient) => !e164.test(recipient));
  if (invalid.length > 0) {
    throw new CoreError('INVALID_REQUEST', 'Every recipient in `to` must be an E.164 number such as +12025550123.', {
      field: 'to',
      invalidRecipients: invalid,
    });
  }
}
