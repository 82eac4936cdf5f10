import fc from 'fast-check';
import { GSM7_BASIC, GSM7_EXTENSION } from './gsm7-alphabet.ts';

/** Character repertoires of a message body. */
export type TextAlphabet = 'gsm7' | 'unicode' | 'emoji';

export const TEXT_ALPHABETS: readonly TextAlphabet[] = ['gsm7', 'unicode', 'emoji'];

/** The reference profile's text limit (spec/profile.yaml, choice send.limits). */
export const REFERENCE_TEXT_LIMIT = 1600;

export interface MessageTextConstraints {
  /**
   * Repertoires to draw from: `gsm7` (3GPP TS 23.038 default alphabet and extension),
   * `unicode` (any printable grapheme, Unicode 15), `emoji` (multi-code-point emoji mixed
   * with words).
   * @defaultValue all three
   */
  alphabets?: readonly TextAlphabet[];
  /**
   * Fewest UTF-16 code units.
   * @defaultValue 1 (an SMS without text says nothing; whether '' is accepted is not shown)
   */
  minLength?: number;
  /**
   * Most UTF-16 code units. Counting code units is the strictest of the usual measures, so
   * a value within it is within the limit however a target counts characters.
   * @defaultValue 1600, the reference profile's limit
   */
  maxLength?: number;
  /**
   * Also draw long bodies, within 160 code units of `maxLength` and often exactly at it.
   * @defaultValue true
   */
  longBodies?: boolean;
}

/**
 * Emoji that are more than one code point: skin tones, ZWJ families and professions, flags
 * (regional indicator pairs), keycaps and variation selectors (Unicode TS #51). These are
 * what splits wrongly when a server truncates or counts by code unit.
 */
const EMOJI = ['😀', '👍🏽', '👨‍👩‍👧‍👦', '🧑🏿‍🚀', '🇺🇸', '🇯🇵', '1️⃣', '❤️', '🏳️‍🌈', '🙈', '🎉', '✅'];
const WORD = fc.constantFrom('hello', 'order', 'ready', 'ok', 'see you', 'thanks', '', ' ');

const UNIT: Record<TextAlphabet, fc.Arbitrary<string>> = {
  gsm7: fc.oneof({ arbitrary: fc.constantFrom(...GSM7_BASIC), weight: 9 }, { arbitrary: fc.constantFrom(...GSM7_EXTENSION), weight: 1 }),
  unicode: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  emoji: fc.oneof(fc.constantFrom(...EMOJI), WORD),
};

/** Join units, dropping whole units from the end until the text fits `maxLength` code units. */
function fit(units: readonly string[], maxLength: number): string {
  let text = '';
  for (const unit of units) {
    if (text.length + unit.length > maxLength) break;
    text += unit;
  }
  return text;
}

/** Repeat `seed` until the text is `target` code units long; pad with '.' (GSM-7) when a unit would overflow. */
function repeatTo(seed: readonly string[], target: number): string {
  const units = seed.filter((unit) => unit.length > 0);
  if (units.length === 0) units.push('.');
  let text = '';
  for (let i = 0; text.length < target; i++) {
    const unit = units[i % units.length] as string;
    if (text.length + unit.length > target) return text + '.'.repeat(target - text.length);
    text += unit;
  }
  return text;
}

/**
 * Message bodies for `text` (section 4.6): GSM-7, Unicode and emoji, from one unit up to
 * the length limit.
 */
export function messageText(constraints: MessageTextConstraints = {}): fc.Arbitrary<string> {
  const alphabets = constraints.alphabets ?? TEXT_ALPHABETS;
  const minLength = constraints.minLength ?? 1;
  const maxLength = constraints.maxLength ?? REFERENCE_TEXT_LIMIT;
  if (alphabets.length === 0) throw new Error('messageText: alphabets must not be empty');
  if (!(Number.isInteger(minLength) && Number.isInteger(maxLength) && minLength >= 0 && minLength <= maxLength)) {
    throw new Error(`messageText: need 0 <= minLength <= maxLength, got ${minLength}..${maxLength}`);
  }
  const perAlphabet = alphabets.map((alphabet) => {
    const unit = UNIT[alphabet];
    // Short bodies: units joined and cut to the limit; the padding keeps minLength.
    const short = fc
      .array(unit, { minLength: 1, maxLength: Math.min(maxLength, 40) })
      .map((units) => fit(units, maxLength))
      .map((text) => (text.length >= minLength ? text : text + '.'.repeat(minLength - text.length)));
    if (constraints.longBodies === false || maxLength < 2) return short;
    const longFrom = Math.max(minLength, maxLength - 160);
    const target = fc.oneof(fc.constant(maxLength), fc.integer({ min: longFrom, max: maxLength }));
    const long = fc.tuple(fc.array(unit, { minLength: 1, maxLength: 20 }), target).map(([seed, length]) => repeatTo(seed, length));
    return fc.oneof({ arbitrary: short, weight: 3 }, { arbitrary: long, weight: 1 });
  });
  return fc.oneof(...perAlphabet);
}
