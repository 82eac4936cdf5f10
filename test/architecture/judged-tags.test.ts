import { expect, test } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { readTestBodies } from './test-bodies.ts';

// One search for a requirement ID finds its tests: a conformance test whose checks judge a
// requirement (a message that opens with its ID, not a precondition's) carries that ID in its
// tags. The report reads which requirement a failed check judged from the check itself, so an
// untagged test still fails the right row; but a run narrowed to a requirement (--grep, the
// kill matrix's first run of a fault) selects by tag, and would leave that check out.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SPEC_FILE = /^suites\/.+\.spec\.ts$/;

test("every requirement a conformance test's checks judge is among its tags", () => {
  const bodies = readTestBodies(ROOT, (file) => SPEC_FILE.test(file));
  // the reader found the tags and the messages (a parser upgrade that finds none would pass vacuously)
  expect(bodies.filter((b) => b.tags !== null && b.tags.length > 0).length, 'tests with tags').toBeGreaterThan(150);
  expect(bodies.filter((b) => b.judged.length > 0).length, 'tests whose messages name a requirement').toBeGreaterThan(150);
  // Tags held in a variable are not read here (they are one of a few, chosen beside the test).
  const untagged = bodies.flatMap((b) => (b.tags === null ? [] : b.judged.filter((id) => !b.tags!.includes(id)).map((id) => `${b.file}:${b.line} ("${b.title}") judges ${id} but is tagged ${b.tags!.join(', ') || 'with nothing'}: add '@${id}'`)));
  expect(untagged, `${untagged.length} checks judge a requirement their test is not tagged with`).toEqual([]);
});
