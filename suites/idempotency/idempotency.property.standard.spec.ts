import fc from 'fast-check';
import { test } from '../../harness/fixtures.ts';
import { checkProperty, propertySettings } from '../../harness/property.ts';
import { idempotencyCommands, runIdempotencyModel } from '../../generators/idempotency-commands.ts';
import { apiSendPort, payloadConstraints, recordRun } from '../support/properties.ts';
import { smsNumber } from '../support/sends.ts';

// The idempotency model with concurrent bursts (Idempotency-Key draft 2.6 and 2.7): n
// identical requests with one new key at once must queue one operation, every 2xx carrying
// its messageIds (IDEM-003, the document's) and every other answer 409 (IDEM-104, the
// draft's); the rest of the scenario keeps the document's checks, and a failure message names
// the requirement it breaks.

test.describe('Idempotency-Key draft 2.6 and 2.7, generated: concurrent requests against a model', () => {
  test('scenarios with concurrent bursts answer as the model of their keys says', { tag: ['@IDEM-104', '@IDEM-003'] }, async ({ api, target, knownNumbers }) => {
    const settings = propertySettings();
    const scenarios = idempotencyCommands({
      ...payloadConstraints(target, knownNumbers, smsNumber(knownNumbers)),
      maxCommands: 6,
      maxBurst: 8,
      ...(settings.replayPath === undefined ? {} : { replayPath: settings.replayPath }),
    });
    const port = apiSendPort(api);
    // Each scenario mints its own keys (runIdempotencyModel), so scenarios share nothing and run several at a time.
    const property = fc.asyncProperty(scenarios, (scenario) => runIdempotencyModel(port, scenario));
    recordRun(await checkProperty(['IDEM-104', 'IDEM-003'], property, { settings, grep: '"scenarios with concurrent bursts"', independentCases: true }));
  });
});
