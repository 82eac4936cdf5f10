import { join } from 'node:path';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import type { ConformanceReporterOptions } from './reports/reporter.ts';
import { referenceCommand } from './harness/embedded-reference.ts';
import { installSourceMapsForTsx } from './harness/installed-source-maps.ts';
import { grepOf, runSettings, selectionFilters, type RunSettings } from './harness/settings.ts';

// An installed harness's suites are compiled by tsx: their tests and stacks keep their lines only
// through the maps tsx leaves (harness/installed-source-maps.ts). Before any test file loads.
installSourceMapsForTsx();

/**
 * The conformance run, from the run's settings (harness/settings.ts): `npm run certify` builds
 * them from its flags and the target config; a bare `npx playwright test` gets the defaults,
 * which certify the bundled reference server, started fresh (by certify, or else by the
 * webServer below) and read from the fixtures file it writes. Tests get the settings as the `runSettings` option fixture; the
 * reporter gets them as its options.
 */
const settings = runSettings();
const { source, description } = settings.target;
const grep = grepOf(settings.selection);

const reporterOptions: ConformanceReporterOptions = {
  outDir: settings.output.dir,
  target: description,
  strict: settings.strict,
  ...(settings.baseline !== null && { baseline: settings.baseline }),
  ...(settings.property.seed !== null && { seed: String(settings.property.seed) }),
  filters: selectionFilters(settings.selection),
  maxFailures: settings.selection.maxFailures,
};
const reporter: ReporterDescription[] = [
  // quiet (the kill matrix) keeps only the report and its summary, without a line per test
  ...(settings.output.quiet ? [] : [['list'] as ReporterDescription]),
  ...(settings.output.blobDir !== null ? [['blob', { outputDir: settings.output.blobDir }] as ReporterDescription] : []),
  ['./reports/reporter.ts', reporterOptions],
];

export default defineConfig<{}, { runSettings: RunSettings }>({
  testDir: 'suites',
  testMatch: '**/*.spec.ts',
  // As many workers as the run's settings say (certify picks them from the target and the config).
  // Each test locks the resources it touches (harness/run-lock.ts), so any test may go to any free
  // worker: a file's tests spread over the workers, and a test that has to wait for a resource
  // is one test, not a file.
  workers: settings.workers,
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  timeout: 60_000,
  // Playwright's scratch output goes with the run's, never into the harness (which may be an installed package).
  outputDir: join(settings.runDir, 'test-results'),
  ...(grep !== null && { grep }),
  ...(settings.selection.shard !== null && { shard: settings.selection.shard }),
  ...(settings.selection.maxFailures !== null && { maxFailures: settings.selection.maxFailures }),
  reporter,
  // the preflight: the run's own problems (credentials, URL, a server that is down) stop it here
  globalSetup: './harness/global-setup.ts',
  use: { runSettings: settings },
  // certify starts the bundled reference itself, beside Playwright (harness/embedded-reference.ts);
  // a bare `npx playwright test` has it started here.
  ...(source.kind === 'reference' && source.startedBy === 'webServer' && {
    webServer: {
      command: referenceCommand(source),
      url: `http://127.0.0.1:${source.port}/api/core/whoami`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  }),
});
