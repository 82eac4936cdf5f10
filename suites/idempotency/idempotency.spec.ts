import { answerClass, isRequestDefectAnswer } from '../../harness/answer-classes.ts';
import { tokenRequest } from '../../harness/basic-auth.ts';
import { expect, notTestable, numberResource, test } from '../../harness/fixtures.ts';
import type { ReceivedCallback } from '../../harness/webhook-receiver.ts';
import { awaitCallback, deliverTo, expectNoStrayCallbacks, outcomesSettled, quietPeriod } from '../support/callbacks.ts';
import {
  BURST,
  deliveredRecipients,
  expectQueued,
  expectQueuedFor,
  externalRef,
  messageIdsOf,
  NO_SECOND_SMS_NUMBER,
  secondSmsNumber,
  send,
  sendableNumberOf,
  smsNumber,
  smsPayload,
  sorted,
} from '../support/sends.ts';

// Section 4.6 rule 8 and section 7.3: the same key with the same payload is the safe retry;
// the same key with a changed payload is an unsafe retry. The document shows neither the
// status of a replay nor of an unsafe retry, so a replay is any 2xx carrying the same
// messageIds and an unsafe retry is anything but a 2xx (the standard and the profile fix more:
// idempotency.standard.spec.ts, idempotency.profile.spec.ts).

test.describe('4.6 rule 8: the safe retry', () => {
  test('a retry with the same key and payload answers the same messageIds', { tag: ['@IDEM-001'] }, async ({ api, target, knownNumbers, newKey }) => {
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target, 2), 'safe-retry');
    const first = expectQueuedFor(await send(api, key, body), 'IDEM-001', 'the first send');
    const retry = await send(api, key, body);
    expect(retry).toSucceed('IDEM-001: the safe retry succeeds as the first did');
    expect(sorted(messageIdsOf(retry)), 'IDEM-001: the safe retry reports the same messageIds, so nothing new was queued').toEqual(sorted(first));
  });

  // A later moment: the retry comes after the sendFrom number lost its campaignregId. The first
  // attempt was accepted, so its outcome is the retry's (rule 8: it is the same operation): a
  // server that runs rule 5 again answers 400, and a client that retried after a timeout is told
  // its message was refused when it was queued.
  test('a retry with the same key and payload after the sendFrom number lost its campaignregId answers the same messageIds', { tag: ['@IDEM-001'] }, async ({ api, target, knownNumbers, settings, newKey }) => {
    const sendFrom = smsNumber(knownNumbers);
    const key = newKey();
    const body = smsPayload(sendFrom, deliveredRecipients(target), 'safe-retry-after-change');
    const first = expectQueuedFor(await send(api, key, body), 'IDEM-001', 'the first send');
    const cleared = await settings.change(sendFrom, { campaignregId: null });
    if (cleared.status < 200 || cleared.status >= 300) notTestable(`the target refused to clear the campaignregId of ${sendFrom} (${cleared.status})`);
    const retry = await send(api, key, body);
    expect(retry).toSucceed('IDEM-001: the safe retry after the number lost its campaignregId succeeds as the first did');
    expect(sorted(messageIdsOf(retry)), 'IDEM-001: the safe retry after the number lost its campaignregId reports the first messageIds').toEqual(sorted(first));
  });

  // The same later moment after each other change of the sendFrom number's settings (its
  // delivery or inbound override set, MMS turned over, SMS turned off): none of them makes the
  // retry another operation. A server that drops a number's keys when its settings change is
  // right after the change the test above makes only if that one happens to be checked.
  test("a retry with the same key and payload after any other change of the sendFrom number's settings answers the same messageIds", { tag: ['@IDEM-001'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const sendFrom = smsNumber(knownNumbers);
    const record = knownNumbers.primary.find((n) => n.numberId === sendFrom);
    const changes: Array<[string, Record<string, unknown>]> = [
      ['its webhookDeliveryOverride set', { webhookDeliveryOverride: webhooks.channel('idem-after-delivery-override').url }],
      ['its webhookInboundOverride set', { webhookInboundOverride: webhooks.channel('idem-after-inbound-override').url }],
      [`its mmsEnabled turned ${record?.mmsEnabled === true ? 'off' : 'on'}`, { mmsEnabled: record?.mmsEnabled !== true }],
      ['its smsEnabled turned off', { smsEnabled: false }],
    ];
    for (const [what, change] of changes) {
      const key = newKey();
      const body = smsPayload(sendFrom, deliveredRecipients(target), 'safe-retry-after-setting');
      const first = expectQueuedFor(await send(api, key, body), 'IDEM-001', `the first send, before ${what}`);
      const changed = await settings.change(sendFrom, change);
      if (changed.status < 200 || changed.status >= 300) test.info().annotations.push({ type: 'note', description: `the target refused the update of ${sendFrom} with ${JSON.stringify(change)} (${changed.status}): the retry after ${what} is not tried` });
      const retry = changed.status >= 200 && changed.status < 300 ? await send(api, key, body) : undefined;
      if (retry !== undefined) expect.soft(retry.status < 300 ? sorted(messageIdsOf(retry)) : retry.status, `IDEM-001: the safe retry after ${what} reports the first messageIds (answered ${retry.status} ${retry.text.slice(0, 160)})`).toEqual(sorted(first));
      await settings.restore();
    }
  });

  test('several retries with the same key and payload all answer the first messageIds', { tag: ['@IDEM-001'] }, async ({ api, target, knownNumbers, newKey }) => {
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'safe-retries');
    const first = expectQueuedFor(await send(api, key, body), 'IDEM-001', 'the first send');
    for (let attempt = 2; attempt <= 4; attempt++) {
      const retry = await send(api, key, body);
      expect(retry).toSucceed(`IDEM-001: retry ${attempt} succeeds`);
      expect(sorted(messageIdsOf(retry)), `IDEM-001: retry ${attempt} reports the first messageIds`).toEqual(sorted(first));
    }
  });

  test('the same payload under a new key is a new operation', { tag: ['@IDEM-001'] }, async ({ api, target, knownNumbers, newKey }) => {
    // The key, not the payload, identifies the operation: without this, "same messageIds on
    // retry" could come from a server that de-duplicates payloads and ignores keys.
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'same-payload-new-key');
    const first = expectQueuedFor(await send(api, newKey(), body), 'IDEM-001', 'the first send');
    const second = expectQueued(await send(api, newKey(), body), 'IDEM-001: the same payload under another key');
    expect(second.filter((id) => first.includes(id)), 'IDEM-001: a new key queues a new message').toEqual([]);
  });
});

