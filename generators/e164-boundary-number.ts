import fc from 'fast-check';
import { E164_MAX_DIGITS } from './e164-syntax.ts';

export interface E164BoundaryNumberConstraints {
  /**
   * Fewest digits, country code included.
   * @defaultValue 12
   */
  minDigits?: number;
  /**
   * Most digits, country code included; at most 15.
   * @defaultValue 15
   */
  maxDigits?: number;
}

const DIGIT = fc.constantFrom(...'0123456789');
const LEADING_DIGIT = fc.constantFrom(...'123456789');

/**
 * Numbers at the long end of the E.164 syntax (ITU-T E.164: at most 15 digits, no country
 * code starting with 0). They are syntactically valid but need not be assigned anywhere, so
 * a target that checks only the syntax the document requires must accept them.
 *
 * The length is drawn first, half of the time exactly `maxDigits`: a plain
 * `fc.stringMatching(/^\+[1-9]\d{1,14}$/)` at the default size almost never reaches 14 or 15
 * digits, which is where off-by-one validators fail.
 */
export function e164BoundaryNumber(constraints: E164BoundaryNumberConstraints = {}): fc.Arbitrary<string> {
  const minDigits = constraints.minDigits ?? 12;
  const maxDigits = constraints.maxDigits ?? E164_MAX_DIGITS;
  if (!(Number.isInteger(minDigits) && Number.isInteger(maxDigits) && minDigits >= 2 && minDigits <= maxDigits && maxDigits <= E164_MAX_DIGITS)) {
    throw new Error(`e164BoundaryNumber: need 2 <= minDigits <= maxDigits <= ${E164_MAX_DIGITS}, got ${minDigits}..${maxDigits}`);
  }
  const length = fc.oneof(fc.constant(maxDigits), fc.integer({ min: minDigits, max: maxDigits }));
  return length.chain((digits) =>
    fc
      .tuple(LEADING_DIGIT, fc.string({ unit: DIGIT, minLength: digits - 1, maxLength: digits - 1 }))
      .map(([first, rest]) => `+${first}${rest}`),
  );
}
