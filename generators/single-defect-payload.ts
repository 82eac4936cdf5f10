import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { e164SendFrom } from './e164-send-from.ts';
import { invalidRecipient } from './invalid-recipient.ts';
import { mediaItems } from './media-items.ts';
import type { SendPayload } from './send-payload.ts';
import { validSendPayload, type ValidSendPayloadConstraints } from './valid-send-payload.ts';

/** The requirements of section 4.6 a single broken rule can be traced to (spec/requirements.yaml). */
export const SINGLE_DEFECT_REQUIREMENTS = [
  'SEND-001',
  'SEND-002',
  'SEND-003',
  'SEND-004',
  'SEND-005',
  'SEND-006',
  'SEND-007',
  'SEND-011',
  'SEND-012',
  'SEND-013',
  'SEND-014',
] as const;

export type SingleDefectRequirement = (typeof SINGLE_DEFECT_REQUIREMENTS)[number];

/**
 * An answer a request must get. 'request-defect' is the document's "the request is invalid",
 * read as section 7.3 reads it: a 4xx that a client files under request defects (not 401, 403,
 * 404, 408, 409 or 429; harness/answer-classes.ts says why).
 */
export interface ExpectedAnswer {
  status: number | 'request-defect';
  /** error.code of the CORE wrapper (section 7.2), when the document names it. */
  code?: string;
}

/** A send request that breaks exactly one rule, with the answer it must get. */
export interface SingleDefectPayload {
  /** The JSON body to send. */
  payload: Record<string, unknown>;
  /** Request headers besides authentication: the Idempotency-Key, fresh, unless it is the defect. */
  headers: Record<string, string>;
  /** What was broken, e.g. 'invalid-recipient'. */
  defect: string;
  /** How it was broken, e.g. the invalid recipient class 'newline' or the field removed. */
  variant?: string;
  requirementId: SingleDefectRequirement;
  /** The document's answer. Nothing may be created either way. */
  expected: ExpectedAnswer;
  /** The reference profile's answer: invalid requests are 400 INVALID_REQUEST. */
  referenceProfile: ExpectedAnswer;
  /** The valid payload before the defect, to show what changed. */
  valid: SendPayload;
}

export interface SingleDefectPayloadConstraints extends ValidSendPayloadConstraints {
  /**
   * Requirements to break.
   * @defaultValue breakableRequirements(constraints): every one of SINGLE_DEFECT_REQUIREMENTS
   *   the other constraints allow (SEND-004 and SEND-005 only when their numberIds are given)
   */
  requirementIds?: readonly SingleDefectRequirement[];
  /**
   * numberIds that exist but belong to another client, with a campaignregId there, so that
   * ownership is the only thing wrong (SEND-004).
   * @defaultValue [] (SEND-004 not generated)
   */
  foreignNumberIds?: readonly string[];
  /**
   * numberIds the client owns that have no campaignregId, SMS and MMS enabled (SEND-005).
   * @defaultValue [] (SEND-005 not generated)
   */
  unregisteredNumberIds?: readonly string[];
  /**
   * E.164 forms of the client's own numbers, used as sendFrom for SEND-006.
   * @defaultValue []
   */
  ownedPhoneNumbers?: readonly string[];
  /**
   * Mints the Idempotency-Key of each request. Keys are minted when a value is built rather
   * than drawn from the seed: a replayed seed or a shrink must never reuse a key the target
   * already stored with another payload, which rule 8 would rightly refuse as an unsafe retry.
   * @defaultValue crypto.randomUUID (UUIDs, as the Idempotency-Key draft 2.1 recommends)
   */
  idempotencyKey?: () => string;
}

const INVALID: ExpectedAnswer = { status: 'request-defect' };
const INVALID_REQUEST: ExpectedAnswer = { status: 400, code: 'INVALID_REQUEST' };
const FORBIDDEN: ExpectedAnswer = { status: 403, code: 'FORBIDDEN' };

