import { defineConfig } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTarget } from './harness/config.ts';

/**
 * The conformance run. With CONFORMANCE_CONFIG set it certifies that target; without it, it
 * starts the bundled reference server with a fresh database (webServer) and certifies that,
 * reading the target from the fixtures file the server writes. `npm run certify` sets these;
 * `npx playwright test` alone works too. Values are put in process.env so the workers, which
 * load this file again, agree with the runner.
 */
const embedded = !process.env.CONFORMANCE_CONFIG || process.env.CONFORMANCE_EMBEDDED === '1';
if (embedded && !process.env.CONFORMANCE_CONFIG) {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-'));
  process.env.CONFORMANCE_EMBEDDED = '1';
  process.env.CONFORMANCE_CONFIG = join(dir, 'fixtures.json');
  process.env.CONFORMANCE_REFERENCE_DB = join(dir, 'reference.db');
  process.env.CONFORMANCE_REFERENCE_PORT ??= String(20_000 + (process.pid % 30_000));
}
// The report names what it certified; `npm run certify` sets this, a bare `npx playwright test` gets it here.
if (embedded) {
  process.env.CONFORMANCE_TARGET_JSON ??= JSON.stringify({
    label: 'bundled reference server',
    baseUrl: `http://127.0.0.1:${process.env.CONFORMANCE_REFERENCE_PORT}`,
    profile: 'reference',
  });
} else if (!process.env.CONFORMANCE_TARGET_JSON) {
  const target = loadTarget(process.env.CONFORMANCE_CONFIG!);
  process.env.CONFORMANCE_TARGET_JSON = JSON.stringify({ label: target.label, baseUrl: target.baseUrl, profile: target.profile });
}
const port = process.env.CONFORMANCE_REFERENCE_PORT;
const outDir = process.env.CONFORMANCE_OUT ?? 'reports/out';

export default defineConfig({
  testDir: 'suites',
  testMatch: '**/*.spec.ts',
  // One worker by default: tests change number settings (and restore them); a vendor's
  // server is not a load-test target. Use --workers or sharding to go wider.
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  timeout: 60_000,
  outputDir: 'test-results',
  // CONFORMANCE_QUIET (the kill matrix) keeps only the report, without per-test lines.
  reporter: process.env.CONFORMANCE_QUIET
    ? [['./reports/reporter.ts', { outDir, progress: false }]]
    : [['list'], ['./reports/reporter.ts', { outDir }]],
  ...(embedded && {
    webServer: {
      command: [
        'node --import tsx reference/main.ts --host 127.0.0.1',
        `--port ${port}`,
        `--db ${process.env.CONFORMANCE_REFERENCE_DB}`,
        '--fresh --control --log-level warn',
        // Faults are only ever asked for by the kill matrix (cli/sensitivity.ts).
        ...(process.env.CONFORMANCE_REFERENCE_FAULTS ? [`--faults ${process.env.CONFORMANCE_REFERENCE_FAULTS}`] : []),
        `--fixtures-out ${process.env.CONFORMANCE_CONFIG}`,
      ].join(' '),
      url: `http://127.0.0.1:${port}/api/core/whoami`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
  }),
});
