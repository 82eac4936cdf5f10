// When a run is broken, it stops; a harness stop inside a property is a stop, not a failure,
// unless the property had already failed; what the run's workers share survives restarts.
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { checkProperty, PropertyFailure } from '../../harness/property.ts';
import { RunState } from '../../harness/run-state.ts';
import { SendGuard, SendGuardError } from '../../harness/send-guard.ts';
import { normalised, sharedCause, STOP_AFTER, stopReason } from '../../harness/stop-rule.ts';
import { tempDir } from '../reports/run-fixture.ts';

test('a failure on the test\'s own clause is not a shared cause; one judged elsewhere, or by nothing, is', () => {
  expect(sharedCause(false, ['@SEND-004'], [], undefined)).toBeNull();
  expect(sharedCause(true, ['@SEND-004'], ['SEND-004'], 'Error: SEND-004: …')).toBeNull();
  expect(sharedCause(true, ['@SEND-004'], ['TOKEN-002'], 'SchemaViolationError: TOKEN-002: …')).toBe('failed on TOKEN-002');
  // A failure only on requirements that do not fail the run (standard level, not strict) stops nothing.
  const standard = (id: string) => !id.startsWith('WH-1');
  expect(sharedCause(true, ['@SEND-004'], ['WH-102'], 'CallbackAuditFailed: WH-102: …', standard)).toBeNull();
  expect(sharedCause(true, ['@SEND-004'], ['WH-102', 'WH-001'], 'CallbackAuditFailed: WH-102: …', standard)).toBe('failed on WH-102, WH-001');
  expect(sharedCause(true, ['@SEND-004'], [], 'Error: POST http://127.0.0.1:4000/api/core/messages/send failed: connect ECONNREFUSED 127.0.0.1:4000')).toBe('Error: <request> failed: connect ECONNREFUSED #.#.#.#:#');
});

test('the same failure in two tests reads the same', () => {
  expect(normalised('Error: GET http://h:1/api/core/whoami failed: connect ECONNREFUSED 10.0.0.1:1')).toBe(normalised('Error: PATCH http://h:1/api/core/numbers/num_9 failed: connect ECONNREFUSED 10.0.0.1:1'));
  expect(normalised('Test timeout of 60000ms exceeded.')).toBe('Test timeout of #ms exceeded.');
});

test(`${STOP_AFTER} tests in a row failing on one shared cause stop the run; a pass or another cause in between does not`, () => {
  const cause = 'failed on TOKEN-002';
  expect(stopReason(Array(STOP_AFTER - 1).fill(cause))).toBeNull();
  expect(stopReason([...Array(STOP_AFTER - 1).fill(cause), null])).toBeNull();
  expect(stopReason([...Array(STOP_AFTER - 1).fill(cause), 'other'])).toBeNull();
  expect(stopReason(Array(STOP_AFTER).fill(cause))).toEqual({
    reason: `${STOP_AFTER} tests in a row failed the same way (failed on TOKEN-002); every later test would too, so the run stopped: fix that cause and run again`,
    failedOn: ['TOKEN-002'],
  });
  // A cause no check judged stops the run too, on no requirement.
  expect(stopReason(Array(STOP_AFTER).fill('Error: <request> failed: connect ECONNREFUSED #.#.#.#:#'))?.failedOn).toEqual([]);
});

test('sends and recent failures of a worker slot survive its process; a stop is seen by every slot', () => {
  const dir = join(tempDir(), 'run');
  const first = new RunState(dir, 0);
  first.countSend();
  first.countSend();
  first.remember('x', 3);
  const restarted = new RunState(dir, 0);
  expect(restarted.sends).toBe(2);
  expect(restarted.remember('y', 3)).toEqual(['x', 'y']);
  expect(new RunState(dir, 1).sends).toBe(0);
  restarted.stop('the send cap was reached');
  expect(new RunState(dir, 1).stopped()).toEqual({ reason: 'the send cap was reached', failedOn: [] });
});

