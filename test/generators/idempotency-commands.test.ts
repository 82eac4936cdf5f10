import assert from 'node:assert/strict';
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { changePayload, idempotencyCommands, PAYLOAD_CHANGES, runIdempotencyModel } from '../../generators/idempotency-commands.ts';
import { validSendPayload } from '../../generators/valid-send-payload.ts';
import { checkProperty, PropertyFailure, type PropertySettings } from '../../harness/property.ts';
import { FakeSendServer, type FakeOptions } from './fake-send-server.ts';
import { brokenRules } from './send-rules.ts';

const IDS = ['IDEM-001', 'IDEM-002', 'IDEM-003', 'IDEM-104'];

/** Run the model against a fresh fake per case; resolve with the failure, if any. */
async function modelAgainst(options: FakeOptions, settings: PropertySettings): Promise<PropertyFailure | undefined> {
  const property = fc.asyncProperty(idempotencyCommands({ maxRecipients: 2 }), (commands) => runIdempotencyModel(new FakeSendServer(options), commands));
  try {
    await checkProperty(IDS, property, { settings });
    return undefined;
  } catch (error) {
    if (error instanceof PropertyFailure) return error;
    throw error;
  }
}

const FIXED: PropertySettings = { depth: 'quick', numRuns: 100, seed: 20240501 };
const RANDOM: PropertySettings = { depth: 'quick', numRuns: 100 };

test('a correct server passes, whether it waits for or refuses a request in flight', async () => {
  expect((await modelAgainst({ countable: true }, RANDOM))?.message).toBeUndefined();
  expect((await modelAgainst({ countable: true, inFlight: 'conflict' }, RANDOM))?.message).toBeUndefined();
});

test('a server that creates a new message on a safe retry fails IDEM-001', async () => {
  const failure = await modelAgainst({ flaws: ['replay-creates-new'] }, FIXED);
  expect(failure?.message).toMatch(/^Failure:\n  IDEM-001: /m);
});

test('a server that accepts a changed payload under a used key fails IDEM-002', async () => {
  const failure = await modelAgainst({ flaws: ['accepts-changed-payload'] }, FIXED);
  expect(failure?.message).toMatch(/^Failure:\n  IDEM-002: /m);
});

test('a server that races on one key in a burst fails IDEM-003', async () => {
  const failure = await modelAgainst({ flaws: ['racy-burst'] }, FIXED);
  expect(failure?.message).toMatch(/^Failure:\n  IDEM-003: /m);
});

test('a duplicate hidden behind a stored answer shows only through the creation count', async () => {
  expect(await modelAgainst({ flaws: ['hidden-duplicate'] }, FIXED)).toBeUndefined();
  const failure = await modelAgainst({ flaws: ['hidden-duplicate'], countable: true }, FIXED);
  expect(failure?.message).toMatch(/^Failure:\n  IDEM-001: the target has created/m);
});

test('a failure shows the scenario as requests, shrunk, and replays from seed, path and replayPath', async () => {
  const failure = await modelAgainst({ flaws: ['accepts-changed-payload'] }, FIXED);
  if (failure === undefined) throw new Error('expected a failure');
  // Shrunk to the two requests that matter: a send, then the changed replay under its key.
  expect(failure.requests.map((r) => r.headers['Idempotency-Key'])).toEqual(['<key k0>', '<key k0>']);
  expect(failure.message).toContain('POST /api/core/messages/send');
  expect(failure.replayCommand).toMatch(/--replay-path '[^']+'/);

  const replayPath = /--replay-path '([^']+)'/.exec(failure.replayCommand)?.[1];
  const replay = fc.asyncProperty(idempotencyCommands({ maxRecipients: 2, ...(replayPath === undefined ? {} : { replayPath }) }), (commands) =>
    runIdempotencyModel(new FakeSendServer({ flaws: ['accepts-changed-payload'] }), commands),
  );
  const again = await checkProperty(IDS, replay, { settings: { depth: 'quick', numRuns: 100, seed: failure.seed, ...(failure.path === null ? {} : { path: failure.path }) } }).then(
    () => undefined,
    (error: unknown) => error as PropertyFailure,
  );
  expect(again?.requests).toEqual(failure.requests);
});

test('a changed payload is different and still valid', () => {
  fc.assert(
    fc.property(validSendPayload({ maxRecipients: 3 }), fc.constantFrom(...PAYLOAD_CHANGES), (payload, change) => {
      const changed = changePayload(payload, change);
      assert.notEqual(JSON.stringify(changed), JSON.stringify(payload));
      assert.deepEqual(brokenRules({ ...changed }, { 'Idempotency-Key': 'k' }, { sendable: ['num_01'] }), []);
    }),
    { numRuns: 300 },
  );
});

test('kinds restrict the commands a scenario is made of', () => {
  const printed = fc.sample(idempotencyCommands({ kinds: ['Send', 'ReplaySame'] }), 100).flatMap((scenario) => [...scenario].map(String));
  expect(printed.some((command) => command.startsWith('ReplaySame'))).toBe(true);
  expect(printed.every((command) => /^(Send|ReplaySame)\(/.test(command))).toBe(true);
  expect(() => idempotencyCommands({ kinds: ['ReplaySame'] })).toThrow(/no key is ever minted/);
});
