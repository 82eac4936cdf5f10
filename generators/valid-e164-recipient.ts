import fc from 'fast-check';
import type { CountryCode } from 'libphonenumber-js/max';
import { e164BoundaryNumber } from './e164-boundary-number.ts';
import { exampleMobileNumber } from './example-mobile-number.ts';
import { nanpTestNumber, type TestOutcome } from './nanp-test-number.ts';

/** The families of valid recipients. */
export type ValidRecipientKind = 'real' | 'boundary' | 'nanp-test';

export const VALID_RECIPIENT_KINDS: readonly ValidRecipientKind[] = ['real', 'boundary', 'nanp-test'];

export interface ValidE164RecipientConstraints {
  /**
   * Families to draw from: `real` (libphonenumber-js mobile examples across regions, valid
   * under the 'max' metadata), `boundary` (12 to 15 digits, syntax only) and `nanp-test`
   * (fictional +1 NPA 555 01XX).
   * @defaultValue all three
   */
  kinds?: readonly ValidRecipientKind[];
  /**
   * Only recipients the reference profile sends to this outcome. When set, `kinds` is
   * ignored and every value is a NANP fictional test number, so a suite never messages a
   * real person.
   * @defaultValue undefined
   */
  outcome?: TestOutcome;
  /**
   * Regions for the `real` family.
   * @defaultValue every region with a valid mobile example
   */
  regions?: readonly CountryCode[];
}

/**
 * Valid recipients for `to` (section 4.6, rule 6): E.164 numbers in '+' form
 * (ITU-T E.164), drawn from real numbering plans, from the 15-digit syntactic boundary and
 * from the fictional test ranges.
 */
export function validE164Recipient(constraints: ValidE164RecipientConstraints = {}): fc.Arbitrary<string> {
  if (constraints.outcome !== undefined) return nanpTestNumber({ outcome: constraints.outcome });
  const kinds = constraints.kinds ?? VALID_RECIPIENT_KINDS;
  if (kinds.length === 0) throw new Error('validE164Recipient: kinds must not be empty');
  const regions = constraints.regions;
  const byKind: Record<ValidRecipientKind, () => fc.Arbitrary<string>> = {
    real: () => exampleMobileNumber(regions === undefined ? {} : { regions }),
    boundary: () => e164BoundaryNumber(),
    'nanp-test': () => nanpTestNumber(),
  };
  return fc.oneof(...kinds.map((kind) => byKind[kind]()));
}
