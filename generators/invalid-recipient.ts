import fc from 'fast-check';
import { exampleMobileNumber } from './example-mobile-number.ts';
import { nanpTestNumber } from './nanp-test-number.ts';

/**
 * One name per way a recipient can miss E.164 (ITU-T E.164 and the list of inputs that trip
 * validators in guides/standards.md). Each class breaks a valid number in one way only, so a
 * failure names the validator's blind spot.
 */
export const INVALID_RECIPIENT_CLASSES = [
  'missing-plus',
  'double-zero-prefix',
  'country-code-zero',
  'too-many-digits',
  'too-short',
  'letters',
  'inner-whitespace',
  'outer-whitespace',
  'newline',
  'double-plus',
  'full-width-digits',
  'arabic-indic-digits',
  'extension',
  'punctuation',
  'empty-string',
  'number',
  'null',
  'object',
  'array',
  'boolean',
] as const;

export type InvalidRecipientClass = (typeof INVALID_RECIPIENT_CLASSES)[number];

/** A value that must be refused as a recipient, with the class it belongs to. */
export interface InvalidRecipient {
  /** The JSON value to put in `to`: a string, or for the last five classes not a string at all. */
  value: unknown;
  invalidClass: InvalidRecipientClass;
}

export interface InvalidRecipientConstraints {
  /**
   * Classes to draw from.
   * @defaultValue INVALID_RECIPIENT_CLASSES, all of them
   */
  classes?: readonly InvalidRecipientClass[];
}

/** Valid numbers to break: real mobile numbers and NANP fictional ones. */
const VALID_BASE = fc.oneof(exampleMobileNumber(), nanpTestNumber());
const DIGIT = fc.constantFrom(...'0123456789');
const digits = (min: number, max: number) => fc.string({ unit: DIGIT, minLength: min, maxLength: max });

/** Insert `piece` into `text` at an index in [from, text.length - 1], chosen by `seed`. */
function insertInside(text: string, piece: string, seed: number, from = 1): string {
  const at = from + (seed % Math.max(1, text.length - from));
  return text.slice(0, at) + piece + text.slice(at);
}

/** Digit strings in other scripts that Unicode calls decimal digits (`\p{Nd}`). */
const FULL_WIDTH_ZERO = 0xff10;
const ARABIC_INDIC_ZEROS = [0x0660, 0x06f0]; // Arabic-Indic, Extended Arabic-Indic (Persian, Urdu)

/** Replace one digit (or, when `all`, every digit) with its counterpart from another script. */
function foreignDigits(number: string, zero: number, seed: number, all: boolean): string {
  const chars = [...number];
  const at = 1 + (seed % (chars.length - 1));
  return chars
    .map((char, index) => (/\d/.test(char) && (all || index === at) ? String.fromCodePoint(zero + Number(char)) : char))
    .join('');
}

const BY_CLASS: Record<InvalidRecipientClass, fc.Arbitrary<unknown>> = {
  'missing-plus': VALID_BASE.map((n) => n.slice(1)),
  'double-zero-prefix': VALID_BASE.map((n) => `00${n.slice(1)}`),
  'country-code-zero': VALID_BASE.map((n) => `+0${n.slice(1, 15)}`),
  // Most often a real number lengthened to 16 digits, one past E.164's 15 (the standards
  // guide names 16 digits among the inputs that trip validators): a validator that allows one
  // digit too many refuses a number far too long and takes this one. Otherwise 16 to 20 digits.
  'too-many-digits': fc.oneof(
    { weight: 3, arbitrary: fc.tuple(VALID_BASE, digits(15, 15)).map(([n, pad]) => n + pad.slice(0, 16 - (n.length - 1))) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...'123456789'), digits(15, 19)).map(([first, rest]) => `+${first}${rest}`) },
  ),
  'too-short': fc.constantFrom('+', '+1', '+4', '+9'),
  letters: fc
    .tuple(VALID_BASE, fc.nat(), fc.constantFrom(...'AbCdOoIlXxZ'))
    .map(([n, seed, letter]) => {
      const at = 1 + (seed % (n.length - 1));
      return n.slice(0, at) + letter + n.slice(at + 1);
    }),
  'inner-whitespace': fc
    .tuple(VALID_BASE, fc.nat(), fc.constantFrom(' ', '\t', '\u00a0', '\u2009'))
    .map(([n, seed, space]) => insertInside(n, space, seed)),
  'outer-whitespace': fc
    .tuple(VALID_BASE, fc.boolean(), fc.constantFrom(' ', '\t', '\u00a0'))
    .map(([n, leading, space]) => (leading ? space + n : n + space)),
  newline: fc
    .tuple(VALID_BASE, fc.constantFrom('end', 'start', 'inside'), fc.constantFrom('\n', '\r\n'), fc.nat())
    .map(([n, where, newline, seed]) => (where === 'end' ? n + newline : where === 'start' ? newline + n : insertInside(n, newline, seed))),
  'double-plus': VALID_BASE.map((n) => `+${n}`),
  'full-width-digits': fc
    .tuple(VALID_BASE, fc.nat(), fc.boolean())
    .map(([n, seed, all]) => foreignDigits(n, FULL_WIDTH_ZERO, seed, all)),
  'arabic-indic-digits': fc
    .tuple(VALID_BASE, fc.constantFrom(...ARABIC_INDIC_ZEROS), fc.nat(), fc.boolean())
    .map(([n, zero, seed, all]) => foreignDigits(n, zero, seed, all)),
  extension: fc
    .tuple(VALID_BASE, fc.constantFrom(' ext. ', ' ext ', ' x', ';ext=', '#'), digits(1, 5))
    .map(([n, marker, ext]) => n + marker + (ext === '' ? '1' : ext)),
  punctuation: fc
    .tuple(VALID_BASE, fc.constantFrom('dashes', 'dots', 'parentheses', 'slash'), fc.nat(), fc.nat())
    .map(([n, style, a, b]) => {
      const [open, close] = style === 'dashes' ? ['-', '-'] : style === 'dots' ? ['.', '.'] : style === 'slash' ? ['/', '/'] : ['(', ')'];
      // Two marks, the second after the first, both between digits: "+1(202)5550123".
      const first = 2 + (a % (n.length - 2));
      const withOpen = n.slice(0, first) + open + n.slice(first);
      const second = first + 2 + (b % Math.max(1, withOpen.length - first - 2));
      return withOpen.slice(0, second) + close + withOpen.slice(second);
    }),
  'empty-string': fc.constant(''),
  number: VALID_BASE.map((n) => Number(n.slice(1))),
  null: fc.constant(null),
  object: VALID_BASE.map((n) => ({ number: n })),
  array: VALID_BASE.map((n) => [n]),
  boolean: fc.boolean(),
};

/**
 * Recipients that are not E.164 numbers in '+' form (section 4.6 rule 6, ITU-T E.164), one
 * named class each. Every string class fails `^\+[1-9]\d{1,14}$`; the last five classes are
 * JSON values that are not strings at all.
 */
export function invalidRecipient(constraints: InvalidRecipientConstraints = {}): fc.Arbitrary<InvalidRecipient> {
  const classes = constraints.classes ?? INVALID_RECIPIENT_CLASSES;
  if (classes.length === 0) throw new Error('invalidRecipient: classes must not be empty');
  return fc.oneof(
    ...classes.map((invalidClass) => BY_CLASS[invalidClass].map((value): InvalidRecipient => ({ value, invalidClass }))),
  );
}
