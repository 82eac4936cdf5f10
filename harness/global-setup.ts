// Playwright's globalSetup for a conformance run: the preflight (harness/preflight.ts), after
// the bundled reference (if that is the target) has started (waiting here for one that certify
// started, harness/embedded-reference.ts) and before any test is loaded.
// A failure stops the run with the preflight's message; the reporter makes it a harness error.
// A target that declares its client webhooks (triggers.clientWebhooks, kind declared) gets the
// run's receiver for them here, in the runner process, for the whole run (harness/run-receiver.ts);
// the function returned stops it when the run ends. A run of several workers gets its lock here
// too (harness/run-lock.ts).
import type { FullConfig } from '@playwright/test';
import { awaitReference } from './embedded-reference.ts';
import { interferenceWatch, runStartedAt } from './interference.ts';
import { preflight } from './preflight.ts';
import { startRunLock } from './run-lock.ts';
import { startRunReceiver } from './run-receiver.ts';
import { savePrimaryIssuedEarly, saveTokenIssuedEarly } from './triggers.ts';
import { webhookRoundTrip } from './webhook-round-trip.ts';
import { loadRunTarget, ownFixtures, runSettings, targetOrigin } from './settings.ts';

export default async function globalSetup(config: FullConfig): Promise<(() => Promise<void>) | undefined> {
  const settings = runSettings();
  runStartedAt(settings.runDir);
  const { source } = settings.target;
  if (source.kind === 'reference' && source.startedBy === 'certify') await awaitReference(source);
  const target = loadRunTarget(settings);
  // The bundled reference runs from fixtures the harness wrote: what the preflight finds wrong there is the server's.
  const own = ownFixtures(source);
  const result = await preflight(target, { origin: targetOrigin(settings.target.source), ownFixtures: own });
  if (result.tokenIssuedEarly) saveTokenIssuedEarly(settings.runDir, result.tokenIssuedEarly);
  if (result.primaryIssuedEarly) savePrimaryIssuedEarly(settings.runDir, result.primaryIssuedEarly);
  const stops: Array<() => Promise<void>> = [];
  const watch = interferenceWatch(settings.runDir);
  if (target.triggers.clientWebhooks?.kind === 'declared') stops.push(await startRunReceiver(target, settings.runDir, watch));
  try {
    // Does the target reach the receiver at all? Checked once here, before any test waits for a callback.
    if (settings.expectsCallbacks) await webhookRoundTrip(target, result, { origin: targetOrigin(settings.target.source), runDir: settings.runDir, watch, ownFixtures: own });
  } catch (error) {
    for (const stop of stops) await stop();
    throw error;
  }
  if (!settings.output.quiet) {
    process.stdout.write(`preflight: ${result.checked.join('; ')}\n`);
    for (const note of result.notes) process.stdout.write(`preflight note: ${note}\n`);
  }
  // The workers Playwright runs (the settings', or a bare run's --workers): their fixtures lock through it.
  if (config.workers > 1) stops.push(await startRunLock(settings.runDir));
  if (stops.length === 0) return undefined;
  return async () => {
    for (const stop of stops) await stop();
  };
}
