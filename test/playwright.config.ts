import { defineConfig } from '@playwright/test';

// The project's own tests: the harness, generators, reference server and reporter. Conformance
// suites have their own config (../playwright.config.ts).
//
// Two projects. `unit` (npm run test:unit, in npm test): tests in isolation, as many at once as
// the machine has cores. `integration` (npm run test:integration, in .ci/run after npm test):
// the tests that run whole certifications, each starting a reference and a certify run (the
// command line's stops, preflight, plan, triggers, rate limits, signals, paths, init), a sharded
// conformance run, and the fault probes (a reference started per fault of faults/);
// they take minutes, and two of them at once on a 2-core machine fight for the cores their runs time.
// `npx playwright test -c test/playwright.config.ts` runs both.
const INTEGRATION = [
  'cli/base-url.test.ts',
  'cli/config-discovery.test.ts',
  'cli/init.test.ts',
  'cli/messages.test.ts',
  'cli/partial.test.ts',
  'cli/paths.test.ts',
  'cli/plan.test.ts',
  'cli/preflight.test.ts',
  'cli/rate-limit.test.ts',
  'cli/signals.test.ts',
  'cli/stops.test.ts',
  'cli/triggers.test.ts',
  'reference/faults.test.ts',
  'reports/shard.test.ts',
].map((file) => `**/${file}`);

/** CI's JUnit file, one per script: npm run test:integration writes its own beside the unit tests'. */
const junit = `../reports/out/${process.env.npm_lifecycle_event === 'test:integration' ? 'integration' : 'unit'}-junit.xml`;

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.test.ts',
  fullyParallel: true,
  forbidOnly: true,
  reporter: process.env.CI ? [['list'], ['junit', { outputFile: junit }]] : 'list',
  timeout: 60_000,
  // Every core: the unit tests are CPU-bound and independent (each makes its own temporary folders and ports).
  workers: '100%',
  projects: [
    { name: 'unit', testIgnore: INTEGRATION },
    { name: 'integration', testMatch: INTEGRATION, workers: 1 },
  ],
});
