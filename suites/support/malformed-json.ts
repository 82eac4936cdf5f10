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
];
