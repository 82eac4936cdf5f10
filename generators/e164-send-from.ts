import fc from 'fast-check';
import { isE164Syntax } from './e164-syntax.ts';
import { validE164Recipient } from './valid-e164-recipient.ts';

export interface E164SendFromConstraints {
  /**
   * The E.164 forms of numbers the calling client owns (the reference profile lists them as
   * `phoneNumber`). Drawn half of the time when given: a target that quietly maps its own
   * phone numbers to numberIds still breaks rule 6, and this is the case that shows it.
   * Values that are not E.164 are ignored.
   * @defaultValue [] (only numbers nobody owns)
   */
  ownedPhoneNumbers?: readonly string[];
}

/**
 * E.164 numbers given as `sendFrom`, which must carry a numberId and never an E.164 number
 * (section 4.6, rule 6; section 1).
 */
export function e164SendFrom(constraints: E164SendFromConstraints = {}): fc.Arbitrary<string> {
  const owned = (constraints.ownedPhoneNumbers ?? []).filter(isE164Syntax);
  const anyNumber = validE164Recipient();
  return owned.length === 0 ? anyNumber : fc.oneof(fc.constantFrom(...owned), anyNumber);
}
