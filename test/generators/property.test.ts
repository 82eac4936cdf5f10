import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { singleDefectPayload } from '../../generators/single-defect-payload.ts';
import { CASES_AT_ONCE, checkProperty, PropertyFailure, propertySettings, visibleJson, type PropertySettings } from '../../harness/property.ts';
import { SendGuardError } from '../../harness/send-guard.ts';

async function failureOf(run: Promise<unknown>): Promise<PropertyFailure> {
  try {
    await run;
  } catch (error) {
    if (error instanceof PropertyFailure) return error;
    throw error;
  }
  throw new Error('expected the property to fail');
}

test('runs come from --runs, else from the depth', () => {
  expect(propertySettings({}, 'npm run certify --')).toEqual({ depth: 'quick', numRuns: 25, command: 'npm run certify --' });
  expect(propertySettings({ depth: 'deep' }).numRuns).toBe(500);
  expect(propertySettings({ depth: 'deep', runs: 7 }).numRuns).toBe(7);
  expect(propertySettings({ seed: -42, path: '3:0:1', replayPath: 'AB:C' })).toMatchObject({ seed: -42, path: '3:0:1', replayPath: 'AB:C' });
});

test('malformed settings are refused rather than ignored', () => {
  expect(() => propertySettings({ runs: 0 })).toThrow(/--runs/);
  expect(() => propertySettings({ depth: 'thorough' as 'deep' })).toThrow(/quick or deep/);
  expect(() => propertySettings({ seed: 1.5 })).toThrow(/--seed/);
  expect(() => propertySettings({ path: '1:2' })).toThrow(/--seed/);
});

test('a passing property reports the seed it ran with', async () => {
  const run = await checkProperty('SEND-008', fc.property(fc.nat(), (n) => n >= 0), { settings: { depth: 'quick', numRuns: 30, seed: 99 } });
  expect(run).toEqual({ seed: 99, numRuns: 30 });
});

test('every example runs, however many there are, and the drawn runs after them', async () => {
  // fast-check counts examples among numRuns: 40 examples and 5 runs would run 5 examples alone.
  for (const independentCases of [false, true]) {
    const seen = new Set<number>();
    let drawn = 0;
    const examples = Array.from({ length: 40 }, (_, i): [number] => [-1 - i]);
    const run = await checkProperty('SEND-008', fc.asyncProperty(fc.nat(), async (n) => void (n < 0 ? seen.add(n) : drawn++)), { settings: { depth: 'quick', numRuns: 5, seed: 3 }, parameters: { examples }, independentCases });
    expect(seen.size, `independentCases ${independentCases}`).toBe(40);
    expect(drawn, `independentCases ${independentCases}`).toBe(5);
    expect(run.numRuns).toBe(45);
  }
});

test('a property is judged on the requirement its failing check names, whether or not it was run for it, else on all it was run for', async () => {
  const settings: PropertySettings = { depth: 'quick', numRuns: 20, seed: 7 };
  const failing = (message: string) => fc.property(fc.nat(), () => {
    throw new Error(message);
  });
  const named = await failureOf(checkProperty(['IDEM-104', 'IDEM-003'], failing('IDEM-003: two operations were queued'), { settings }));
  expect(named.judgement).toEqual({ kind: 'requirements', ids: ['IDEM-003'] });
  const unnamed = await failureOf(checkProperty(['IDEM-104', 'IDEM-003'], failing('the answer was not JSON'), { settings }));
  expect(unnamed.judgement).toEqual({ kind: 'requirements', ids: ['IDEM-104', 'IDEM-003'] });
  // A check that names a requirement the property was not run for judges that one, as a check
  // anywhere else does: an unsafe retry met in a burst scenario is IDEM-002's failure.
  const elsewhere = await failureOf(checkProperty(['IDEM-104', 'IDEM-003'], failing('IDEM-002: an unsafe retry (externalReference changed) was accepted'), { settings }));
  expect(elsewhere.judgement).toEqual({ kind: 'requirements', ids: ['IDEM-002'] });
});

test('a failure leads with requirement, seed, path, runs and shrinks, then the replay command', async () => {
  const settings: PropertySettings = { depth: 'quick', numRuns: 200 };
  const failure = await failureOf(checkProperty('SEND-007', fc.property(fc.integer(), (n) => n < 1000), { settings }));
  const lines = failure.message.split('\n');
  expect(lines.slice(0, 5)).toEqual([
    'Property failed: SEND-007',
    `  seed: ${failure.seed}`,
    `  path: ${failure.path}`,
    expect.stringMatching(/^ {2}runs: \d+ of 200$/),
    `  shrinks: ${failure.numShrinks}`,
  ]);
  expect(failure.counterexample).toEqual([1000]);
  expect(failure.replayCommand).toBe(`npm run certify -- --seed=${failure.seed} --path ${failure.path} --grep @SEND-007`);
  expect(failure.message).toContain(failure.replayCommand);
  expect(failure.message).toMatch(/Failure:\n {2}Property failed by returning false/);
});

