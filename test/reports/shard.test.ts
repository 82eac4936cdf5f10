// Sharding: two `--shard=i/2 --reporter=blob` runs merged by `playwright merge-reports` with
// the conformance reporter give the same verdicts as one unsharded run.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Report } from '../../reports/types.ts';
import { EXPECTED_VERDICTS, lastLine, runFixture, tempDir, verdicts } from './run-fixture.ts';

/** What must agree between runs: verdicts, reasons and which tests stand behind each. */
function essence(report: Report | undefined) {
  if (!report) throw new Error('no report');
  return report.requirements.map((r) => ({
    id: r.id,
    verdict: r.verdict,
    reasons: r.reasons,
    tests: r.tests.map((t) => `${t.file}:${t.line} ${t.outcome} ${t.attempts.map((a) => `${a.status}/${a.evidence.length}`).join(',')}`).sort(),
  }));
}

test('two shards merged with merge-reports give the unsharded verdicts', async () => {
  test.setTimeout(240_000); // five child runs: slow on a loaded machine
  const dir = tempDir();
  const shardDirs = [join(dir, 'blob-1'), join(dir, 'blob-2')];
  // the shards run as CI machines would: each writes its own blob report
  const [whole, partial, ...shards] = await Promise.all([
    runFixture(),
    runFixture({ args: ['--shard=1/2'] }),
    ...shardDirs.map((blob, i) => runFixture({ args: [`--shard=${i + 1}/2`, '--reporter=blob'], env: { PLAYWRIGHT_BLOB_OUTPUT_DIR: blob } })),
  ]);
  // each shard ran part of the suite, and together all of it
  const counts = shards.map((s, i) => {
    const m = new RegExp(`Running (\\d+) tests? using 1 worker, shard ${i + 1} of 2`).exec(s.stdout);
    expect(m, s.stdout).not.toBeNull();
    expect(s.report, 'a blob shard writes no conformance report').toBeUndefined();
    return Number(m![1]);
  });
  expect(counts.every((n) => n > 0 && n < 11)).toBe(true);
  expect(counts[0]! + counts[1]!).toBe(11);

  const merged = join(dir, 'all-blobs');
  mkdirSync(merged);
  for (const d of shardDirs) cpSync(d, merged, { recursive: true });
  expect(readdirSync(merged).sort()).toEqual(['report-1.zip', 'report-2.zip']);

  const run = await runFixture({ mergeFrom: merged });
  expect(run.code, run.stdout + run.stderr).toBe(1);
  expect(verdicts(run.report)).toEqual(EXPECTED_VERDICTS);
  expect(essence(run.report)).toEqual(essence(whole.report));
  expect(lastLine(run.stdout)).toBe(lastLine(whole.stdout));
  expect(run.report?.run.shard).toBeNull();
  // merged shards of a complete run are not narrowed by any filter (the fixture catalogue's
  // FIX-005 has no test at all, which every run of it reports, sharded or not)
  expect(run.report?.run.filters).toEqual([]);
  expect(run.report?.run.partial).toEqual(whole.report?.run.partial);
  expect(run.report?.run.partial).not.toContainEqual(expect.stringContaining('shard'));

  // a shard that reports directly says it is partial (and sign refuses it, see verify.test.ts)
  expect(partial.report?.run.shard).toEqual({ current: 1, total: 2 });
  expect(partial.report?.run.partial).toContain('shard 1/2');
  expect(partial.stdout).toContain('note: this report covers shard 1 of 2 only');
});
