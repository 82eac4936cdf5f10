import { expect, test } from '../../harness/fixtures.ts';
import { awaitCallback, deliverTo, outcomesSettled } from '../support/callbacks.ts';
import { BURST, deliveredRecipients, expectQueuedFor, messageIdsOf, send, smsNumber, smsPayload, sorted } from '../support/sends.ts';

// What the Idempotency-Key draft (draft-ietf-httpapi-idempotency-key-header-07) adds where
// rule 8 leaves the answers open. Level standard.

test.describe('Idempotency-Key draft 2.6: a retry after completion', () => {
  test('the safe retry returns the earlier status and body', { tag: ['@IDEM-101'] }, async ({ api, target, knownNumbers, newKey }) => {
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target, 2), 'replay-body');
    const first = await send(api, key, body);
    expectQueuedFor(first, 'IDEM-101', 'the first send');
    const replay = await send(api, key, body);
    expect(replay).toHaveStatus(first.status, 'IDEM-101: the replay has the status of the first answer');
    expect(replay.body, 'IDEM-101: the replay has the body of the first answer').toEqual(first.body);
  });

  // A later moment: the message's outcome reported. The draft returns the earlier result, not
  // the message's state now: a server that answers a replay from the message reports it settled.
  test("the safe retry after the message's outcome was reported returns the first answer's status and body", { tag: ['@IDEM-101'] }, async ({ api, target, knownNumbers, newKey, settings, webhooks }) => {
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('replay-after-outcome');
    await deliverTo(settings, numberId, channel.url, 'IDEM-101');
    const started = Date.now();
    const key = newKey();
    const body = smsPayload(numberId, deliveredRecipients(target), 'replay-after-outcome');
    const first = await send(api, key, body);
    const ids = expectQueuedFor(first, 'IDEM-101', 'the first send');
    for (const messageId of ids) await awaitCallback(channel, messageId, target.webhooks.timeoutMs, 'IDEM-101: precondition: the message is reported, so callbacks reach the receiver');
    // Its outcome reported and taken in (the final status, where the target declares them).
    await outcomesSettled(channel, target, ids, started, 'IDEM-101');
    const replay = await send(api, key, body);
    expect(replay).toHaveStatus(first.status, "IDEM-101: the retry after the message's outcome was reported has the first answer's status");
    expect(replay.body, "IDEM-101: the retry after the message's outcome was reported has the first answer's body, not the message's state now").toEqual(first.body);
  });

  test('the safe retry returns the earlier result even after the sendFrom number lost its campaignregId', { tag: ['@IDEM-101'] }, async ({ api, target, knownNumbers, settings, newKey }) => {
    // The draft returns the earlier result, not a new run of the checks: a retry is answered
    // from the key's record, whatever state changed since (here, rule 5's registration).
    const sendFrom = smsNumber(knownNumbers);
    const key = newKey();
    const body = smsPayload(sendFrom, deliveredRecipients(target), 'replay-after-change');
    const first = await send(api, key, body);
    const ids = expectQueuedFor(first, 'IDEM-101', 'the first send');
    const cleared = await settings.change(sendFrom, { campaignregId: null });
    expect(cleared).toSucceed('IDEM-101: precondition: clearing campaignregId through the update route');
    const replay = await send(api, key, body);
    expect(replay).toHaveStatus(first.status, 'IDEM-101: the retry after the number lost its campaignregId has the status of the first answer, not that of a new check');
    expect(sorted(messageIdsOf(replay)), 'IDEM-101: the retry after the number lost its campaignregId reports the first messageIds').toEqual(sorted(ids));
  });
});

test.describe('Idempotency-Key draft 2.7: the unsafe retry', () => {
  test('the same key with a changed payload is answered 409 or 422', { tag: ['@IDEM-102'] }, async ({ api, target, knownNumbers, newKey }) => {
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'unsafe-status');
    expectQueuedFor(await send(api, key, body), 'IDEM-102', 'the first send');
    const changed = await send(api, key, { ...body, text: `${body.text} (changed)` });
    expect([409, 422], `IDEM-102: an unsafe retry is 409 or 422, got ${changed.describe()} ${changed.text.slice(0, 200)}`).toContain(changed.status);
  });
});

test.describe('Idempotency-Key draft 2.1 and 2.7: an empty key is no key', () => {
  for (const [what, value] of [
    ['empty', ''],
    ['only spaces', '   '],
  ] as const) {
    test(`a send whose Idempotency-Key header is ${what} is 400 INVALID_REQUEST, as one without the header`, { tag: ['@IDEM-106'] }, async ({ api, target, knownNumbers }) => {
      // The field value is empty once RFC 9110 5.5 strips the spaces around it, and an empty
      // sf-string does not parse (RFC 8941 4.2): the request carries no key, which rule 1 answers.
      const res = await send(api, value, smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), `empty-key-${what}`));
      expect(res.request.headers['idempotency-key'], 'IDEM-106: precondition: the request carried the header with the value given').toBe(value);
      expect(res).toBeCoreError(400, 'INVALID_REQUEST', `IDEM-106: a send with an Idempotency-Key header that is ${what} carries no key, and is 400 INVALID_REQUEST`);
    });
  }
});

test.describe('Idempotency-Key draft 2.6 and 2.7: concurrent requests with one key', () => {
  test('a send arriving while the first with its key is in flight is answered 409 or with the replay', { tag: ['@IDEM-104'] }, async ({ api, target, knownNumbers, newKey }) => {
    // Whether one operation was queued is the document's rule (IDEM-003, idempotency.spec.ts);
    // this reads only how the duplicates are answered.
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'burst-answers');
    const answers = await Promise.all(Array.from({ length: BURST }, () => send(api, key, body)));
    const succeeded = answers.filter((res) => res.status >= 200 && res.status < 300);
    expect(succeeded.length, `IDEM-104: at least one of the ${BURST} requests is accepted; statuses ${answers.map((r) => r.status).join(', ')}`).toBeGreaterThan(0);
    for (const res of answers.filter((r) => !succeeded.includes(r))) {
      expect(res.status, `IDEM-104: a request that is not a replay is 409 while the first is in flight; got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(409);
    }
  });
});
