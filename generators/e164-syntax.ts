/**
 * The syntax of an E.164 number in its '+' form (ITU-T E.164): a country code that never
 * starts with 0, at most 15 digits in all. It checks syntax only; whether a number is
 * assigned in its country is libphonenumber's question, not the contract's
 * (spec/openapi.yaml, schema E164).
 */
export const E164_SYNTAX = /^\+[1-9]\d{1,14}$/;

/** Most digits an E.164 number may have, country code included (ITU-T E.164 section 6.1). */
export const E164_MAX_DIGITS = 15;

/** True when `value` is a string in E.164 '+' syntax. */
export function isE164Syntax(value: unknown): value is string {
  return typeof value === 'string' && E164_SYNTAX.test(value);
}
