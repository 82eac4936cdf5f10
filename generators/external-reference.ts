import fc from 'fast-check';

export interface ExternalReferenceConstraints {
  /**
   * Most UTF-16 code units. The document sets no limit; this keeps bodies small.
   * @defaultValue 128
   */
  maxLength?: number;
}

/**
 * Values for `externalReference`, the caller's own correlation key (section 4.6): order
 * numbers, UUIDs (RFC 9562), identifier-like strings with punctuation, and free Unicode
 * text. Never empty: the field is required, and whether '' counts as given is not shown.
 */
export function externalReference(constraints: ExternalReferenceConstraints = {}): fc.Arbitrary<string> {
  const maxLength = constraints.maxLength ?? 128;
  if (!Number.isInteger(maxLength) || maxLength < 1) throw new Error(`externalReference: maxLength must be a positive integer, got ${maxLength}`);
  // Cut to the limit without leaving half of a surrogate pair behind.
  const fitted = (arb: fc.Arbitrary<string>) =>
    arb.map((value) => value.slice(0, maxLength).replace(/[\uD800-\uDBFF]$/, '')).filter((value) => value.length > 0);
  return fc.oneof(
    fitted(fc.nat().map((n) => `order-${n}`)),
    fitted(fc.uuid()),
    fitted(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:\/-]{0,63}$/)),
    fitted(fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.min(maxLength, 40) })),
  );
}