test('the seed and path of a report replay the same counterexample at once', async () => {
  let calls = 0;
  const property = () =>
    fc.property(fc.array(fc.integer()), (xs) => {
      calls++;
      return xs.reduce((a, b) => a + b, 0) < 500;
    });
  const first = await failureOf(checkProperty('SEND-007', property(), { settings: { depth: 'quick', numRuns: 300 } }));
  const settings = propertySettings({ seed: first.seed, path: first.path });
  calls = 0;
  const replay = await failureOf(checkProperty('SEND-007', property(), { settings }));
  expect(replay.counterexample).toEqual(first.counterexample);
  expect(replay.seed).toBe(first.seed);
  expect(replay.numRuns).toBe(1);
  expect(calls).toBeLessThan(first.numShrinks + 50);
});

test('a single-defect counterexample is shown as the HTTP request to replay', async () => {
  const property = fc.property(singleDefectPayload({ requirementIds: ['SEND-007'], idempotencyKey: () => 'key-1' }), (c) => typeof c.payload.to !== 'object');
  const failure = await failureOf(checkProperty('SEND-007', property, { settings: { depth: 'quick', numRuns: 5, seed: 1 } }));
  expect(failure.requests).toHaveLength(1);
  expect(failure.message).toContain(
    ['POST /api/core/messages/send', 'Authorization: Bearer <ACCESS_TOKEN>', 'Content-Type: application/json', 'Idempotency-Key: key-1', '', '{'].map((l) => `  ${l}`).join('\n'),
  );
  expect(failure.message).toContain('"sendFrom": "num_01"');
});

test('several requirements make one grep; an explicit grep wins', async () => {
  const failing = fc.property(fc.constant(1), () => false);
  const settings: PropertySettings = { depth: 'quick', numRuns: 1, seed: 5 };
  expect((await failureOf(checkProperty(['IDEM-001', 'IDEM-002'], failing, { settings }))).replayCommand).toMatch(/--grep "@IDEM-001\|@IDEM-002"$/);
  expect((await failureOf(checkProperty('SEND-001', failing, { settings, grep: "'SEND-001 missing key'" }))).replayCommand).toMatch(/--grep 'SEND-001 missing key'$/);
});

test('invisible characters in a body are escaped, and the JSON still parses', () => {
  const body = { to: ['+1202\u00a05550123', '+12025550123\u200b', 'a b'] };
  const shown = visibleJson(body);
  expect(shown).toContain('+1202\\u00a05550123');
  expect(shown).toContain('\\u200b');
  expect(shown).toContain('"a b"');
  expect(JSON.parse(shown)).toEqual(body);
});

test('a harness stop in the very first case ends the property as that stop, never as a failure of its requirement', async () => {
  const stop = new SendGuardError('send cap reached (1 send for the run)', true);
  const run = checkProperty('SEND-004', fc.asyncProperty(fc.integer(), async () => {
    throw stop;
  }), { settings: propertySettings({ runs: 5 }) });
  await expect(run).rejects.toBe(stop);
});

