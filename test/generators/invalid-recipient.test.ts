import assert from 'node:assert/strict';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { e164SendFrom } from '../../generators/e164-send-from.ts';
import { E164_SYNTAX } from '../../generators/e164-syntax.ts';
import { INVALID_RECIPIENT_CLASSES, invalidRecipient, type InvalidRecipientClass } from '../../generators/invalid-recipient.ts';

/** What each class must look like, beyond failing the syntax: the class name has to be true. */
const LOOKS_LIKE: Record<InvalidRecipientClass, (value: unknown) => boolean> = {
  'missing-plus': (v) => typeof v === 'string' && /^\d+$/.test(v),
  'double-zero-prefix': (v) => typeof v === 'string' && /^00\d+$/.test(v),
  'country-code-zero': (v) => typeof v === 'string' && /^\+0\d{1,14}$/.test(v),
  'too-many-digits': (v) => typeof v === 'string' && /^\+[1-9]\d{15,}$/.test(v),
  'too-short': (v) => typeof v === 'string' && /^\+\d?$/.test(v),
  letters: (v) => typeof v === 'string' && /^\+[\dA-Za-z]+$/.test(v) && /[A-Za-z]/.test(v),
  'inner-whitespace': (v) => typeof v === 'string' && v === v.trim() && /\s/.test(v) && !/\n/.test(v),
  'outer-whitespace': (v) => typeof v === 'string' && v !== v.trim() && E164_SYNTAX.test(v.trim()),
  newline: (v) => typeof v === 'string' && /\n/.test(v),
  'double-plus': (v) => typeof v === 'string' && /^\+\+[1-9]\d+$/.test(v),
  'full-width-digits': (v) => typeof v === 'string' && /[\uff10-\uff19]/.test(v),
  'arabic-indic-digits': (v) => typeof v === 'string' && /[\u0660-\u0669\u06f0-\u06f9]/.test(v),
  extension: (v) => typeof v === 'string' && /^\+\d+( ext\.? | x|;ext=|#)\d+$/.test(v),
  punctuation: (v) => typeof v === 'string' && /[-.()/]/.test(v) && /^\+[\d\-.()/]+$/.test(v),
  'empty-string': (v) => v === '',
  number: (v) => typeof v === 'number' && Number.isInteger(v),
  null: (v) => v === null,
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  array: (v) => Array.isArray(v),
  boolean: (v) => typeof v === 'boolean',
};

test('every invalid recipient fails the E.164 syntax or is not a string', () => {
  fc.assert(
    fc.property(invalidRecipient(), ({ value }) => typeof value !== 'string' || !E164_SYNTAX.test(value)),
    { numRuns: 3000 },
  );
});

for (const invalidClass of INVALID_RECIPIENT_CLASSES) {
  test(`class ${invalidClass} is invalid and is what its name says`, () => {
    fc.assert(
      fc.property(invalidRecipient({ classes: [invalidClass] }), (recipient) => {
        assert.equal(recipient.invalidClass, invalidClass);
        assert.ok(typeof recipient.value !== 'string' || !E164_SYNTAX.test(recipient.value), 'passes the E.164 syntax');
        assert.ok(LOOKS_LIKE[invalidClass](recipient.value), `not a ${invalidClass}: ${JSON.stringify(recipient.value)}`);
        // Every value must survive a JSON round trip, or it could not be sent.
        assert.deepEqual(JSON.parse(JSON.stringify(recipient.value)), recipient.value);
      }),
      { numRuns: 100 },
    );
  });
}

test('the default draws every class', () => {
  const seen = new Set(fc.sample(invalidRecipient(), 2000).map((recipient) => recipient.invalidClass));
  expect([...seen].sort()).toEqual([...INVALID_RECIPIENT_CLASSES].sort());
});

test('E.164 sendFrom values are E.164 numbers, including the client’s own when given', () => {
  fc.assert(fc.property(e164SendFrom(), (sendFrom) => E164_SYNTAX.test(sendFrom)), { numRuns: 300 });
  const owned = '+12025550123';
  const values = fc.sample(e164SendFrom({ ownedPhoneNumbers: [owned, 'num_01'] }), 200);
  expect(values).toContain(owned);
  expect(values).not.toContain('num_01');
  expect(values.every((value) => E164_SYNTAX.test(value))).toBe(true);
});
