import { defineConfig } from '@playwright/test';
import { runSettings } from '../../../harness/settings.ts';

// A small run through the harness's own `test` and `expect` (harness/fixtures.ts), so the
// requirement each failed check judged travels as it does in a conformance run: recorded by
// the check, written as annotations, read by the reporter. test/harness/judgement.test.ts
// starts it in a child process; the catalogue is the reporter fixture suite's.
const out = process.env.FIXTURE_OUT ?? '../../../reports/out/judged';
// the run's settings, so its worker processes share one run folder (a stop outlives a restart)
runSettings();

export default defineConfig({
  testDir: '.',
  testMatch: '*.judged.ts',
  outputDir: `${out}/test-results`,
  workers: 1,
  retries: 0,
  reporter: [['../../../reports/reporter.ts', { outDir: out, catalogue: '../../reports/fixture-suite/requirements.yaml', target: { label: 'judged', profile: 'reference' } }]],
});
