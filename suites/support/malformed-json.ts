// Bodies labelled JSON that are not JSON: section 7.3's malformed JSON, which every route that
// reads a body answers as a request defect (the core routes in the CORE wrapper, ERR-003; the
// token endpoint in the OAuth body, TOKEN-006).
/** A body that is not JSON although it says so: a JSON text cut short, or quoted wrongly. */
export const MALFORMED_JSON: ReadonlyArray<{ name: string; spoil: (valid: string) => string }> = [
  { name: 'JSON cut short', spoil: (valid) => valid.slice(0, -1) },
  // A body with no string in it (an empty update, when the list shows no setting to repeat) has no quote to spoil.
  { name: 'single-quoted JSON', spoil: (valid) => (valid.includes('"') ? valid : '{"note":"quoted"}').replace(/"/g, "'") },
  { name: 'JSON with a trailing comma', spoil: (valid) => valid.replace(/}$/, ',}') },
  { name: 'plain text labelled as JSON', spoil: () => 'this is not JSON' },
  // RFC 8259 7: control characters in a string must be escaped; a line feed written raw inside
  // one is no JSON string (a lenient reader takes it as the character).
  { name: 'JSON with a line feed written raw inside a string', spoil: (valid) => (/:\s*"/.test(valid) ? valid.replace(/:\s*"/, ':"\n') : withMember(valid, '"note":"a\nb"')) },
  // RFC 8259 2: a JSON text is one value, with only whitespace around it. A parser that stops at
  // the end of the first value (a streaming reader) takes these for the valid body.
  { name: 'the valid JSON with a word after it', spoil: (valid) => `${valid} x` },
  { name: 'the valid JSON with a second closing brace', spoil: (valid) => `${valid}}` },
  { name: 'the valid JSON twice', spoil: (valid) => `${valid}${valid}` },
  // What lenient readers take beyond RFC 8259 (JavaScript's and Python's number words, JSON5's
  // comments and bare names), in a member added to the valid body: a server whose reader takes
  // them answers the body as valid, where a strict one finds it malformed.
  { name: 'the valid JSON with a member whose value is NaN', spoil: (valid) => withMember(valid, '"note":NaN') },
  { name: 'the valid JSON with a member whose value is -Infinity', spoil: (valid) => withMember(valid, '"note":-Infinity') },
  { name: 'the valid JSON with a comment in it', spoil: (valid) => withMember(valid, '/* note */"note":"x"') },
  { name: 'the valid JSON with a member name not quoted', spoil: (valid) => withMember(valid, 'note:"x"') },
];

/** The valid body (a JSON object) with `member` written first among its members. */
function withMember(valid: string, member: string): string {
  const inner = valid.trim().replace(/^\{/, '').replace(/\}$/, '').trim();
  return `{${member}${inner === '' ? '' : `,${inner}`}}`;
}

/**
 * Bodies that are JSON but not the object a route's fields belong to: other JSON values, and the
 * route's valid body wrapped in an array or encoded once more as a JSON string (a server that
 * takes the first element, or parses twice, reads a request it was not sent). Sections 4.5 and
 * 4.6 give each body as an object of named fields, so none of these is the request a route takes.
 */
export const NON_OBJECT_BODIES: ReadonlyArray<{ name: string; spoil: (valid: string) => string }> = [
  { name: 'a JSON array for the body', spoil: () => '[]' },
  { name: 'JSON null for the body', spoil: () => 'null' },
  { name: 'a JSON number for the body', spoil: () => '0' },
  { name: 'the valid body inside a JSON array', spoil: (valid) => `[${valid}]` },
  { name: 'the valid body encoded as a JSON string', spoil: (valid) => JSON.stringify(valid) },
];
