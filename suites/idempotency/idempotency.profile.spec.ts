import { expect, profileOnly, test } from '../../harness/fixtures.ts';
import { BURST, deliveredRecipients, expectQueued, expectQueuedFor, messageIdsOf, send, smsNumber, smsPayload, sorted } from '../support/sends.ts';

// The reference profile's answers for rule 8 (spec/profile.yaml send.unsafeRetry, send.inFlight, send.replay).
test.beforeEach(({ target }) => profileOnly(target));

test.describe('profile send.unsafeRetry', () => {
  test('an unsafe retry is 409 CONFLICT', { tag: ['@IDEM-201'] }, async ({ api, target, knownNumbers, newKey }) => {
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'conflict');
    expectQueuedFor(await send(api, key, body), 'IDEM-201', 'the first send');
    const changed = await send(api, key, { ...body, text: `${body.text} (changed)` });
    expect(changed).toBeCoreError(409, 'CONFLICT', 'IDEM-201: the same key with a changed payload is 409 CONFLICT');
  });
});

test.describe('profile send.inFlight', () => {
  test('identical sends with one key that arrive together all get the first answer, none 409', { tag: ['@IDEM-204'] }, async ({ api, target, knownNumbers, newKey }) => {
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'in-flight-wait');
    const answers = await Promise.all(Array.from({ length: BURST }, () => send(api, key, body)));
    const statuses = answers.map((r) => r.status);
    for (const res of answers) expect(res.status, `IDEM-204: each of ${BURST} identical sends under one key waits for the first and is answered 2xx; statuses ${statuses.join(', ')}`).toBe(202);
    const ids = sorted(messageIdsOf(answers[0]!));
    for (const res of answers) expect(sorted(messageIdsOf(res)), 'IDEM-204: every answer names the first send\'s messageIds').toEqual(ids);
  });
});

test.describe('profile send.replay', () => {
  test('a replay carries Idempotent-Replayed: true and the first answer does not', { tag: ['@IDEM-202'] }, async ({ api, target, knownNumbers, newKey }) => {
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'replayed-header');
    const first = await send(api, key, body);
    expectQueuedFor(first, 'IDEM-202', 'the first send');
    expect(first.headers['idempotent-replayed'], 'IDEM-202: a first answer carries no Idempotent-Replayed header').toBeUndefined();
    const replay = await send(api, key, body);
    expect(replay.headers['idempotent-replayed'], 'IDEM-202: a replay carries Idempotent-Replayed: true').toBe('true');
  });

  test('a corrected send after a rejection is a first answer, not a replay', { tag: ['@IDEM-202', '@IDEM-203'] }, async ({ api, target, knownNumbers, newKey }) => {
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'replayed-after-reject');
    const rejected = await send(api, key, { ...body, to: [] });
    expect(rejected).toBeCoreError(400, 'INVALID_REQUEST', 'IDEM-202: precondition: an empty to array is rejected');
    expect(rejected.headers['idempotent-replayed'], 'IDEM-202: a rejection is a first answer').toBeUndefined();
    const corrected = await send(api, key, body);
    expectQueued(corrected, 'IDEM-203: the corrected send after a rejection, under its key, is a first attempt');
    expect(corrected.headers['idempotent-replayed'], 'IDEM-202: the corrected send is a first answer, with no Idempotent-Replayed header').toBeUndefined();
  });
});

test.describe('profile errors.format: one Idempotency-Key', () => {
  // Two header lines are two keys, whatever the case of their names (RFC 9110 5.1): a server that
  // joins them (Node writes "a, b") or takes the first cannot tell which operation was meant.
  test('a send with the Idempotency-Key header given twice is 400 INVALID_REQUEST and queues nothing', { tag: ['@IDEM-205'] }, async ({ api, target, knownNumbers, newKey }) => {
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'two-keys');
    const res = await api.call('send', { json: body, headers: { 'Idempotency-Key': newKey(), 'idempotency-key': newKey() }, headerNamesAsGiven: true });
    expect(res).toBeCoreError(400, 'INVALID_REQUEST', 'IDEM-205: a send with two Idempotency-Key header lines');
    expect(messageIdsOf(res), 'IDEM-205: no message is reported accepted').toEqual([]);
  });
});