/** A defect applied to a valid payload: the broken body and how it was broken. */
interface Broken {
  valid: SendPayload;
  payload: Record<string, unknown>;
  variant?: string;
}

interface DefectRule {
  defect: string;
  expected: ExpectedAnswer;
  referenceProfile: ExpectedAnswer;
  /** True when the request goes without its Idempotency-Key. */
  withoutKey?: boolean;
  broken: () => fc.Arbitrary<Broken>;
}

function without(payload: SendPayload, field: keyof SendPayload): Record<string, unknown> {
  const { [field]: _removed, ...rest } = payload;
  return rest;
}

/** Values that are not 'SMS' or 'MMS' but look close to them: case, whitespace, other channels, other types. */
const UNKNOWN_MESSAGE_TYPE = fc.constantFrom<unknown>('sms', 'Mms', 'SMS ', ' MMS', 'MMS\n', 'TEXT', 'RCS', 'WHATSAPP', '', 0, 1, true);

function rules(c: SingleDefectPayloadConstraints): Record<SingleDefectRequirement, DefectRule> {
  const any = () => validSendPayload(c);
  const sms = () => validSendPayload({ ...c, messageTypes: ['SMS'] });
  const mms = () => validSendPayload({ ...c, messageTypes: ['MMS'] });
  const keep = (valid: SendPayload): Broken => ({ valid, payload: { ...valid } });
  return {
    'SEND-001': { defect: 'missing-idempotency-key', expected: INVALID_REQUEST, referenceProfile: INVALID_REQUEST, withoutKey: true, broken: () => any().map(keep) },
    'SEND-002': {
      defect: 'sms-with-media',
      expected: INVALID,
      referenceProfile: INVALID_REQUEST,
      broken: () => fc.tuple(sms(), mediaItems({ ...c.media, minItems: Math.max(1, c.media?.minItems ?? 1) })).map(([valid, media]) => ({ valid, payload: { ...valid, media } })),
    },
    'SEND-003': {
      defect: 'mms-without-media',
      expected: INVALID,
      referenceProfile: INVALID_REQUEST,
      broken: () => mms().map((valid) => ({ valid, payload: without(valid, 'media') })),
    },
    'SEND-004': {
      defect: 'send-from-not-owned',
      expected: FORBIDDEN,
      referenceProfile: FORBIDDEN,
      broken: () =>
        fc.tuple(any(), fc.constantFrom(...(c.foreignNumberIds ?? []))).map(([valid, sendFrom]) => ({ valid, payload: { ...valid, sendFrom } })),
    },
    'SEND-005': {
      defect: 'send-from-without-campaign',
      expected: INVALID_REQUEST,
      referenceProfile: INVALID_REQUEST,
      broken: () =>
        fc.tuple(any(), fc.constantFrom(...(c.unregisteredNumberIds ?? []))).map(([valid, sendFrom]) => ({ valid, payload: { ...valid, sendFrom } })),
    },
    'SEND-006': {
      defect: 'e164-send-from',
      expected: INVALID,
      referenceProfile: INVALID_REQUEST,
      broken: () =>
        fc
          .tuple(any(), e164SendFrom(c.ownedPhoneNumbers === undefined ? {} : { ownedPhoneNumbers: c.ownedPhoneNumbers }))
          .map(([valid, sendFrom]) => ({ valid, payload: { ...valid, sendFrom } })),
    },
    'SEND-007': {
      defect: 'invalid-recipient',
      expected: INVALID,
      referenceProfile: INVALID_REQUEST,
      broken: () =>
        fc.tuple(any(), invalidRecipient(), fc.nat()).map(([valid, bad, seed]) => {
          const to: unknown[] = [...valid.to];
          to[seed % to.length] = bad.value;
          return { valid, payload: { ...valid, to }, variant: bad.invalidClass };
        }),
    },
    'SEND-011': { defect: 'empty-to', expected: INVALID, referenceProfile: INVALID_REQUEST, broken: () => any().map((valid) => ({ valid, payload: { ...valid, to: [] } })) },
    'SEND-012': {
      defect: 'unknown-message-type',
      expected: INVALID,
      referenceProfile: INVALID_REQUEST,
      broken: () =>
        fc.tuple(any(), UNKNOWN_MESSAGE_TYPE).map(([valid, messageType]) => ({ valid, payload: { ...valid, messageType }, variant: JSON.stringify(messageType) })),
    },
    'SEND-013': {
      defect: 'missing-external-reference',
      expected: INVALID,
      referenceProfile: INVALID_REQUEST,
      broken: () => any().map((valid) => ({ valid, payload: without(valid, 'externalReference') })),
    },
    'SEND-014': {
      defect: 'missing-required-field',
      expected: INVALID,
      referenceProfile: INVALID_REQUEST,
      broken: () =>
        fc
          .tuple(any(), fc.constantFrom('sendFrom', 'to', 'messageType') as fc.Arbitrary<keyof SendPayload>)
          .map(([valid, field]) => ({ valid, payload: without(valid, field), variant: field })),
    },
  };
}

