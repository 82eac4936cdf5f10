import fc from 'fast-check';

/**
 * Ways to write one JSON value as text that RFC 8259 makes the same value: insignificant
 * whitespace between tokens and around the whole text (section 2: `JSON-text = ws value ws`;
 * space, horizontal tab, line feed, carriage return),
 * object members in another order (section 4: "an unordered collection"; the harness never
 * writes a name twice, where the RFC leaves behaviour unpredictable), and characters of strings
 * written as escapes (section 7: `\uXXXX` for any character, a surrogate pair beyond the BMP,
 * and the two-character escapes `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\"`, `\\`). Numbers are
 * written as JavaScript writes them: `1.0` and `1` are not promised to be one value (section 6
 * leaves number equality to implementations).
 *
 * A spelling is a recipe, not text, so that it shrinks towards the plainest spelling (no
 * whitespace, members in the order given, no escapes) and applies to any value.
 */
export interface JsonSpelling {
  /** What goes between tokens (after `{`, `[`, `,` and `:`, and before `}` and `]`) and before and after the text. */
  whitespace: '' | ' ' | '\n' | '\t' | '\r\n' | ' \t\n ';
  /** Write object members in reverse order (a permutation every object of the value undergoes). */
  reverseMembers: boolean;
  /** Rotate each object's members by this many places (0: as given). */
  rotateMembers: number;
  /** Which characters of strings (names and values) are written as escapes. */
  escapes: 'none' | 'slashes' | 'first-letter' | 'every-letter' | 'symbols' | 'all';
}

export const PLAIN_SPELLING: JsonSpelling = { whitespace: '', reverseMembers: false, rotateMembers: 0, escapes: 'none' };

/** Every spelling, the plain one first when shrunk. */
export function jsonSpelling(): fc.Arbitrary<JsonSpelling> {
  return fc.record({
    whitespace: fc.constantFrom<JsonSpelling['whitespace']>('', ' ', '\n', '\t', '\r\n', ' \t\n '),
    reverseMembers: fc.boolean(),
    rotateMembers: fc.nat({ max: 5 }),
    escapes: fc.constantFrom<JsonSpelling['escapes']>('none', 'slashes', 'first-letter', 'every-letter', 'symbols', 'all'),
  });
}

/** A spelling that differs from the plain one: some whitespace, member order or escape is used. */
export function respelling(): fc.Arbitrary<JsonSpelling> {
  return jsonSpelling().filter((s) => s.whitespace !== '' || s.reverseMembers || s.rotateMembers > 0 || s.escapes !== 'none');
}

/** `value` written as JSON text the way `spelling` says; JSON.parse gives back the same value. */
export function spell(value: unknown, spelling: JsonSpelling): string {
  const ws = spelling.whitespace;
  const write = (v: unknown): string => {
    if (v === null || typeof v === 'boolean' || typeof v === 'number') return JSON.stringify(v);
    if (typeof v === 'string') return spellString(v, spelling.escapes);
    if (Array.isArray(v)) return v.length === 0 ? `[${ws}]` : `[${ws}${v.map(write).join(`${ws},${ws}`)}${ws}]`;
    if (typeof v === 'object') {
      let entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
      if (spelling.reverseMembers) entries = entries.reverse();
      if (entries.length > 1 && spelling.rotateMembers % entries.length !== 0) {
        const k = spelling.rotateMembers % entries.length;
        entries = [...entries.slice(k), ...entries.slice(0, k)];
      }
      if (entries.length === 0) return `{${ws}}`;
      return `{${ws}${entries.map(([k, x]) => `${spellString(k, spelling.escapes)}${ws}:${ws}${write(x)}`).join(`${ws},${ws}`)}${ws}}`;
    }
    throw new TypeError(`spell: ${typeof v} is not a JSON value`);
  };
  return `${ws}${write(value)}${ws}`;
}

