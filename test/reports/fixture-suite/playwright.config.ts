import { defineConfig } from '@playwright/test';

// A tiny conformance run for the reporter's own tests (test/reports/*.test.ts start it in a
// child process). The parent passes the output folder in FIXTURE_OUT and the reporter's
// options (target, strict, baseline…) as JSON in FIXTURE_REPORTER, as playwright.config.ts
// passes a real run's settings.
const out = process.env.FIXTURE_OUT ?? '../../../reports/out/fixture';
const options = JSON.parse(process.env.FIXTURE_REPORTER ?? '{}') as object;

export default defineConfig({
  testDir: '.',
  testMatch: '*.fixture.ts',
  // parallel runs of this suite must not clean each other's artefacts
  outputDir: `${out}/test-results`,
  fullyParallel: true,
  workers: 1, // tiny tests: a second worker process costs more than it saves
  retries: 0,
  reporter: [['../../../reports/reporter.ts', { outDir: out, catalogue: './requirements.yaml', ...options }]],
});
