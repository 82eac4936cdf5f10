import assert from 'node:assert/strict';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { isGsm7 } from '../../generators/gsm7-alphabet.ts';
import { messageText } from '../../generators/message-text.ts';
import { hasLoneSurrogate } from './send-rules.ts';

test('text stays within its length bounds and is well-formed Unicode', () => {
  fc.assert(
    fc.property(messageText(), (text) => {
      assert.ok(text.length >= 1 && text.length <= 1600, `length ${text.length}`);
      assert.equal(hasLoneSurrogate(text), false);
    }),
    { numRuns: 500 },
  );
  fc.assert(fc.property(messageText({ minLength: 5, maxLength: 12 }), (text) => text.length >= 5 && text.length <= 12), { numRuns: 500 });
});

test('gsm7 text uses only the GSM 7-bit alphabet', () => {
  fc.assert(fc.property(messageText({ alphabets: ['gsm7'] }), (text) => isGsm7(text)), { numRuns: 300 });
});

test('unicode and emoji text leave the GSM alphabet, emoji beyond the BMP', () => {
  expect(fc.sample(messageText({ alphabets: ['unicode'] }), 100).some((text) => !isGsm7(text))).toBe(true);
  expect(fc.sample(messageText({ alphabets: ['emoji'] }), 100).some((text) => /[\u{1F000}-\u{1FAFF}]/u.test(text))).toBe(true);
});

test('long bodies reach the limit exactly, and can be turned off', () => {
  const lengths = fc.sample(messageText(), 400).map((text) => text.length);
  expect(lengths).toContain(1600);
  expect(Math.max(...fc.sample(messageText({ longBodies: false }), 400).map((text) => text.length))).toBeLessThan(1440);
  expect(fc.sample(messageText({ maxLength: 70 }), 400).map((text) => text.length)).toContain(70);
});
