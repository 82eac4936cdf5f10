import assert from 'node:assert/strict';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { isValidPhoneNumber, parsePhoneNumber } from 'libphonenumber-js/max';
import { e164BoundaryNumber } from '../../generators/e164-boundary-number.ts';
import { E164_SYNTAX } from '../../generators/e164-syntax.ts';
import { exampleMobileNumber } from '../../generators/example-mobile-number.ts';
import { nanpTestNumber, TEST_AREA_CODES, testOutcomeOf } from '../../generators/nanp-test-number.ts';
import { validE164Recipient } from '../../generators/valid-e164-recipient.ts';

const digitCount = (number: string) => number.length - 1;

test('every valid recipient matches the E.164 syntax', () => {
  fc.assert(fc.property(validE164Recipient(), (number) => E164_SYNTAX.test(number)), { numRuns: 1000 });
});

test('real numbers pass isValidPhoneNumber with the max metadata', () => {
  fc.assert(fc.property(exampleMobileNumber(), (number) => E164_SYNTAX.test(number) && isValidPhoneNumber(number)), { numRuns: 1000 });
});

test('real numbers come from many regions', () => {
  const regions = new Set(fc.sample(exampleMobileNumber(), 1500).map((number) => parsePhoneNumber(number).country));
  expect(regions.size).toBeGreaterThan(100);
});

test('real numbers vary beyond the published examples', () => {
  const numbers = new Set(fc.sample(exampleMobileNumber({ regions: ['GB'] }), 200));
  expect(numbers.size).toBeGreaterThan(20);
});

test('every NANP test number in the whole 0100..0199 range passes libphonenumber', () => {
  const invalid: string[] = [];
  for (const npa of TEST_AREA_CODES) {
    for (let line = 100; line <= 199; line++) {
      const number = `+1${npa}5550${line}`;
      if (!isValidPhoneNumber(number)) invalid.push(number);
    }
  }
  expect(invalid).toEqual([]);
});

test('the outcome option keeps to the DELIVERED or FAILED half of the test range', () => {
  for (const outcome of ['DELIVERED', 'FAILED'] as const) {
    fc.assert(
      fc.property(validE164Recipient({ outcome }), (number) => {
        assert.match(number, /^\+1[2-9]\d\d55501\d\d$/);
        assert.equal(testOutcomeOf(number), outcome);
      }),
      { numRuns: 300 },
    );
  }
  const lines = new Set(fc.sample(nanpTestNumber({ outcome: 'FAILED' }), 2000).map((number) => number.slice(-4)));
  expect(lines).toContain('0150');
  expect(lines).toContain('0199');
  expect(testOutcomeOf('+12025550149')).toBe('DELIVERED');
  expect(testOutcomeOf('+12025550150')).toBe('FAILED');
  expect(testOutcomeOf('+12025550200')).toBeUndefined();
});

test('the boundary arbitrary reaches 15 digits and never passes them', () => {
  const lengths = fc.sample(e164BoundaryNumber(), 300).map(digitCount);
  expect(Math.max(...lengths)).toBe(15);
  expect(lengths.filter((length) => length === 15).length).toBeGreaterThan(100);
  const recipients = fc.sample(validE164Recipient(), 600).map(digitCount);
  expect(recipients).toContain(15);
  expect(Math.max(...recipients)).toBeLessThanOrEqual(15);
});

test('constraints that cannot be met are refused', () => {
  expect(() => e164BoundaryNumber({ maxDigits: 16 })).toThrow(/maxDigits/);
  expect(() => validE164Recipient({ kinds: [] })).toThrow(/kinds/);
  expect(() => exampleMobileNumber({ varyLastDigits: 9 })).toThrow(/varyLastDigits/);
});