// "Queues nothing new": the same messageIds in the answer do not prove it, since a server may
// queue the message again under its old messageId, and each queueing is reported by webhook
// (rule 7). How many events a message gets is not shown (a status before the final one is
// possible), so the check is a comparison: a message retried safely gets no more distinct
// events (by webhook-id, or by body where the server sends none) than one sent once to the
// same recipient from the same number, once both are reported and a quiet period has passed.
test.describe('4.6 rule 8: the safe retry queues nothing new', () => {
  test('a message retried safely is reported by no more delivery events than one sent once', { tag: ['@IDEM-001', '@IDEM-101'] }, async ({ api, target, knownNumbers, newKey, settings, webhooks }) => {
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('safe-retry-events');
    await deliverTo(settings, numberId, channel.url, 'IDEM-001');
    const started = Date.now();
    // A message that is delivered, and where the target declares one, a message that fails: a
    // server that keeps the key of a send whose message went through, and frees it (or queues
    // the send again) once its message failed, is right on the first.
    const failing = target.triggers.failedDelivery?.recipients[0];
    const outcomes = [['delivered', deliveredRecipients(target)], ...(failing ? [['failed', [failing]] as const] : [])] as const;
    const cases = [];
    for (const [outcome, to] of outcomes) {
      const once = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, [...to], `sent-once-${outcome}`)), 'IDEM-001', `the ${outcome} message sent once`);
      const key = newKey();
      const body = smsPayload(numberId, [...to], `retried-${outcome}`);
      const answer = await send(api, key, body);
      const retried = expectQueuedFor(answer, 'IDEM-001', `the ${outcome} message retried`);
      for (let attempt = 2; attempt <= 4; attempt++) {
        const retry = await send(api, key, body);
        expect(retry).toSucceed(`IDEM-001: retry ${attempt} of the ${outcome} message succeeds`);
        expect(sorted(messageIdsOf(retry)), `IDEM-001: retry ${attempt} of the ${outcome} message reports the first messageIds`).toEqual(sorted(retried));
      }
      cases.push({ outcome, once, key, body, retried, answer });
    }
    for (const { once, retried } of cases) {
      for (const messageId of [...once, ...retried]) await awaitCallback(channel, messageId, target.webhooks.timeoutMs, 'IDEM-001: precondition: both messages are reported, so callbacks reach the receiver');
    }
    // A later moment: the outcome reported and taken in (the final status, where the target
    // declares them), the key still names the send. A server that forgets a key once its
    // message is settled, or when the receiver's answer to its final callback arrives, queues it
    // again here.
    await outcomesSettled(channel, target, cases.flatMap((c) => c.retried), started, 'IDEM-001');
    for (const { outcome, key, body, retried, answer } of cases) {
      const late = await send(api, key, body);
      expect(late).toSucceed(`IDEM-001: a retry of the ${outcome} message after its outcome was reported succeeds`);
      expect(sorted(messageIdsOf(late)), `IDEM-001: a retry of the ${outcome} message after its outcome was reported still answers the first messageIds`).toEqual(sorted(retried));
      // The earlier result itself (the Idempotency-Key draft): the outcome since reported changes
      // nothing in it. A server that edits its stored answer (a failed message moved into errors)
      // answers the retry with another body.
      expect.soft(late.status, `IDEM-101: a retry of the ${outcome} message after its outcome was reported has the first answer's status`).toBe(answer.status);
      expect.soft(late.body, `IDEM-101: a retry of the ${outcome} message after its outcome was reported has the first answer's body`).toEqual(answer.body);
    }
    await quietPeriod(Date.now() - started);
    const eventsOf = (ids: string[]): ReceivedCallback[] => channel.unique().filter((c) => ids.some((id) => c.text.includes(id)));
    for (const { outcome, once, retried } of cases) {
      const [onceEvents, retriedEvents] = [eventsOf(once), eventsOf(retried)];
      expect(
        retriedEvents.length,
        `IDEM-001: the ${outcome} message retried 4 times got ${retriedEvents.length} distinct delivery events, the one sent once ${onceEvents.length}: a retry queued it again\n  retried: ${retriedEvents.map((c) => `${c.headers['webhook-id'] ?? ''} ${c.text.slice(0, 160)}`).join('\n           ')}`,
      ).toBeLessThanOrEqual(onceEvents.length);
    }
  });
});

// Each change makes a different operation; reusing the key for it must not send it. Keys are
// the client's, not the number's: a send from another number of the same client under the key is
// a changed payload like any other. A change that needs what the target lacks gives undefined.
type Change = (body: Record<string, unknown>, having: { delivered: string[]; otherNumber: string | undefined }) => Record<string, unknown> | undefined;
const changes: Array<[string, Change]> = [
  ['a different text', (body) => ({ ...body, text: `${body.text} (changed)` })],
  // Whitespace inside a string is content, not JSON's insignificant whitespace: a server that
  // fingerprints the body with its spaces stripped takes this for the same payload.
  ['a text that differs only in a space inside it', (body) => ({ ...body, text: String(body.text).replace(' ', '') })],
  ['a different recipient', (body, { delivered }) => ({ ...body, to: [delivered[1]] })],
  ['an added recipient', (body, { delivered }) => ({ ...body, to: [delivered[0], delivered[1]] })],
  ['a different externalReference', (body) => ({ ...body, externalReference: externalRef('changed') })],
  ['a different sendFrom of the same client', (body, { otherNumber }) => (otherNumber === undefined ? undefined : { ...body, sendFrom: otherNumber })],
  // The messageType is the payload too: an SMS's body sent again as an MMS (which then lacks its
  // media, so it is refused either way). A server that looks the key up before it validates,
  // with a fingerprint that leaves the type out, replays the SMS.
  ['the messageType changed (MMS, the rest as it was)', (body) => ({ ...body, messageType: 'MMS' })],
  // A changed payload that is invalid as well: refused either way, and still nothing changes
  // under the key. A server that drops the key's record while refusing it queues the original
  // payload again on its next retry.
  ['a payload changed into an invalid one (its externalReference left out)', (body) => Object.fromEntries(Object.entries(body).filter(([name]) => name !== 'externalReference'))],
  ['a payload changed into an invalid one (an E.164 number as sendFrom)', (body, { delivered }) => ({ ...body, sendFrom: delivered[0] })],
];

