// The bundled reference as a run's target: how it is started (one command line, whoever starts
// it), and how the global setup waits for one that certify started beside Playwright.
//
// certify starts it itself (cli/certify.ts) as soon as the settings are known, so its start
// (about 1.7 s: loading the server, opening a fresh database, seeding) overlaps Playwright's
// own start and the loading of the config; the global setup then waits for the fixtures file the
// reference writes once it listens. A bare `npx playwright test` has no certify around it:
// playwright.config.ts's webServer starts the same command.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { referenceDatabase, referenceFixturesFile, REPO_ROOT, type TargetSource } from './settings.ts';

type ReferenceSource = Extract<TargetSource, { kind: 'reference' }>;

/** How long the global setup waits for a reference certify started (it is usually up in 2 s). */
export const REFERENCE_START_TIMEOUT_MS = 60_000;

/** `node` arguments that start the bundled reference for a run, run from REPO_ROOT. */
export function referenceArgs(source: ReferenceSource): string[] {
  return [
    '--import', 'tsx', 'reference/main.ts',
    '--host', '127.0.0.1',
    '--port', String(source.port),
    '--db', referenceDatabase(source),
    // The harness's webhook receiver listens on loopback, which the reference refuses unless allowed.
    '--fresh', '--control', '--log-level', 'warn', '--allow-webhook-host', '127.0.0.1',
    // A stalled upstream (SEARCH-203) is given up after half a second instead of the default two.
    '--upstream-timeout', '0.5',
    // The suites fail client authentication on purpose, thousands of times at --deep: the
    // reference's per-minute token limits (sized for an exposed server, and tested in
    // test/reference/token-limits.test.ts) would make the run wait minutes for nothing.
    '--token-failures-per-source', '100000', '--token-failures-per-client', '100000', '--token-requests-per-minute', '100000',
    // Faults are only ever asked for by the kill matrix (cli/sensitivity.ts).
    ...(source.faults.length > 0 ? ['--faults', source.faults.join(',')] : []),
    '--fixtures-out', referenceFixturesFile(source),
  ];
}

/** The same, as the shell command Playwright's webServer runs. */
export function referenceCommand(source: ReferenceSource): string {
  return ['node', ...referenceArgs(source)].map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * Resolves once the reference certify started has written its fixtures file, which it does
 * after it listens. Throws when that takes longer than `timeoutMs` (certify stops the run
 * sooner, with the reference's own error, when the reference exits).
 */
export async function awaitReference(source: ReferenceSource, timeoutMs = REFERENCE_START_TIMEOUT_MS): Promise<void> {
  const file = referenceFixturesFile(source);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      JSON.parse(readFileSync(file, 'utf8'));
      return;
    } catch {
      // not written yet, or being written
    }
    if (Date.now() > deadline) {
      throw new Error(`the bundled reference did not start within ${timeoutMs / 1000} s: no ${file} (started by certify on port ${source.port}, from ${REPO_ROOT})`);
    }
    await sleep(20);
  }
}
