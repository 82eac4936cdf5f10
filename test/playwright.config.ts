import { defineConfig } from '@playwright/test';

// The project's own tests: the harness, generators, reference server and reporter. Conformance
// suites have their own config (../playwright.config.ts).
//
// Three projects. `unit` (npm run test:unit, in npm test): tests in isolation, as many at once as
// the machine has cores. `integration` (npm run test:integration, in .ci/run after npm test):
// the tests that run whole certifications, each starting a reference and a certify run (the
// command line's stops, preflight, plan, triggers, rate limits, signals, paths, init) and a sharded
// conformance run; they take minutes, and two of them at once on a 2-core machine fight for the
// cores their runs time. `probes` (npm run test:probes, in .ci/run): the fault probes, a
// reference built in the test's process per fault of faults/, as many at once as there are cores
// (each is CPU-bound: a server built and seeded, tokens hashed; 419 took 4.3 min on two workers).
// `npx playwright test -c test/playwright.config.ts` runs all three.
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
  'reports/shard.test.ts',
].map((file) => `**/${file}`);

const PROBES = ['**/reference/faults.test.ts'];

/** CI's JUnit file, one per script: npm run test:integration and test:probes write their own beside the unit tests'. */
const SCRIPT_JUNIT: Readonly<Record<string, string>> = { 'test:integration': 'integration', 'test:probes': 'probes' };
const junit = `../reports/out/${SCRIPT_JUNIT[process.env.npm_lifecycle_event ?? ''] ?? 'unit'}-junit.xml`;

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
    { name: 'unit', testIgnore: [...INTEGRATION, ...PROBES] },
    { name: 'integration', testMatch: INTEGRATION, workers: 1 },
    { name: 'probes', testMatch: PROBES },
  ],
});