// Siblings of the change of one space: a text is its characters, so a fingerprint that
// normalises it (collapses or trims its spaces, folds its case) takes each of these for the
// same payload. Each goes out on a key of its own, all at once.
const textSiblings: Array<[string, (text: string) => string]> = [
  ['a space doubled', (text) => text.replace(' ', '  ')],
  ['a trailing space', (text) => `${text} `],
  ['a leading space', (text) => ` ${text}`],
  ['a tab for a space', (text) => text.replace(' ', '\t')],
  ['its letters in upper case', (text) => text.toUpperCase()],
];

// Another spelling of the same characters to a reader, another string to the document: the
// payload is JSON, and JSON compares strings code point by code point (RFC 8259 8.3). A server
// that normalises text before it fingerprints it takes these for the first payload.
const unicodeSiblings: Array<[string, (text: string) => string]> = [
  ['an accented letter decomposed (NFD)', (text) => text.normalize('NFD')],
  ['a digit written full-width (NFKC folds it)', (text) => text.replace('1', '\uFF11')],
];

test.describe('4.6 rule 8: the unsafe retry', () => {
  // The same for the externalReference, the caller's own key (4.6 table): a string, compared as
  // written; a server that folds its case or trims it takes "Order-1" and "ORDER-1" for one.
  for (const field of ['text', 'externalReference'] as const) {
    test(`reusing a key with the ${field} changed only in its spacing, letter case${field === 'text' ? ' or Unicode spelling' : ''} is rejected and queues nothing`, { tag: ['@IDEM-002'] }, async ({ api, target, knownNumbers, newKey }) => {
      const [recipient] = deliveredRecipients(target);
      await Promise.all(
        [...textSiblings, ...(field === 'text' ? unicodeSiblings : [])].map(async ([change, changeText]) => {
          const key = newKey();
          const sms = smsPayload(smsNumber(knownNumbers), [recipient!], `unsafe-${field}`);
          // A text with a precomposed accented letter and a digit, for the Unicode siblings to respell.
          const body = field === 'text' ? { ...sms, text: `${sms.text} Caf\u00e9 1` } : sms;
          const changedBody = { ...body, [field]: changeText(field === 'externalReference' ? `Order ${body.externalReference}` : String(body.text)) };
          const original = field === 'externalReference' ? { ...body, externalReference: `Order ${body.externalReference}` } : body;
          const first = expectQueuedFor(await send(api, key, original), 'IDEM-002', 'the first send');
          const changed = await send(api, key, changedBody);
          expect(changed).toBeRefusedAsUnsafeRetry(`IDEM-002: the same key with the ${field} changed by ${change} is refused as a request defect or 409 CONFLICT, never a 2xx`);
          const replay = await send(api, key, original);
          expect(sorted(messageIdsOf(replay)), `IDEM-002: after the unsafe retry with the ${field} changed by ${change}, the original payload still replays its first send`).toEqual(sorted(first));
        }),
      );
    });
  }

  for (const [change, changeIt] of changes) {
    test(`reusing a key with ${change} is rejected and queues nothing`, { tag: ['@IDEM-002'] }, async ({ api, target, knownNumbers, newKey }) => {
      const delivered = deliveredRecipients(target, 2);
      const key = newKey();
      const body = smsPayload(smsNumber(knownNumbers), [delivered[0]!], 'unsafe-retry');
      const changedBody = changeIt({ ...body }, { delivered, otherNumber: secondSmsNumber(knownNumbers) });
      if (!changedBody) notTestable(NO_SECOND_SMS_NUMBER);
      const first = expectQueuedFor(await send(api, key, body), 'IDEM-002', 'the first send');
      const changed = await send(api, key, changedBody);
      expect(changed).not.toSucceed(`IDEM-002: the same key with ${change} is an unsafe retry, never a 2xx`);
      expect(changed).toBeRefusedAsUnsafeRetry(`IDEM-002: the unsafe retry is refused as a request defect or 409 CONFLICT`);
      // Nothing changed under the key: the original payload still replays its first outcome.
      const replay = await send(api, key, body);
      expect(replay).toSucceed('IDEM-002: after the unsafe retry, the original payload still replays');
      expect(sorted(messageIdsOf(replay)), 'IDEM-002: the unsafe retry queued nothing and changed nothing under the key').toEqual(sorted(first));
    });
  }

  // Where in the text the change is: a text longer than one SMS segment (160 GSM-7 characters),
  // changed only in its last character, past the first segment. A server that fingerprints the
  // first segment, or any prefix, is right on every change near the start. A target that takes
  // no text this long (the document shows no limit; a refusal is a request defect, SEND-203's
  // profile names the reference's) has no such payload to retry: the refusal is all there is.
  test('reusing a key with a text longer than one SMS segment changed only in its last character is rejected and queues nothing', { tag: ['@IDEM-002'] }, async ({ api, target, knownNumbers, newKey }) => {
    const [recipient] = deliveredRecipients(target);
    const key = newKey();
    const sms = smsPayload(smsNumber(knownNumbers), [recipient!], 'unsafe-long-text');
    const text = `${sms.text} ${'0123456789'.repeat(24)}`.slice(0, 230);
    const body = { ...sms, text };
    const first = await send(api, key, body);
    if (isRequestDefectAnswer(first.status)) {
      test.info().annotations.push({ type: 'note', description: `the target refused a text of ${text.length} characters (${first.describe()}): no retry of one to compare` });
    } else {
      const firstIds = expectQueuedFor(first, 'IDEM-002', `the first send, a text of ${text.length} characters`);
      const changed = await send(api, key, { ...body, text: `${text.slice(0, -1)}${text.endsWith('x') ? 'y' : 'x'}` });
      expect(changed).toBeRefusedAsUnsafeRetry(`IDEM-002: the same key with the ${text.length}-character text changed only in its last character (past the first 160) is refused as a request defect or 409 CONFLICT, never a 2xx`);
      const replay = await send(api, key, body);
      expect(sorted(messageIdsOf(replay)), 'IDEM-002: after the unsafe retry with the long text changed at its end, the original payload still replays its first send').toEqual(sorted(firstIds));
    }
  });

  // The recipients in another order: a JSON array is an ordered sequence (RFC 8259 5), so `to`
  // written the other way round is another payload, not another spelling of the same one. A
  // server that sorts the recipients before it compares takes it for the same payload.
  test('reusing a key with the same recipients in another order is rejected and queues nothing', { tag: ['@IDEM-002'] }, async ({ api, target, knownNumbers, newKey }) => {
    const delivered = deliveredRecipients(target, 2);
    if (delivered.length < 2) notTestable('needs two recipients the target delivers to (recipients.delivered)');
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), [delivered[0]!, delivered[1]!], 'unsafe-order');
    const first = expectQueuedFor(await send(api, key, body), 'IDEM-002', 'the first send');
    const changed = await send(api, key, { ...body, to: [delivered[1]!, delivered[0]!] });
    expect(changed).toBeRefusedAsUnsafeRetry(`IDEM-002: the same key with the recipients ${delivered[0]} and ${delivered[1]} given the other way round (another JSON array) is refused as a request defect or 409 CONFLICT, never a 2xx`);
    const replay = await send(api, key, body);
    expect(sorted(messageIdsOf(replay)), 'IDEM-002: after the unsafe retry with the recipients reordered, the original payload still replays its first send').toEqual(sorted(first));
  });

  // Its neighbour: a recipient given again beside itself. Another JSON array, so another payload,
  // whatever the server makes of the repeat (a request defect, one message, two): a server that
  // fingerprints the recipients as a set takes it for the same payload and replays.
  test('reusing a key with a recipient given twice where it was given once is rejected and queues nothing', { tag: ['@IDEM-002'] }, async ({ api, target, knownNumbers, newKey }) => {
    const [recipient] = deliveredRecipients(target, 1);
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), [recipient!], 'unsafe-repeat');
    const first = expectQueuedFor(await send(api, key, body), 'IDEM-002', 'the first send');
    const changed = await send(api, key, { ...body, to: [recipient!, recipient!] });
    expect(changed).toBeRefusedAsUnsafeRetry(`IDEM-002: the same key with ${recipient} given twice in to, where the first send gave it once (another JSON array), is refused as a request defect or 409 CONFLICT, never a 2xx`);
    const replay = await send(api, key, body);
    expect(sorted(messageIdsOf(replay)), 'IDEM-002: after the unsafe retry with the recipient repeated, the original payload still replays its first send').toEqual(sorted(first));
  });

  // text is optional (section 4.6): a message without it, then the same key with text "", is
  // another payload (a member more, RFC 8259), however alike the two read. A server whose
  // fingerprint defaults an absent text to "" replays the first. The message is an MMS, which a
  // target must take without text (SEND-017), or an SMS where the target has no MMS number.
  test('reusing a key with text "" where the first send had no text is rejected and queues nothing', { tag: ['@IDEM-002'] }, async ({ api, target, knownNumbers, newKey }) => {
    const mms = knownNumbers.mms !== undefined && target.mediaSample.length > 0;
    const body: Record<string, unknown> = mms
      ? { sendFrom: knownNumbers.mms!, to: deliveredRecipients(target), messageType: 'MMS', media: target.mediaSample, externalReference: externalRef('unsafe-text-absent') }
      : { sendFrom: smsNumber(knownNumbers), to: deliveredRecipients(target), messageType: 'SMS', externalReference: externalRef('unsafe-text-absent') };
    const key = newKey();
    const res = await send(api, key, body);
    // A sibling of the rule's other checks, not the rule: where the target refuses the message it
    // starts from, the refusal is noted and nothing is judged here (IDEM-002 stays judged by them).
    if (!mms && res.status >= 400 && res.status < 500) {
      test.info().annotations.push({ type: 'note', description: `the target refused an SMS without text (${res.status}), which a vendor may, and has no MMS number and media sample to send one without text from: the key's reuse with text "" is not tried` });
    } else {
      const first = expectQueuedFor(res, 'IDEM-002', `the first ${mms ? 'MMS' : 'SMS'}, without text`);
      const changed = await send(api, key, { ...body, text: '' });
      expect(changed).toBeRefusedAsUnsafeRetry(`IDEM-002: the same key with text "" added, where the first ${mms ? 'MMS' : 'SMS'} had none (another payload), is refused as a request defect or 409 CONFLICT, never a 2xx`);
      const replay = await send(api, key, body);
      expect(sorted(messageIdsOf(replay)), 'IDEM-002: after the unsafe retry with text "" added, the original payload still replays its first send').toEqual(sorted(first));
    }
  });

  test('reusing a key for an MMS with its media given twice, in another order, or with a media item changed but for its URL, is rejected and queues nothing', { tag: ['@IDEM-002'] }, async ({ api, target, knownNumbers, newKey }) => {
    // Media is part of the payload like any other field: a server whose fingerprint leaves it
    // out replays the first MMS for an MMS that carries other media.
    if (!knownNumbers.mms) notTestable('needs an MMS-capable primary number with a campaignregId (numbers.mms in the target config)');
    if (target.mediaSample.length === 0) notTestable('needs a media sample (mediaSample in the target config)');
    const key = newKey();
    const mms = { sendFrom: knownNumbers.mms!, to: deliveredRecipients(target), messageType: 'MMS', text: 'Conformance check unsafe-retry-media', media: target.mediaSample, externalReference: externalRef('unsafe-retry-media') };
    const first = expectQueuedFor(await send(api, key, mms), 'IDEM-002', 'the first MMS');
    const changed = await send(api, key, { ...mms, media: [...target.mediaSample, ...target.mediaSample] });
    expect(changed).toBeRefusedAsUnsafeRetry('IDEM-002: the same key with other media is an unsafe retry, refused as a request defect or 409 CONFLICT');
    expect(messageIdsOf(changed), 'IDEM-002: the unsafe retry reports no messages').toEqual([]);
    const replay = await send(api, key, mms);
    expect(sorted(messageIdsOf(replay)), 'IDEM-002: the unsafe retry queued nothing and changed nothing under the key').toEqual(sorted(first));
    // The same items in another order: media is a JSON array, ordered (RFC 8259 5), so another
    // payload. A server that sorts the items before it fingerprints replays the first. Where the
    // sample has two items or more (mediaSample; the default has two); noted otherwise.
    if (target.mediaSample.length < 2) {
      test.info().annotations.push({ type: 'note', description: 'the media sample (mediaSample) has one item: the key reused with the items in another order is not tried' });
    } else {
      const orderKey = newKey();
      const ordered = { ...mms, externalReference: externalRef('unsafe-media-order') };
      const once = expectQueuedFor(await send(api, orderKey, ordered), 'IDEM-002', 'the MMS whose media items are reordered next');
      const reordered = await send(api, orderKey, { ...ordered, media: [...target.mediaSample].reverse() });
      expect(reordered).toBeRefusedAsUnsafeRetry('IDEM-002: the same key with the media items in another order (another JSON array) is refused as a request defect or 409 CONFLICT, never a 2xx');
      expect(sorted(messageIdsOf(await send(api, orderKey, ordered))), 'IDEM-002: after the unsafe retry with the media reordered, the original payload still replays its first send').toEqual(sorted(once));
    }
    // The same items with a member other than the URL changed (the first item's first other
    // member that is a string: its content type in the default sample): the whole item is the
    // payload, not its URL alone. Any refusal will do (the changed item may also be invalid);
    // a replay is the failure. Noted where the sample's items carry nothing but strings' URLs.
    const [item, ...rest] = target.mediaSample as Array<Record<string, unknown>>;
    const member = Object.keys(item!).find((name) => name !== 'url' && typeof item![name] === 'string');
    if (member === undefined) {
      test.info().annotations.push({ type: 'note', description: "the media sample's first item has no string member but its url: the key reused with another member of the item changed is not tried" });
    } else {
      const memberKey = newKey();
      const plain = { ...mms, externalReference: externalRef('unsafe-media-member') };
      const once = expectQueuedFor(await send(api, memberKey, plain), 'IDEM-002', `the MMS whose media item's ${member} changes next`);
      const value = item![member] as string;
      const other = value === 'image/png' ? 'image/jpeg' : member === 'contentType' ? 'image/png' : `${value}-changed`;
      const changedMember = await send(api, memberKey, { ...plain, media: [{ ...item, [member]: other }, ...rest] });
      expect(changedMember).toBeRefusedAsUnsafeRetry(`IDEM-002: the same key with the media item's ${member} changed (${JSON.stringify(value)} to ${JSON.stringify(other)}, its url the same) is refused as a request defect or 409 CONFLICT, never a 2xx`);
      expect(sorted(messageIdsOf(await send(api, memberKey, plain))), `IDEM-002: after the unsafe retry with the media item's ${member} changed, the original payload still replays its first send`).toEqual(sorted(once));
    }
  });

  // The message type is part of the payload too: a server whose records are keyed by the key and
  // the message type takes an MMS under an SMS's key for a new operation. Each way, on a number
  // the list shows with SMS and MMS both on (a number that cannot send one of them would refuse
  // for that, which is another rule), each under a key of its own, at once.
  test('reusing a key with the message type changed, an SMS as an MMS with media and an MMS as an SMS without, is rejected and queues nothing', { tag: ['@IDEM-002'] }, async ({ api, target, knownNumbers, newKey }) => {
    if (target.mediaSample.length === 0) notTestable('needs a media sample (mediaSample in the target config)');
    const both = knownNumbers.primary.find((n) => n.numberId === knownNumbers.mms && n.smsEnabled !== false) ?? knownNumbers.primary.find((n) => typeof n.campaignregId === 'string' && n.campaignregId !== '' && n.smsEnabled === true && n.mmsEnabled === true);
    if (!both) notTestable('needs a primary number with a campaignregId that the list shows with SMS and MMS both on (numbers.mms in the target config)');
    const to = deliveredRecipients(target).slice(0, 1);
    const sms: Record<string, unknown> = { ...smsPayload(both!.numberId, to, 'unsafe-retry-type') };
    const mms = { ...sms, messageType: 'MMS', media: target.mediaSample, externalReference: externalRef('unsafe-retry-type') };
    const ways: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      ['an SMS reused for an MMS with media', sms, { ...sms, messageType: 'MMS', media: target.mediaSample }],
      ['an MMS reused for an SMS without media', mms, (({ media: _media, ...rest }) => ({ ...rest, messageType: 'SMS' }))(mms)],
    ];
    await Promise.all(
      ways.map(async ([way, first, changedBody]) => {
        const key = newKey();
        const firstRes = await send(api, key, first);
        if (!(firstRes.status >= 200 && firstRes.status < 300)) notTestable(`the first send of ${way} was refused (${firstRes.describe()}): no record under the key to reuse`);
        const firstIds = expectQueuedFor(firstRes, 'IDEM-002', `the first send of ${way}`);
        const changed = await send(api, key, changedBody);
        expect.soft(changed).toBeRefusedAsUnsafeRetry(`IDEM-002: the same key with ${way} is an unsafe retry, refused as a request defect or 409 CONFLICT, never a 2xx`);
        expect.soft(messageIdsOf(changed), `IDEM-002: the unsafe retry (${way}) reports no messages`).toEqual([]);
        const replay = await send(api, key, first);
        expect.soft(sorted(messageIdsOf(replay)), `IDEM-002: after the unsafe retry (${way}), the first payload still replays its first send`).toEqual(sorted(firstIds));
      }),
    );
  });

  // "Queues nothing": a refused unsafe retry must not be sent anyway, which only the delivery
  // callbacks show (rule 7). Every change at once, each under its own key after its own first
  // send, whose callbacks belong on the channel; then one control send bounds the wait for any
  // callback of a changed payload (expectNoStrayCallbacks), with both numbers reporting there.
  test('unsafe retries, refused, are never reported by a delivery callback', { tag: ['@IDEM-002'] }, async ({ api, target, knownNumbers, newKey, settings, webhooks }) => {
    const numberId = smsNumber(knownNumbers);
    const delivered = deliveredRecipients(target, 2);
    const otherNumber = secondSmsNumber(knownNumbers);
    const channel = webhooks.channel('unsafe-retries');
    await deliverTo(settings, numberId, channel.url, 'IDEM-002');
    if (otherNumber !== undefined) await deliverTo(settings, otherNumber, channel.url, 'IDEM-002');
    const firstIds: string[] = [];
    const changedRefs: string[] = [];
    for (const [change, changeIt] of changes) {
      const key = newKey();
      const body = smsPayload(numberId, [delivered[0]!], 'unsafe-retry-first');
      const changedBody = changeIt({ ...body }, { delivered, otherNumber });
      if (!changedBody) continue;
      firstIds.push(...expectQueuedFor(await send(api, key, body), 'IDEM-002', 'the first send'));
      if (changedBody.externalReference !== body.externalReference) changedRefs.push(String(changedBody.externalReference));
      const changed = await send(api, key, changedBody);
      expect(changed).not.toSucceed(`IDEM-002: the same key with ${change} is an unsafe retry, never a 2xx`);
    }
    await expectNoStrayCallbacks(api, target, channel, numberId, newKey(), changedRefs, 'IDEM-002', 'a changed payload sent under a used key', firstIds);
  });
});