/** The numbers a rule needs to be broken alone, and the constraint that gives them. */
function numbersNeeded(constraints: SingleDefectPayloadConstraints): Partial<Record<SingleDefectRequirement, [readonly string[], string]>> {
  const smsNumbers = constraints.numberIds ?? ['num_01'];
  return {
    'SEND-002': [smsNumbers, 'numberIds'],
    'SEND-003': [constraints.mmsNumberIds ?? smsNumbers, 'mmsNumberIds'],
    'SEND-004': [constraints.foreignNumberIds ?? [], 'foreignNumberIds'],
    'SEND-005': [constraints.unregisteredNumberIds ?? [], 'unregisteredNumberIds'],
  };
}

/**
 * The requirements singleDefectPayload can break alone under these constraints, in the order
 * of SINGLE_DEFECT_REQUIREMENTS: a rule is left out when the numbers it needs are not given.
 */
export function breakableRequirements(constraints: SingleDefectPayloadConstraints = {}): SingleDefectRequirement[] {
  const needs = numbersNeeded(constraints);
  return SINGLE_DEFECT_REQUIREMENTS.filter((id) => (needs[id]?.[0].length ?? 1) > 0);
}

/**
 * A valid send request (section 4.6) with exactly one rule broken, carrying the requirement
 * it breaks and the answer it must get, so a negative test knows its expectation without
 * restating the document.
 */
export function singleDefectPayload(constraints: SingleDefectPayloadConstraints = {}): fc.Arbitrary<SingleDefectPayload> {
  const available = breakableRequirements(constraints);
  const requested = constraints.requirementIds ?? available;
  const missing = requested.filter((id) => !available.includes(id));
  if (missing.length > 0) {
    const needs = numbersNeeded(constraints);
    throw new Error(`singleDefectPayload: ${missing.map((id) => `${id} needs ${needs[id]?.[1]}`).join(', ')} from the target`);
  }
  if (requested.length === 0) throw new Error('singleDefectPayload: requirementIds must not be empty');
  const mintKey = constraints.idempotencyKey ?? randomUUID;
  const table = rules(constraints);
  return fc.oneof(
    ...requested.map((requirementId) => {
      const rule = table[requirementId];
      return rule.broken().map(
        ({ valid, payload, variant }): SingleDefectPayload => ({
          payload,
          headers: rule.withoutKey === true ? {} : { 'Idempotency-Key': mintKey() },
          defect: rule.defect,
          ...(variant === undefined ? {} : { variant }),
          requirementId,
          expected: rule.expected,
          referenceProfile: rule.referenceProfile,
          valid,
        }),
      );
    }),
  );
}
