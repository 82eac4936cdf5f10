import fc from 'fast-check';

/** The final outcome the reference profile assigns to a fictional NANP test number. */
export type TestOutcome = 'DELIVERED' | 'FAILED';

/**
 * Line numbers of the NANP fictional range 555-0100..0199 and the outcome each half asks the
 * reference profile for (spec/profile.yaml, choice message.testOutcomes): 0100..0149 end
 * DELIVERED, 0150..0199 end FAILED.
 */
export const TEST_OUTCOME_LINES: Readonly<Record<TestOutcome, { readonly min: number; readonly max: number }>> = {
  DELIVERED: { min: 100, max: 149 },
  FAILED: { min: 150, max: 199 },
};

/**
 * Geographic area codes of the United States and Canada. With exchange 555 and lines
 * 0100..0199 every one of them passes libphonenumber-js `isValidPhoneNumber` ('max'); the
 * unit tests check the whole range. Toll-free and premium codes are left out on purpose:
 * they fail mobile-only metadata.
 */
export const TEST_AREA_CODES: readonly string[] = [
  '201', '202', '203', '205', '206', '212', '213', '214', '215', '216', '301', '303', '305',
  '310', '312', '313', '404', '415', '416', '503', '504', '512', '514', '602', '604', '612',
  '613', '617', '702', '703', '713', '718', '720', '801', '808', '907', '917', '919', '949',
];

export interface NanpTestNumberConstraints {
  /**
   * Restrict to the lines that end with this outcome at the reference profile.
   * @defaultValue undefined: the whole range 0100..0199
   */
  outcome?: TestOutcome;
  /**
   * Area codes (NPA) to use.
   * @defaultValue TEST_AREA_CODES
   */
  areaCodes?: readonly string[];
}

/**
 * Fictional NANP numbers +1 NPA 555 01XX: reserved for fiction and tests by the North
 * American Numbering Plan Administrator, so sending to them never reaches a person, yet
 * they pass libphonenumber validation (guides/standards.md, E.164 section).
 */
export function nanpTestNumber(constraints: NanpTestNumberConstraints = {}): fc.Arbitrary<string> {
  const areaCodes = constraints.areaCodes ?? TEST_AREA_CODES;
  if (areaCodes.length === 0 || !areaCodes.every((npa) => /^[2-9]\d\d$/.test(npa))) {
    throw new Error(`nanpTestNumber: area codes must be three digits starting 2-9, got ${JSON.stringify(areaCodes)}`);
  }
  const lines = constraints.outcome === undefined ? { min: 100, max: 199 } : TEST_OUTCOME_LINES[constraints.outcome];
  return fc
    .tuple(fc.constantFrom(...areaCodes), fc.integer(lines))
    .map(([npa, line]) => `+1${npa}555${String(line).padStart(4, '0')}`);
}

/**
 * The outcome the reference profile gives `number`, or undefined when it is not a NANP
 * fictional test number (the profile then delivers it).
 */
export function testOutcomeOf(number: string): TestOutcome | undefined {
  const match = /^\+1[2-9]\d\d555(0\d\d\d)$/.exec(number);
  if (match === null) return undefined;
  const line = Number(match[1]);
  for (const outcome of ['DELIVERED', 'FAILED'] as const) {
    const { min, max } = TEST_OUTCOME_LINES[outcome];
    if (line >= min && line <= max) return outcome;
  }
  return undefined;
}
