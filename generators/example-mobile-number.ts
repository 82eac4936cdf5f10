import fc from 'fast-check';
import { getCountries, getExampleNumber, isValidPhoneNumber, type CountryCode } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/examples.mobile.json';

export interface ExampleMobileNumberConstraints {
  /**
   * Regions (ISO 3166-1 alpha-2) to draw from.
   * @defaultValue every region for which libphonenumber-js has a mobile example (about 245)
   */
  regions?: readonly CountryCode[];
  /**
   * How many trailing digits of the example may be replaced by random digits. A variant is
   * kept only when it is still valid under the 'max' metadata; otherwise the example itself
   * is used, so every value stays valid and shrinking leads back to the published example.
   * Between 0 and 6: the shortest examples have 7 digits, and the country code stays intact.
   * @defaultValue 3
   */
  varyLastDigits?: number;
}

/** Mobile example numbers per region, kept only when valid under the strict 'max' metadata. */
const EXAMPLES: ReadonlyMap<CountryCode, string> = new Map(
  getCountries().flatMap((region) => {
    const number = getExampleNumber(region, examples)?.number;
    return number !== undefined && isValidPhoneNumber(number) ? [[region, number] as const] : [];
  }),
);

/**
 * Real mobile numbers from the numbering plans of many regions, in E.164 '+' form: the
 * example numbers libphonenumber-js publishes per region (ITU-T E.164 national plans as
 * collected by Google's libphonenumber), with some trailing digits varied. Every value
 * passes `isValidPhoneNumber` with the 'max' metadata.
 */
export function exampleMobileNumber(constraints: ExampleMobileNumberConstraints = {}): fc.Arbitrary<string> {
  const regions = (constraints.regions ?? [...EXAMPLES.keys()]).filter((region) => EXAMPLES.has(region));
  if (regions.length === 0) throw new Error('exampleMobileNumber: none of the requested regions has a valid mobile example');
  const varyLastDigits = constraints.varyLastDigits ?? 3;
  if (!Number.isInteger(varyLastDigits) || varyLastDigits < 0 || varyLastDigits > 6) {
    throw new Error(`exampleMobileNumber: varyLastDigits must be an integer from 0 to 6, got ${varyLastDigits}`);
  }
  const bases = regions.map((region) => EXAMPLES.get(region) as string);
  return fc
    .tuple(fc.constantFrom(...bases), fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: varyLastDigits }))
    .map(([base, tail]) => {
      if (tail.length === 0) return base;
      const variant = base.slice(0, base.length - tail.length) + tail;
      return isValidPhoneNumber(variant) ? variant : base;
    });
}
