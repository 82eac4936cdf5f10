// Playwright's globalSetup for a conformance run: the preflight (harness/preflight.ts), after
// the bundled reference (if that is the target) has started and before any test is loaded.
// A failure stops the run with the preflight's message; the reporter makes it a harness error.
import type { FullConfig } from '@playwright/test';
import { preflight } from './preflight.ts';
import { loadRunTarget, runSettings, targetOrigin } from './settings.ts';

export default async function globalSetup(_config: FullConfig): Promise<void> {
  const settings = runSettings();
  const result = await preflight(loadRunTarget(settings), { origin: targetOrigin(settings.target.source) });
  if (!settings.output.quiet) {
    process.stdout.write(`preflight: ${result.checked.join('; ')}\n`);
    for (const note of result.notes) process.stdout.write(`preflight note: ${note}\n`);
  }
}