// Section 7.3 sends a client whose send timed out back with the same key and payload, and that
// retry may arrive while the first request still runs. Rule 8 calls it safe, so however the
// server answers it (409 or a replay after waiting: IDEM-104), it never queues a second message.
test.describe('4.6 rule 8 with 7.3: a safe retry while the first is in flight', () => {
  test('a burst of identical sends with one key queues one operation', { tag: ['@IDEM-003'] }, async ({ api, target, knownNumbers, newKey }) => {
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'burst');
    const answers = await Promise.all(Array.from({ length: BURST }, () => send(api, key, body)));
    const succeeded = answers.filter((res) => res.status >= 200 && res.status < 300);
    expect(succeeded.length, `IDEM-003: at least one of the ${BURST} requests is accepted; statuses ${answers.map((r) => r.status).join(', ')}`).toBeGreaterThan(0);
    const ids = sorted(messageIdsOf(succeeded[0]!));
    expect(ids.length, 'IDEM-003: the accepted answer names its messageIds').toBeGreaterThan(0);
    for (const res of succeeded) {
      expect(sorted(messageIdsOf(res)), 'IDEM-003: every 2xx answer carries the same messageIds: one operation was queued').toEqual(ids);
    }
    const later = await send(api, key, body);
    expect(later).toSucceed('IDEM-003: after the burst, the same request replays');
    expect(sorted(messageIdsOf(later)), 'IDEM-003: the later replay shows the one operation the burst queued').toEqual(ids);
  });

  // The same burst under another identity the requests carry: each under a token of its own, all
  // of the one client whose key it is (a key is the client's, whatever token carries it: IDEM-004).
  // A server whose in-flight lock is keyed by token lets them all through at once.
  test('a burst of identical sends with one key, each under another token of the client, queues one operation', { tag: ['@IDEM-003'] }, async ({ api, target, knownNumbers, newKey }) => {
    const tokens = await Promise.all(
      Array.from({ length: BURST }, async () => {
        const res = await api.call('token', tokenRequest('json', target.clients.primary));
        expect(res).toSucceed('IDEM-003: precondition: a token of the primary client is issued');
        return String(res.body.access_token);
      }),
    );
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'burst-tokens');
    const answers = await Promise.all(tokens.map((token) => api.call('send', { as: 'none', json: body, headers: { authorization: `Bearer ${token}`, 'idempotency-key': key } })));
    const succeeded = answers.filter((res) => res.status >= 200 && res.status < 300);
    expect(succeeded.length, `IDEM-003: at least one of the ${BURST} requests is accepted; statuses ${answers.map((r) => r.status).join(', ')}`).toBeGreaterThan(0);
    const ids = sorted(messageIdsOf(succeeded[0]!));
    for (const res of succeeded) {
      expect(sorted(messageIdsOf(res)), `IDEM-003: every 2xx answer carries the same messageIds, whichever of the client's ${BURST} tokens carried it: one operation was queued`).toEqual(ids);
    }
    const later = await send(api, key, body);
    expect(sorted(messageIdsOf(later)), 'IDEM-003: the later replay shows the one operation the burst queued').toEqual(ids);
  });

  // The same burst with two payloads under the key, interleaved: the second payload is an unsafe
  // retry however soon it arrives (rule 8 speaks of the payload, not the moment). Whichever comes
  // first is the key's operation; the other's sends are refused (as the unsafe retry, a request
  // defect, or 409 while the first is in flight), never accepted. A server whose in-flight lock
  // is keyed by the payload lets both through while the first runs.
  test('a burst of two payloads with one key, interleaved, accepts one payload only and queues one operation', { tag: ['@IDEM-002', '@IDEM-003'] }, async ({ api, target, knownNumbers, newKey }) => {
    const key = newKey();
    const payloads = [smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'burst-mixed-a'), smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'burst-mixed-b')];
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => send(api, key, payloads[i % 2])));
    const statuses = answers.map((r, i) => `${'ab'[i % 2]} ${r.status}`).join(', ');
    const accepted = answers.flatMap((res, i) => (res.status >= 200 && res.status < 300 ? [{ res, payload: 'ab'[i % 2]! }] : []));
    expect(accepted.length, `IDEM-003: at least one of the ${BURST} requests is accepted; answers ${statuses}`).toBeGreaterThan(0);
    expect([...new Set(accepted.map((a) => a.payload))], `IDEM-002: sends of two payloads under one key at once (a and b, interleaved) were both accepted: the second payload is an unsafe retry, refused however soon it comes; answers ${statuses}`).toHaveLength(1);
    const ids = sorted(messageIdsOf(accepted[0]!.res));
    for (const { res } of accepted) expect(sorted(messageIdsOf(res)), `IDEM-003: every 2xx answer carries the same messageIds: one operation was queued; answers ${statuses}`).toEqual(ids);
    for (const res of answers.filter((r) => r.status >= 300)) expect(['request-defect', 'conflict'], `IDEM-002: a send of the other payload under the key is refused as a request defect or 409 CONFLICT; answers ${statuses}`).toContain(answerClass(res.status));
  });

  test('a burst of identical refused sends with one key is refused every time', { tag: ['@IDEM-003'] }, async ({ api, target, knownNumbers, newKey }) => {
    // The sibling of the burst above: the first request is refused (rule 6, a recipient not in
    // E.164), so the others wait on, or meet, a first attempt that stored no outcome. Each is
    // answered as the refusal it is, or 409 while the first is in flight (7.3's conflict);
    // never a 2xx, and never a 5xx, which sends the client to retry what can never succeed.
    const key = newKey();
    const body = { ...smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'burst-refused'), to: ['2025550100'] };
    const answers = await Promise.all(Array.from({ length: BURST }, () => send(api, key, body)));
    const statuses = answers.map((r) => r.status);
    for (const res of answers) {
      expect(['request-defect', 'conflict'], `IDEM-003: each of ${BURST} identical sends of a refused payload under one key is refused as a request defect, or 409 while the first is in flight; statuses ${statuses.join(', ')}`).toContain(answerClass(res.status));
    }
    expect(answers.some((res) => answerClass(res.status) === 'request-defect'), `IDEM-003: at least one of them is answered with the refusal itself; statuses ${statuses.join(', ')}`).toBe(true);
  });
});