const SHORT_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function unicodeEscape(char: string): string {
  // A character beyond the BMP is two UTF-16 code units: a surrogate pair of escapes (section 7).
  return [...Array(char.length).keys()].map((i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
}

function spellString(text: string, escapes: JsonSpelling['escapes']): string {
  let firstLetterDone = false;
  const out = [...text].map((char) => {
    const code = char.codePointAt(0)!;
    if (code < 0x20 || char === '"' || char === '\\') {
      // What must be escaped is escaped either way; `all` picks the \u form.
      return escapes === 'all' ? unicodeEscape(char) : (SHORT_ESCAPES[char] ?? unicodeEscape(char));
    }
    switch (escapes) {
      case 'none':
        return char;
      case 'slashes':
        return char === '/' ? '\\/' : char;
      case 'first-letter':
        if (!firstLetterDone && /\p{L}/u.test(char)) {
          firstLetterDone = true;
          return unicodeEscape(char);
        }
        return char;
      case 'every-letter':
        return /\p{L}/u.test(char) ? unicodeEscape(char) : char;
      // What is neither letter nor digit ('+', '-', ':', '/', '.'), names left readable: the
      // spelling of a value a server that scans the text for "to" or "media" still finds.
      case 'symbols':
        return /[\p{L}\p{N}]/u.test(char) ? char : unicodeEscape(char);
      case 'all':
        return unicodeEscape(char);
    }
  });
  return `"${out.join('')}"`;
}

/**
 * application/json written other ways that name the same media type: RFC 9110 8.3.1 makes the
 * type, the subtype and a parameter's name case-insensitive (and 5.6.6 lets the ";" stand with or
 * without whitespace on either side, the value quoted or not), and RFC 8259 11 gives a charset parameter "no effect
 * on compliant recipients".
 */
export const JSON_MEDIA_TYPE_SPELLINGS = ['Application/JSON', 'application/json; charset=UTF-8', 'application/json;charset=utf-8', 'application/json; Charset="utf-8"', 'application/json ; charset=utf-8'] as const;

/** The label of a JSON body: application/json as usually written, or one of its other spellings. */
export function jsonMediaType(): fc.Arbitrary<string> {
  return fc.constantFrom('application/json', ...JSON_MEDIA_TYPE_SPELLINGS);
}

/** How a spelling reads in a failure report. */
export function describeSpelling(s: JsonSpelling): string {
  const parts = [
    s.whitespace === '' ? null : `whitespace ${JSON.stringify(s.whitespace)} between tokens`,
    s.reverseMembers ? 'members reversed' : null,
    s.rotateMembers > 0 ? `members rotated by ${s.rotateMembers}` : null,
    s.escapes === 'none' ? null : `escapes: ${s.escapes}`,
  ].filter((p) => p !== null);
  return parts.length === 0 ? 'plain' : parts.join(', ');
}

/**
 * The fields of an application/x-www-form-urlencoded body written in another way that decodes
 * to the same fields (WHATWG URL, application/x-www-form-urlencoded parsing; RFC 6749 appendix
 * B): fields in another order, and characters percent-encoded that need not be.
 */
export interface FormSpelling {
  reverseFields: boolean;
  /** Percent-encode every letter of names and values, or only the first of each. */
  encode: 'none' | 'first-letter' | 'every-letter';
}

export function formSpelling(): fc.Arbitrary<FormSpelling> {
  return fc.record({ reverseFields: fc.boolean(), encode: fc.constantFrom<FormSpelling['encode']>('none', 'first-letter', 'every-letter') });
}

export function spellForm(fields: ReadonlyArray<[string, string]>, spelling: FormSpelling): string {
  const ordered = spelling.reverseFields ? [...fields].reverse() : [...fields];
  const encodePart = (text: string): string => {
    let done = false;
    return [...text]
      .map((char) => {
        const plain = new URLSearchParams({ x: char }).toString().slice(2);
        const isLetter = /[A-Za-z]/.test(char);
        if (isLetter && (spelling.encode === 'every-letter' || (spelling.encode === 'first-letter' && !done))) {
          done = true;
          return `%${char.charCodeAt(0).toString(16).toUpperCase()}`;
        }
        return plain;
      })
      .join('');
  };
  return ordered.map(([name, value]) => `${encodePart(name)}=${encodePart(value)}`).join('&');
}
