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
  // One worker unless --workers: tests that change what others read take the run's lock alone
  // (harness/run-lock.ts). Files go to workers whole: with every test free to go anywhere, the
  // slow-delivery bench was no faster (bench/slow-target.ts; the exclusive tests set the pace).
  workers: settings.workers,
  fullyParallel: false,
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