test.describe('4.6 rule 8: the same payload under its key after the first was refused', () => {
  // The same key and payload is the safe retry (rule 8), and the first is no longer in flight: the
  // retry is answered as the first was (its refusal replayed, or the same checks giving the same
  // refusal), or, once the cause of the refusal is gone, as a first attempt. 409 CONFLICT is the
  // answer to a changed payload or to a first still in flight, and neither holds; a server that
  // leaves a refused send's key taken answers every later use of it so, and the client can never
  // send the message it fixed the number for.
  test('a refused send retried with the same key and payload is refused alike, and once its cause is gone is refused alike or accepted, never a conflict', { tag: ['@IDEM-007'] }, async ({ api, target, knownNumbers, settings, newKey }) => {
    const to = deliveredRecipients(target);
    const sendFrom = smsNumber(knownNumbers);
    const registration = knownNumbers.primary.find((n) => n.numberId === sendFrom)?.campaignregId;
    const causes: Array<[string, unknown]> = [
      ['a recipient not in E.164', { ...smsPayload(sendFrom, to, 'refused-retry-recipient'), to: ['2025550100'] }],
      ['an SMS with media', { ...smsPayload(sendFrom, to, 'refused-retry-media'), media: [{ url: 'https://cdn.example.com/conformance/a.png', contentType: 'image/png' }] }],
      ...(knownNumbers.foreign ? [["another client's number as sendFrom", smsPayload(knownNumbers.foreign, to, 'refused-retry-foreign')] as [string, unknown]] : []),
      ...(knownNumbers.withoutCampaign ? [['a sendFrom without a campaignregId', smsPayload(knownNumbers.withoutCampaign, to, 'refused-retry-campaign')] as [string, unknown]] : []),
    ];
    const unrefused: string[] = [];
    for (const [cause, body] of causes) {
      const key = newKey();
      const first = await send(api, key, body);
      // Whether such a send is refused is section 4.6's rules' business (SEND-002 to SEND-007); one that is not leaves no refusal to retry.
      if (first.status < 400 || first.status >= 500) {
        unrefused.push(`${cause} (${first.status})`);
        continue;
      }
      for (const attempt of [2, 3]) {
        const again = await send(api, key, body);
        expect(again.status, `IDEM-007: retry ${attempt} of the send with ${cause}, the same key and payload, is refused as the first was (${first.status}); answered ${again.describe()} ${again.text.slice(0, 200)}`).toBe(first.status);
      }
    }
    if (unrefused.length === causes.length) notTestable(`none of the sends was refused: ${unrefused.join(', ')}`);
    // The cause removed: the number given its registration back after the first send was refused for lacking it.
    if (typeof registration !== 'string' || registration === '') notTestable(`the numbers list shows no campaignregId of ${sendFrom} to clear and give back`);
    const body = smsPayload(sendFrom, to, 'refused-then-registered');
    const key = newKey();
    expect(await settings.change(sendFrom, { campaignregId: null })).toSucceed('IDEM-007: precondition: clearing the campaignregId of the sendFrom number');
    const first = await send(api, key, body);
    if (first.status !== 400) notTestable(`the send from ${sendFrom} without a campaignregId was answered ${first.describe()}, not 400 (SEND-005 judges that)`);
    expect(await settings.change(sendFrom, { campaignregId: registration })).toSucceed('IDEM-007: precondition: giving the campaignregId back');
    const retried = await send(api, key, body);
    expect(retried.status === 400 || (retried.status >= 200 && retried.status < 300), `IDEM-007: the same send under its key, once the number has its campaignregId again, is the refusal replayed (400) or a first attempt (2xx); answered ${retried.describe()} ${retried.text.slice(0, 200)}`).toBe(true);
    if (retried.status >= 200 && retried.status < 300) {
      const ids = expectQueuedFor(retried, 'IDEM-007', 'the retry accepted as a first attempt');
      const replay = await send(api, key, body);
      expect(sorted(messageIdsOf(replay)), 'IDEM-007: the next retry replays the attempt that was accepted (rule 8)').toEqual(sorted(ids));
    }
  });
});

