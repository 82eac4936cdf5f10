import assert from 'node:assert/strict';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { SINGLE_DEFECT_REQUIREMENTS, breakableRequirements, singleDefectPayload, type ExpectedAnswer, type SingleDefectRequirement } from '../../generators/single-defect-payload.ts';
import { brokenRules, type SenderKnowledge } from './send-rules.ts';

const SENDERS: SenderKnowledge = { sendable: ['num_01', 'num_02'], foreign: ['num_other'], unregistered: ['num_nocampaign'] };
const CONSTRAINTS = {
  numberIds: SENDERS.sendable,
  foreignNumberIds: SENDERS.foreign ?? [],
  unregisteredNumberIds: SENDERS.unregistered ?? [],
};

/** The top-level fields in which two bodies differ. */
function changedFields(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((field) => JSON.stringify(a[field]) !== JSON.stringify(b[field]));
}

for (const requirementId of SINGLE_DEFECT_REQUIREMENTS) {
  test(`${requirementId}: the payload breaks exactly that rule and nothing else`, () => {
    fc.assert(
      fc.property(singleDefectPayload({ ...CONSTRAINTS, requirementIds: [requirementId] }), (c) => {
        assert.equal(c.requirementId, requirementId);
        assert.deepEqual(brokenRules(c.payload, c.headers, SENDERS), [requirementId]);
        // The valid payload before the defect breaks nothing, and the defect touches one field at most.
        assert.deepEqual(brokenRules({ ...c.valid }, { 'Idempotency-Key': 'k' }, SENDERS), []);
        assert.equal(changedFields(c.valid as unknown as Record<string, unknown>, c.payload).length, requirementId === 'SEND-001' ? 0 : 1);
      }),
      { numRuns: 150 },
    );
  });
}

test('each case carries the answer the document requires', () => {
  const byId = new Map(fc.sample(singleDefectPayload(CONSTRAINTS), 600).map((c) => [c.requirementId, c]));
  expect([...byId.keys()].sort()).toEqual([...SINGLE_DEFECT_REQUIREMENTS].sort());
  // The document names the answer to three of the rules; breaking any other makes the request
  // "invalid", any 4xx, which the reference profile answers 400 INVALID_REQUEST.
  const named: Partial<Record<SingleDefectRequirement, ExpectedAnswer>> = {
    'SEND-001': { status: 400, code: 'INVALID_REQUEST' },
    'SEND-004': { status: 403, code: 'FORBIDDEN' },
    'SEND-005': { status: 400, code: 'INVALID_REQUEST' },
  };
  for (const id of SINGLE_DEFECT_REQUIREMENTS) {
    expect(byId.get(id)?.expected, id).toEqual(named[id] ?? { status: 'request-defect' });
    expect(byId.get(id)?.referenceProfile, id).toEqual(named[id] ?? { status: 400, code: 'INVALID_REQUEST' });
  }
});

test('keys are fresh for every case, and only SEND-001 goes without one', () => {
  const cases = fc.sample(singleDefectPayload(CONSTRAINTS), 300);
  const keys = cases.flatMap((c) => (c.requirementId === 'SEND-001' ? [] : [c.headers['Idempotency-Key']]));
  expect(new Set(keys).size).toBe(keys.length);
  expect(cases.filter((c) => c.requirementId === 'SEND-001').every((c) => Object.keys(c.headers).length === 0)).toBe(true);
});

test('invalid-recipient cases name their class', () => {
  const variants = new Set(fc.sample(singleDefectPayload({ requirementIds: ['SEND-007'] }), 500).map((c) => c.variant));
  expect(variants.size).toBeGreaterThan(15);
});

test('a rule is breakable only when the numbers it needs are given, listed in the order of SINGLE_DEFECT_REQUIREMENTS', () => {
  expect(breakableRequirements({ ...CONSTRAINTS, mmsNumberIds: ['num_02'] })).toEqual([...SINGLE_DEFECT_REQUIREMENTS]);
  expect(breakableRequirements({ numberIds: ['num_01'], mmsNumberIds: [] })).toEqual(
    SINGLE_DEFECT_REQUIREMENTS.filter((id) => !['SEND-003', 'SEND-004', 'SEND-005'].includes(id)),
  );
});

test('SEND-004 and SEND-005 need numberIds from the target', () => {
  const ids = new Set(fc.sample(singleDefectPayload(), 500).map((c) => c.requirementId));
  expect(ids.has('SEND-004') || ids.has('SEND-005')).toBe(false);
  expect(() => singleDefectPayload({ requirementIds: ['SEND-004'] })).toThrow(/foreignNumberIds/);
});