test('a test that changes nothing of the slot writes nothing; one that does writes it', () => {
  const dir = join(tempDir(), 'run');
  const state = new RunState(dir, 0);
  for (let i = 0; i < 3; i++) state.remember(null, 3);
  const file = join(dir, 'worker-0.json');
  rmSync(file);
  state.remember(null, 3); // the window is already three passes
  state.flush();
  expect(existsSync(file)).toBe(false);
  state.countSend();
  state.flush();
  expect(new RunState(dir, 0).sends).toBe(1);
});

test('the send cap counts across the restarts of a worker', () => {
  const dir = join(tempDir(), 'run');
  // A worker counts sends in memory and writes the count when a test ends (the judgement
  // fixture) and when it stops; a failed test ends it, and the next worker of the slot reads on.
  for (let restart = 0; restart < 3; restart++) {
    const state = new RunState(dir, 0);
    new SendGuard('^\\+1', 3, state).admit({ to: ['+12025550100'] });
    state.flush();
  }
  expect(() => new SendGuard('^\\+1', 3, new RunState(dir, 0)).admit({ to: ['+12025550100'] })).toThrow(SendGuardError);
});

const settings = { depth: 'quick' as const, numRuns: 50, seed: 3 };

test('a property the send cap stops before any case failed is a harness stop, not a failure', async () => {
  const guard = new SendGuard('^\\+1', 5);
  let cases = 0;
  const run = checkProperty('SEND-007', fc.property(fc.nat(), () => {
    cases++;
    guard.admit({ to: ['+12025550100'] });
  }), { settings });
  await expect(run).rejects.toBeInstanceOf(SendGuardError);
  await expect(run).rejects.toMatchObject({ stopsRun: true });
  expect(cases).toBe(6); // it stopped at the first refused send, without shrinking towards it
});

test('a property that failed keeps its failure when the cap ends its shrinking', async () => {
  const guard = new SendGuard('^\\+1', 12);
  const run = checkProperty('SEND-007', fc.property(fc.integer({ min: 0, max: 1_000_000 }), (n) => {
    guard.admit({ to: ['+12025550100'] });
    if (n > 10) throw new Error(`SEND-007: ${n} was accepted`);
  }), { settings });
  await expect(run).rejects.toBeInstanceOf(PropertyFailure);
  await expect(run).rejects.toMatchObject({ requirementIds: ['SEND-007'] });
});

test('ordinary sends stop short of the cap, and a property shrinking a failure may use the rest', async () => {
  // Cap 20: 3 kept for shrinking (15%), so 17 ordinary sends; a failure found at the 17th send
  // shrinks with the other 3, and its report says the harness stopped the shrinking.
  const guard = new SendGuard('^\\+1', 20);
  for (let i = 0; i < 16; i++) guard.admit({ to: ['+12025550100'] });
  const run = checkProperty('SEND-007', fc.property(fc.integer({ min: 0, max: 1_000_000 }), (n) => {
    guard.admit({ to: ['+12025550100'] });
    if (n > 10) throw new Error(`SEND-007: ${n} was accepted`);
  }), { settings: { ...settings, numRuns: 1 }, parameters: { examples: [[500_000]] } });
  const failure = await run.then(() => null, (e: unknown) => e);
  expect(failure).toBeInstanceOf(PropertyFailure);
  expect(guard.count).toBe(21);
  expect((failure as PropertyFailure).message).toContain('note: shrinking stopped when the harness did (send cap reached');
  // Outside shrinking, the 17th send of the run is refused with the reserve named.
  const plain = new SendGuard('^\\+1', 20);
  for (let i = 0; i < 17; i++) plain.admit({ to: ['+12025550100'] });
  expect(() => plain.admit({ to: ['+12025550100'] })).toThrow(/kept for shrinking/);
});