test.describe('4.6 rule 8: a key is the client\'s (and the Idempotency-Key draft 5: keys are scoped per client)', () => {
  test('another client may use the same key for its own send', { tag: ['@IDEM-005', '@IDEM-103'] }, async ({ api, target, knownNumbers, newKey, secondClient, lockHold }) => {
    void secondClient; // the fixture reports the test not testable without a second client
    if (!knownNumbers.foreign) notTestable("needs a number of the second client to send from (numbers.foreign in the target config)");
    // The second client's send must be one it may make: from a number of its own with a
    // campaignregId (numbers.foreign need not have one; a send from it would rightly be refused).
    const theirNumber = await sendableNumberOf(api, 'secondary', knownNumbers.foreign);
    if (theirNumber !== knownNumbers.foreign) await lockHold.need([{ resource: numberResource('secondary', theirNumber), mode: 'shared' }]);
    const key = newKey();
    const to = deliveredRecipients(target);
    const primaryBody = smsPayload(smsNumber(knownNumbers), to, 'scope-primary');
    const mine = expectQueuedFor(await send(api, key, primaryBody), 'IDEM-005, IDEM-103', "the primary client's send");
    // The control: the retry replays before another client touches the key. A server whose
    // replays are wrong anyway fails IDEM-001, not the key's scope.
    const before = await send(api, key, primaryBody);
    if (before.status < 200 || before.status >= 300 || sorted(messageIdsOf(before)).join() !== sorted(mine).join()) {
      notTestable(`the primary client's retry does not replay its send even before another client uses the key (${before.describe()}): IDEM-001 judges replays`);
    }
    // A different payload under the same key: were keys global, this would be an unsafe retry.
    const theirs = await send(api, key, smsPayload(theirNumber, to, 'scope-secondary'), 'secondary');
    const theirIds = expectQueued(theirs, 'IDEM-005, IDEM-103: the second client sends under the same key as a first attempt');
    expect(theirIds.filter((id) => mine.includes(id)), "IDEM-005, IDEM-103: the second client's send is its own, not a replay of the first client's").toEqual([]);
    // And the second client's use of the key left the first client's record alone.
    const replay = await send(api, key, primaryBody);
    expect(replay).toSucceed("IDEM-005, IDEM-103: the primary client's retry still replays");
    expect(sorted(messageIdsOf(replay)), "IDEM-005, IDEM-103: the primary client's key still names its own messages").toEqual(sorted(mine));
  });

  // The header's name in other letter cases is the same header (RFC 9110 5.1): the key is there,
  // and it is the same key. A server that looks the header up by one spelling answers the send as
  // if it had none, or the retry as a new operation.
  test('the Idempotency-Key header named in other letter cases carries the key: the send is accepted and its retry replayed', { tag: ['@SEND-001', '@IDEM-001'] }, async ({ api, target, knownNumbers, newKey }) => {
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'key-header-case');
    const first = await api.call('send', { json: body, headers: { 'IDEMPOTENCY-KEY': key }, headerNamesAsGiven: true });
    const ids = expectQueued(first, 'SEND-001: a send whose key header is named "IDEMPOTENCY-KEY" carries its key');
    const retry = await api.call('send', { json: body, headers: { 'idempotency-KEY': key }, headerNamesAsGiven: true });
    expect(retry).toSucceed('IDEM-001: its retry, the header named "idempotency-KEY", is the safe retry');
    expect(sorted(messageIdsOf(retry)), 'IDEM-001: the retry under the same key, its header named in other letter cases, replays the first send').toEqual(sorted(ids));
  });

  // A key is the whole string: two long keys that share all but their last character are two
  // keys. A server that stores keys cut to a length (a column too short) takes the second for
  // the first: it refuses its payload as an unsafe retry, or replays the first send.
  test('a long key that differs from one used only in its last character is a key not yet used', { tag: ['@IDEM-005', '@ERR-011'] }, async ({ api, target, knownNumbers, newKey }) => {
    // 250 characters: past the 200 a key column is often cut to (the reference takes 255). The
    // document sets no length, so a target may refuse the key as a request defect (then nothing
    // is judged); a 5xx is the server failing on a request it could answer, which section 7.3
    // makes a client retry for ever (ERR-011).
    const stem = `${newKey()}-${'k'.repeat(212)}`;
    const [first, second] = [`${stem}A`, `${stem}B`];
    const to = deliveredRecipients(target);
    const res = await send(api, first, smsPayload(smsNumber(knownNumbers), to, 'long-key-first'));
    expect(res.status, `ERR-011: a send under a key of ${first.length} characters is accepted, or refused as a request defect; never a 5xx: ${res.describe()} ${res.text.slice(0, 200)}`).toBeLessThan(500);
    if (!(res.status >= 200 && res.status < 300)) notTestable(`the target did not accept a send under a key of ${first.length} characters (${res.status}): the document sets no length, and longer keys are not tried`);
    const firstIds = expectQueued(res, 'IDEM-005: precondition: the send under the first long key');
    const again = await send(api, second, smsPayload(smsNumber(knownNumbers), to, 'long-key-second'));
    const secondIds = expectQueued(again, `IDEM-005: a send of another payload under a key not yet used (${second.length} characters, the last one differing from a used key's) is a first attempt`);
    expect(secondIds.filter((id) => firstIds.includes(id)), 'IDEM-005: the send under the second key is its own, not a replay of the first').toEqual([]);
  });
});

