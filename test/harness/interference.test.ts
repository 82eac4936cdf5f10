import { expect, test } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interferenceSeen, interferenceWatch, liveForeignMarks, runIdOf, runMark } from '../../harness/interference.ts';

// Another run's marks (harness/interference.ts): live ones are interference, older ones what an
// earlier run left behind, and the run's own never count.

const ours = join(tmpdir(), 'run-ours');
const theirs = join(tmpdir(), 'run-theirs');
const start = Date.parse('2026-11-26T12:00:00Z');

test('a mark names its run and when it was made', () => {
  expect(runMark(ours, start)).toMatch(new RegExp(`^r${runIdOf(ours)}t[0-9a-z]+$`));
  expect(runIdOf(ours)).not.toBe(runIdOf(theirs));
});

test("another run's mark made after this run started is live; an older one, or this run's own, is not", () => {
  const live = runMark(theirs, start + 60_000);
  const old = runMark(theirs, start - 3_600_000);
  const own = runMark(ours, start + 60_000);
  const value = { webhookDeliveryOverride: `http://127.0.0.1:9/hooks/${live}-x-1`, text: `conformance-${old}-send-1 and conformance-${own}-send-2`, list: [[`conformance-${live}-deep`]] };
  expect(liveForeignMarks(value, ours, start)).toEqual([live]);
  expect(liveForeignMarks({ ref: `conformance-${own}-a` }, ours, start)).toEqual([]);
});

test("a watch notes what it sees in the run's folder, for every process of the run", () => {
  const runDir = mkdtempSync(join(tmpdir(), 'interference-'));
  const watch = interferenceWatch(runDir);
  watch.check({ ok: true }, 'a list');
  expect(interferenceSeen(runDir)).toEqual([]);
  watch.check(`conformance-${runMark(theirs)}-send-1`, 'a callback');
  expect(interferenceSeen(runDir)).toHaveLength(1);
  expect(interferenceSeen(runDir)[0]).toContain("a callback carries another run's mark");
});
