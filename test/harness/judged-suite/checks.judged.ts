import fc from 'fast-check';
import type { ApiResponse } from '../../../harness/api-client.ts';
import { expect, test } from '../../../harness/fixtures.ts';
import { checkProperty } from '../../../harness/property.ts';
import { SendGuard } from '../../../harness/send-guard.ts';
import type { RequirementLabel } from '../../../harness/requirement-ids.ts';

const settings = { depth: 'quick' as const, numRuns: 20, seed: 7 };
const response = (status: number) => ({ status, text: '', describe: () => `GET http://x.invalid → ${status}`, request: { method: 'GET', url: 'http://x.invalid', headers: {} } });

test('a labelled assertion judges the requirement its label names', { tag: ['@FIX-001', '@FIX-002'] }, async () => {
  expect(202, 'FIX-002: a foreign sendFrom is answered 403').toBe(403);
});

test('a soft assertion is judged too', { tag: ['@FIX-006', '@FIX-007'] }, async () => {
  expect.soft('no', 'FIX-006: the answer says yes').toBe('yes');
});

test('a custom matcher judges the requirement of its label', { tag: ['@FIX-008', '@FIX-101'] }, async () => {
  // FIX-008 is this suite's own catalogue's, not the interface's: outside RequirementLabel on purpose.
  expect(response(500) as unknown as ApiResponse).toHaveStatus(200, 'FIX-008: whoami is answered 200' as RequirementLabel);
});

test('a failed property judges the requirement its failing check names, not the one it was run for', { tag: ['@FIX-101', '@FIX-102'] }, async () => {
  await checkProperty('FIX-101', fc.property(fc.nat(), (n) => { if (n > 3) throw new Error(`FIX-102: checked ${n}`); }), { settings });
});

test('an error no check recorded counts against every tag', { tag: ['@FIX-202', '@FIX-003'] }, async () => {
  throw new Error('FIX-202: a message of the test\'s own');
});

// Near the end: the send cap stops the run, and the test after it does not start.
test('a property stopped by the send cap is a harness stop, not a failure of its requirement', { tag: ['@FIX-201'] }, async () => {
  const guard = new SendGuard('^\\+1', 5);
  await checkProperty('FIX-201', fc.property(fc.nat(), () => guard.admit({ to: ['+12025550100'] })), { settings });
});

test('a test after the send cap stopped the run does not start', { tag: ['@FIX-102'] }, async () => {});
