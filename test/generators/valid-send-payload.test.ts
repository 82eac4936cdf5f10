import assert from 'node:assert/strict';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { externalReference } from '../../generators/external-reference.ts';
import { mediaItems } from '../../generators/media-items.ts';
import { testOutcomeOf } from '../../generators/nanp-test-number.ts';
import { validSendPayload } from '../../generators/valid-send-payload.ts';
import { brokenRules, hasLoneSurrogate } from './send-rules.ts';

const KEY = { 'Idempotency-Key': 'k' };

test('valid payloads break no rule', () => {
  fc.assert(
    fc.property(validSendPayload({ numberIds: ['num_a', 'num_b'] }), (payload) => {
      assert.deepEqual(brokenRules({ ...payload }, KEY, { sendable: ['num_a', 'num_b'] }), []);
    }),
    { numRuns: 500 },
  );
});

test('SMS never carries media, MMS always does, and both occur', () => {
  const payloads = fc.sample(validSendPayload(), 300);
  expect(payloads.filter((p) => p.messageType === 'SMS').every((p) => p.media === undefined && typeof p.text === 'string')).toBe(true);
  expect(payloads.filter((p) => p.messageType === 'MMS').every((p) => (p.media?.length ?? 0) >= 1)).toBe(true);
  expect(new Set(payloads.map((p) => p.messageType))).toEqual(new Set(['SMS', 'MMS']));
  expect(payloads.some((p) => p.messageType === 'MMS' && p.text === undefined)).toBe(true);
});

test('one or many recipients within the bounds, each once', () => {
  const counts = fc.sample(validSendPayload({ maxRecipients: 6 }), 400).map((p) => p.to.length);
  expect(Math.min(...counts)).toBe(1);
  expect(Math.max(...counts)).toBe(6);
  // With two possible recipients and two places, only distinct recipients can fill them.
  const pairs = fc.sample(validSendPayload({ recipient: fc.constantFrom('+12025550100', '+12025550101'), minRecipients: 2, maxRecipients: 2 }), 100);
  expect(pairs.every((p) => new Set(p.to).size === 2)).toBe(true);
});

test('sendFrom is a given numberId, MMS only from MMS numbers', () => {
  const payloads = fc.sample(validSendPayload({ numberIds: ['sms_only', 'both'], mmsNumberIds: ['both'] }), 300);
  expect(payloads.every((p) => (p.messageType === 'MMS' ? p.sendFrom === 'both' : ['sms_only', 'both'].includes(p.sendFrom)))).toBe(true);
  expect(fc.sample(validSendPayload({ numberIds: ['a'], mmsNumberIds: [] }), 50).every((p) => p.messageType === 'SMS')).toBe(true);
  expect(() => validSendPayload({ numberIds: [], mmsNumberIds: [] })).toThrow(/numberId/);
});

test('the outcome option sends only to test numbers of that outcome', () => {
  fc.assert(
    fc.property(validSendPayload({ outcome: 'FAILED', maxRecipients: 5 }), (payload) => payload.to.every((n) => testOutcomeOf(n) === 'FAILED')),
    { numRuns: 200 },
  );
});

test('media items are absolute https URLs with a type/subtype, one to ten', () => {
  fc.assert(
    fc.property(mediaItems(), (items) => {
      assert.ok(items.length >= 1 && items.length <= 10, `${items.length} items`);
      for (const { url, contentType } of items) {
        const parsed = new URL(url);
        assert.equal(parsed.protocol, 'https:');
        assert.equal(parsed.href, url);
        assert.match(parsed.hostname, /(^|\.)example\.(com|net|org)$/);
        assert.match(contentType, /^[a-z]+\/[a-z0-9.+-]+$/);
      }
    }),
    { numRuns: 300 },
  );
});

test('external references are non-empty, bounded and varied', () => {
  fc.assert(
    fc.property(externalReference({ maxLength: 20 }), (ref) => ref.length >= 1 && ref.length <= 20 && !hasLoneSurrogate(ref)),
    { numRuns: 1000 },
  );
  const refs = fc.sample(externalReference(), 300);
  expect(refs.some((ref) => /^order-\d+$/.test(ref))).toBe(true);
  expect(refs.some((ref) => /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(ref))).toBe(true);
  expect(refs.some((ref) => /[^\x00-\x7f]/.test(ref))).toBe(true);
});