test.describe('independent cases run several at a time', () => {
  const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

  test('the cases are the ones a sequential run of the seed gives, with at most CASES_AT_ONCE in flight', async () => {
    const seen = (into: number[][], inFlight?: { now: number; most: number }) =>
      fc.asyncProperty(fc.array(fc.integer()), async (xs) => {
        into.push(xs);
        if (inFlight) inFlight.most = Math.max(inFlight.most, ++inFlight.now);
        await tick();
        if (inFlight) inFlight.now--;
      });
    const settings: PropertySettings = { depth: 'quick', numRuns: 40, seed: 1234 };
    const sequential: number[][] = [];
    const atOnce: number[][] = [];
    const inFlight = { now: 0, most: 0 };
    expect(await checkProperty('SEND-008', seen(sequential), { settings })).toEqual({ seed: 1234, numRuns: 40 });
    expect(await checkProperty('SEND-008', seen(atOnce, inFlight), { settings, independentCases: true })).toEqual({ seed: 1234, numRuns: 40 });
    expect(atOnce).toEqual(sequential);
    expect(inFlight.most).toBe(CASES_AT_ONCE);
  });

  test('examples come first, as in a sequential run', async () => {
    const values: number[] = [];
    const property = fc.asyncProperty(fc.nat(), async (n) => {
      values.push(n);
    });
    await checkProperty('SEND-008', property, { settings: { depth: 'quick', numRuns: 3, seed: 1 }, independentCases: true, parameters: { examples: [[-1], [-2]] } });
    expect(values.slice(0, 2).sort()).toEqual([-1, -2]);
    // The two examples, then the three runs drawn.
    expect(values).toHaveLength(5);
  });

  test('a failing case is replayed alone and shrunk: the report is the one a sequential run gives', async () => {
    const property = () => fc.asyncProperty(fc.array(fc.integer()), async (xs) => {
      await tick();
      return xs.reduce((a, b) => a + b, 0) < 500;
    });
    const settings: PropertySettings = { depth: 'quick', numRuns: 300, seed: 99 };
    const sequential = await failureOf(checkProperty('SEND-007', property(), { settings }));
    const atOnce = await failureOf(checkProperty('SEND-007', property(), { settings, independentCases: true }));
    expect(atOnce.counterexample).toEqual(sequential.counterexample);
    expect(atOnce.path).toBe(sequential.path);
    expect(atOnce.replayCommand).toBe(sequential.replayCommand);
    expect(atOnce.message).not.toContain('note:');
  });

  test('a case that fails only beside others is reported as seen, with a note, never passed', async () => {
    let inFlight = 0;
    const property = fc.asyncProperty(fc.nat(), async () => {
      inFlight++;
      await tick();
      const crowded = inFlight > 1;
      inFlight--;
      if (crowded) throw new Error('SEND-004: the answer under load was 500');
    });
    const failure = await failureOf(checkProperty('SEND-004', property, { settings: { depth: 'quick', numRuns: 20, seed: 3 }, independentCases: true }));
    expect(failure.path).toBe('0');
    expect(failure.numShrinks).toBe(0);
    expect(failure.message).toContain(`note: the case failed while up to ${CASES_AT_ONCE} cases ran at once, and passed when replayed alone`);
    expect(failure.message).toContain('SEND-004: the answer under load was 500');
  });

  test('a harness stop ends the property as that stop, and no case starts after it', async () => {
    const stop = new SendGuardError('send cap reached (3 sends for the run)', true);
    let started = 0;
    const property = fc.asyncProperty(fc.integer(), async () => {
      started++;
      await tick();
      if (started > 3) throw stop;
    });
    await expect(checkProperty('SEND-004', property, { settings: propertySettings({ runs: 100 }), independentCases: true })).rejects.toBe(stop);
    expect(started).toBeLessThan(3 + 2 * CASES_AT_ONCE);
  });

  test('a replay from a reported path runs that one case, not the cases at once', async () => {
    let calls = 0;
    const property = fc.asyncProperty(fc.constant(7), async () => {
      calls++;
      return false;
    });
    const failure = await failureOf(checkProperty('SEND-007', property, { settings: propertySettings({ seed: 5, path: '2' }), independentCases: true }));
    expect(failure.path).toBe('2');
    expect(calls).toBe(1);
  });
});

test('shrinking stops when its time is out and reports the smallest failure found by then, with a note', async () => {
  // Every value of 100 or more fails, and each attempt takes a while, so shrinking 10_000 towards
  // 100 cannot finish in the budget: the failure stands, shrunk only part of the way.
  const slow = fc.asyncProperty(fc.integer({ min: 0, max: 10_000 }), async (n) => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (n >= 100) throw new Error('SEND-008: too big');
  });
  const failure = await failureOf(checkProperty('SEND-008', slow, { settings: { depth: 'quick', numRuns: 5, seed: 3 }, parameters: { examples: [[10_000]] }, shrinkBudgetMs: 100 }));
  expect(failure.message).toContain('note: shrinking stopped after');
  expect(failure.judgement).toEqual({ kind: 'requirements', ids: ['SEND-008'] });
  expect(failure.counterexample as unknown as number[]).not.toEqual([100]);
  // Without a budget to speak of, the same property shrinks to the boundary.
  const full = await failureOf(checkProperty('SEND-008', slow, { settings: { depth: 'quick', numRuns: 5, seed: 3 }, parameters: { examples: [[10_000]] }, shrinkBudgetMs: 60_000 }));
  expect(full.counterexample).toEqual([100]);
  expect(full.message).not.toContain('shrinking stopped');
});
