import fc from 'fast-check';
import { test } from '../../harness/fixtures.ts';
import { checkProperty, propertySettings } from '../../harness/property.ts';
import { idempotencyCommands, runIdempotencyModel, type IdempotencyScenario } from '../../generators/idempotency-commands.ts';
import { apiSendPort, payloadConstraints, recordRun } from '../support/properties.ts';
import { smsNumber } from '../support/sends.ts';

// Section 4.6 rule 8 as a model: generated runs of sends, safe retries and unsafe retries over
// a few keys, each answer checked against what the model says the key must hold
// (generators/idempotency-commands.ts). Concurrent bursts are left to the standard-level run
// (idempotency.property.standard.spec.ts): "any other answer is 409" is the draft's, not the
// document's.

/** True when the scenario holds a concurrent burst (fast-check wraps each command in `cmd`). */
function hasBurst(scenario: IdempotencyScenario): boolean {
  return [...scenario].some((wrapped) => String((wrapped as { cmd?: unknown }).cmd ?? wrapped).startsWith('ConcurrentBurst'));
}

test.describe('4.6 rule 8, generated: idempotency against a model', () => {
  test('sends, safe retries and unsafe retries answer as the model of their keys says', { tag: ['@IDEM-001', '@IDEM-002', '@SEND-008'] }, async ({ api, target, knownNumbers }) => {
    const settings = propertySettings();
    const scenarios = idempotencyCommands({
      ...payloadConstraints(target, knownNumbers, smsNumber(knownNumbers)),
      maxCommands: 6,
      ...(settings.replayPath === undefined ? {} : { replayPath: settings.replayPath }),
    }).filter((scenario) => !hasBurst(scenario));
    const port = apiSendPort(api);
    // Each scenario mints its own keys (runIdempotencyModel), so scenarios share nothing and run several at a time.
    const property = fc.asyncProperty(scenarios, (scenario) => runIdempotencyModel(port, scenario));
    recordRun(await checkProperty(['IDEM-001', 'IDEM-002', 'SEND-008'], property, { settings, grep: '"answer as the model of their keys says"', independentCases: true }));
  });
});