test.describe('4.6 rules 7 and 8: the key is a string, and distinct strings are distinct keys', () => {
  for (const payload of ['the same payload', 'another payload'] as const) {
    test(`a key differing from a used one only in letter case, with ${payload}, is a new operation`, { tag: ['@IDEM-006'] }, async ({ api, target, knownNumbers, newKey }) => {
      // The key is a string, compared as written (nothing in the document folds it; the draft's
      // sf-string neither): "Idem-x" and "idem-x" are two keys, so the second send is a first
      // attempt, neither a replay of the first (same payload) nor an unsafe retry (another).
      const key = `Idem-${newKey()}`;
      const to = deliveredRecipients(target);
      const body = smsPayload(smsNumber(knownNumbers), to, 'key-case-upper');
      const first = expectQueuedFor(await send(api, key, body), 'IDEM-006', 'the send under the mixed-case key');
      const other = await send(api, key.toLowerCase(), payload === 'the same payload' ? body : smsPayload(smsNumber(knownNumbers), to, 'key-case-lower'));
      const ids = expectQueued(other, `IDEM-006: the send under the lower-cased key ${key.toLowerCase()}, another key, with ${payload}, is accepted as a new operation`);
      expect(ids.filter((id) => first.includes(id)), `IDEM-006: the send under the lower-cased key, with ${payload}, gets messageIds of its own`).toEqual([]);
    });
  }
});
