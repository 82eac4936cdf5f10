import { expect, notTestable, test } from '../../harness/fixtures.ts';
import { canSendSms, readNumbers } from '../../harness/known-numbers.ts';
import { verificationProblem, verifyWebhook, WEBHOOK_TOLERANCE_IN_SECONDS } from '../../harness/webhook-signature.ts';
import { deliveredRecipients, expectQueuedFor, externalRef, secondSmsNumber, send, smsNumber, smsPayload } from '../support/sends.ts';
import { awaitCallback, deliverTo, expectCallbacks, namesMessage, quietPeriod } from '../support/callbacks.ts';
import { heldBySecondary, inboundNaming, inboundTo } from './webhook-support.ts';
import { carriesFinalStatus, RESET, type CallbackAnswer, type ReceivedCallback, type WebhookChannel } from '../../harness/webhook-receiver.ts';
import { randomUUID } from 'node:crypto';
import { tokenRequest } from '../../harness/basic-auth.ts';
import type { Target } from '../../harness/config.ts';
import type { SettingsGuard } from '../../harness/settings-guard.ts';
import type { Inbound } from '../../harness/triggers.ts';

// What Standard Webhooks adds where section 6 shows no signing, retry behaviour or expected
// response. Level standard.

/** The first callback naming `messageId` at the channel, or not testable: where none reaches the number's override, WH-001 judges that, and how it is signed or retried cannot be seen here. */
async function firstAtOverride(channel: WebhookChannel, messageId: string, numberId: string, timeoutMs: number): Promise<ReceivedCallback> {
  const arrived = await channel.waitFor(`a callback naming ${messageId}`, namesMessage(messageId), { timeoutMs }).catch(() => null);
  if (arrived === null) notTestable(`no callback naming ${messageId} reached the override of ${numberId} within webhooks.timeoutMs (WH-001 judges where outcomes go)`);
  return arrived![0]!;
}

/** Why a callback's signature does not verify with `secret`, checked at its arrival on the receiver's clock; '' when it verifies. */
const problemOf = (secret: string, callback: ReceivedCallback): string => verificationProblem(secret, callback.headers, callback.text, callback.receivedAt / 1000);

/** How much longer the later retries of a failing callback wait than the first ones, at least (WH-108). */
const BACKOFF_GROWTH = 1.5;

/**
 * An inbound callback to `channel` (its scripted answers for this test's own callback) and its
 * first retry: the number's inbound override pointed at the channel, traffic made to arrive, and
 * both attempts of its webhook-id awaited. Not testable without a webhook-id or a retry within
 * webhooks.timeoutMs: the retry is what the WH-110 checks judge.
 */
async function inboundAttempts(
  { target, settings, inbound }: { target: Target; settings: SettingsGuard; inbound: Inbound },
  channel: WebhookChannel,
  answered: string,
): Promise<{ id: string; attempts: ReceivedCallback[] }> {
  const own = channel.scriptOnlyFor();
  await inboundTo(settings, inbound.numberId, channel.url, 'WH-110');
  const text = `Conformance inbound ${randomUUID()}`;
  own(inboundNaming(text));
  await inbound.deliver(text, 'WH-110');
  const [first] = await expectCallbacks(channel, 'WH-110', 'the inbound callback naming its text', inboundNaming(text), { timeoutMs: target.webhooks.timeoutMs });
  const id = first!.headers['webhook-id'];
  if (!id) notTestable('the inbound callback carries no webhook-id (WH-101 judges the headers)');
  const attempts = await channel.waitFor(`a retry of ${id}`, (c) => c.headers['webhook-id'] === id, { timeoutMs: target.webhooks.timeoutMs, count: 2 }).catch(() => null);
  if (attempts === null) notTestable(`the inbound callback ${answered} was not tried again within webhooks.timeoutMs (${target.webhooks.timeoutMs} ms; its retry is this test's precondition)`);
  return { id: id!, attempts: attempts! };
}

test.describe('Standard Webhooks: signature', () => {
  test('a callback carries webhook-id, webhook-timestamp and a v1 signature that verifies with the client secret', { tag: ['@WH-101'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const secret = target.webhooks.secret;
    if (!secret) notTestable("needs the client's webhook signing secret (webhooks.secret in the target config)");
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('signed');
    await deliverTo(settings, numberId, channel.url, 'WH-101');
    // A delivered message, and where the target declares one, a message the sandbox fails: a
    // server may build the failure's event on another path, and sign what it did not send.
    const failing = target.triggers.failedDelivery?.recipients[0];
    const outcomes = [['delivered', deliveredRecipients(target)], ...(failing ? [['failed', [failing]] as const] : [])] as const;
    for (const [outcome, to] of outcomes) {
      const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, [...to], `wh-signed-${outcome}`)), 'WH-101');
      // The event of its final outcome where the config names the final statuses, else its first.
      const finalStatuses = target.webhooks.finalStatuses;
      const callback = finalStatuses
        ? (await expectCallbacks(channel, 'WH-101', `the callback of the ${outcome} message's final outcome`, (c) => c.text.includes(messageId!) && carriesFinalStatus(c, finalStatuses), { timeoutMs: target.webhooks.timeoutMs }))[0]!
        : await awaitCallback(channel, messageId!, target.webhooks.timeoutMs, 'WH-101');
      for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
        expect(callback.headers[header], `WH-101: the callback of a ${outcome} message carries ${header}`).toBeTruthy();
      }
      expect(callback.headers['webhook-signature'], `WH-101: webhook-signature of a ${outcome} message holds a v1 signature`).toMatch(/(^|\s)v1,[A-Za-z0-9+/]+={0,2}(\s|$)/);
      // The receiver's clock is the one the standard asks to check against: verify at arrival.
      const problem = problemOf(secret!, callback);
      expect(problem, `WH-101: the v1 signature of the callback of a ${outcome} message verifies with the client secret (empty means verified)`).toBe('');
    }
  });

  // Siblings of the one callback above: every event of a send to several recipients (each its
  // own message, signed over its own id and body), and the outcome of a message to a number the
  // other client holds (the sender's event, signed with the sender's secret). A server that signs
  // a batch with the first event's signature, or takes the key from the recipient's owner, is
  // right on a send to one outside recipient.
  test("every callback of a send to several recipients, and of a send to a number another client holds, verifies with the sending client's secret", { tag: ['@WH-101'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const secret = target.webhooks.secret;
    if (!secret) notTestable("needs the client's webhook signing secret (webhooks.secret in the target config)");
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('signed-many');
    await deliverTo(settings, numberId, channel.url, 'WH-101');
    const held = target.clients.secondary ? (await heldBySecondary(api, target))?.phone : undefined;
    const many = deliveredRecipients(target, Math.min(3, target.recipients.delivered.length));
    const ids = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, many, 'wh-signed-many')), 'WH-101');
    if (held !== undefined) {
      const res = await send(api, newKey(), smsPayload(numberId, [held], 'wh-signed-held'));
      if (res.status < 400 || res.status >= 500) ids.push(...expectQueuedFor(res, 'WH-101', `the send to ${held}, a number of the secondary client`));
    }
    for (const messageId of ids) {
      const callback = await awaitCallback(channel, messageId, target.webhooks.timeoutMs, 'WH-101');
      const problem = problemOf(secret!, callback);
      expect.soft(problem, `WH-101: the callback naming ${messageId} (of a send to ${many.length} recipients${held !== undefined ? `, or to ${held}, a number of the secondary client` : ''}) verifies with the sending client's secret (empty means verified)`).toBe('');
    }
  });

  // Another identity: the secondary client's callbacks are signed with the secondary client's own
  // secret. A server that signs every event with one secret (the first client's) is right on the
  // primary client's callbacks and wrong on every other client's.
  test("a callback of the secondary client's message verifies with the secondary client's own secret", { tag: ['@WH-101'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const secret = target.clients.secondary?.webhookSecret;
    if (!secret) notTestable("needs the secondary client's webhook signing secret (clients.secondary.webhookSecret in the target config)");
    const numberId = knownNumbers.foreign;
    const record = numberId === undefined ? undefined : (await readNumbers(api, 'secondary')).find((n) => n.numberId === numberId);
    if (!record || !canSendSms(record)) notTestable("the worker's number of the secondary client cannot send SMS (a campaignregId and smsEnabled)");
    // Its first attempt is answered 500, so a retry comes: a server that signs retries apart
    // (with the first client's secret, say) is right on every first attempt.
    const channel = webhooks.channel('signed-secondary').respondWith(500);
    const own = channel.scriptOnlyFor();
    const pointed = await settings.change(numberId!, { webhookDeliveryOverride: channel.url }, 'secondary');
    expect(pointed).toSucceed("WH-101: precondition: the secondary client points its number's webhookDeliveryOverride at the receiver");
    const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId!, deliveredRecipients(target), 'wh-signed-secondary'), 'secondary'), 'WH-101');
    own(namesMessage(messageId!));
    // Where it goes is WH-001's rule, judged for the secondary client's numbers in webhooks.spec.ts.
    const callback = await firstAtOverride(channel, messageId!, numberId!, target.webhooks.timeoutMs);
    const id = callback.headers['webhook-id'];
    // The retry (WH-103 judges whether one comes): every attempt that came is judged.
    if (id) await channel.waitFor(`a retry of ${id}`, (c) => c.headers['webhook-id'] === id, { timeoutMs: target.webhooks.timeoutMs, count: 2 }).catch(() => []);
    const attempts = id ? channel.received.filter((c) => c.headers['webhook-id'] === id) : [callback];
    const problems = attempts.map((c, i) => ({ attempt: i + 1, problem: problemOf(secret!, c) })).filter((p) => p.problem !== '');
    expect(problems, `WH-101: each of the ${attempts.length} attempts of the secondary client's callback verifies with the secondary client's secret (empty means verified)`).toEqual([]);
  });

  // The other kind of callback: a server that signs its delivery events and not its inbound
  // ones is right on the test above and wrong here.
  test('an inbound callback carries a v1 signature that verifies with the client secret too', { tag: ['@WH-101'] }, async ({ target, settings, webhooks, inbound }) => {
    const secret = target.webhooks.secret;
    if (!secret) notTestable("needs the client's webhook signing secret (webhooks.secret in the target config)");
    const channel = webhooks.channel('inbound-signed');
    await inboundTo(settings, inbound.numberId, channel.url, 'WH-101');
    const text = `Conformance inbound signed ${randomUUID()}`;
    const { messageId } = await inbound.deliver(text, 'WH-101');
    // Where inbound traffic goes is WH-004's to judge: a callback that never reached the
    // override has no signature to read here.
    const [callback] = await channel.waitFor(`an inbound callback naming its text${messageId ? ` or ${messageId}` : ''}`, inboundNaming(text, messageId), { timeoutMs: target.webhooks.timeoutMs }).catch((e: Error) => notTestable(`no inbound callback reached the number's webhookInboundOverride (WH-004 judges where it goes): ${e.message.split('\n')[0]}`));
    const problem = problemOf(secret!, callback!);
    expect(problem, 'WH-101: the inbound callback carries a v1 signature that verifies with the client secret (empty means verified)').toBe('');
  });
});

test.describe('Standard Webhooks: every callback is signed over the bytes it carries', () => {
  test('a callback whose body holds characters outside ASCII, and each retry of it, verifies with the client secret', { tag: ['@WH-101'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    // The signature covers the raw body (Standard Webhooks): a server that signs one encoding of
    // its JSON and sends another, or signs a retry differently, is right on an ASCII body sent once.
    const secret = target.webhooks.secret;
    if (!secret) notTestable("needs the client's webhook signing secret (webhooks.secret in the target config)");
    const numberId = smsNumber(knownNumbers);
    // Every attempt is answered 500 until one comes a second or more after the first, which is
    // taken: the retries then span two values of webhook-timestamp, which the signature covers.
    const channel = webhooks.channel('signed-unicode').answerWith((callback, earlier) => {
      const first = earlier.find((c) => c.headers['webhook-id'] === callback.headers['webhook-id']);
      return { status: first !== undefined && callback.receivedAt >= first.receivedAt + 1_000 ? 200 : 500 };
    });
    const own = channel.scriptOnlyFor();
    await deliverTo(settings, numberId, channel.url, 'WH-101');
    const payload = smsPayload(numberId, deliveredRecipients(target), 'wh-signed-unicode');
    const body = { ...payload, text: `${payload.text} \u00e9t\u00e9 \u2713 \u{1f4e8}`, externalReference: `${payload.externalReference}-\u00fc\u2713\u{1f4e8}` };
    const res = await send(api, newKey(), body);
    if (res.status >= 400 && res.status < 500) notTestable(`the target refused a send whose text and externalReference hold characters outside ASCII (${res.status}); the document does not say it must take them`);
    const [messageId] = expectQueuedFor(res, 'WH-101');
    own(namesMessage(messageId!));
    const first = await firstAtOverride(channel, messageId!, numberId, target.webhooks.timeoutMs);
    const id = first!.headers['webhook-id'];
    // The first attempt was answered 500: its retry (same webhook-id, WH-103) is signed again,
    // and so is every later one. An attempt a second or more after the first carries a later
    // webhook-timestamp, which the signature covers: a server that re-sends the first attempt's
    // signature with a new timestamp is right on a retry within the same second. Attempts are
    // awaited until one comes that late (the receiver fails them until then), or
    // webhooks.timeoutMs is out; all of them are judged.
    const ofFirst = (c: ReceivedCallback) => c.headers['webhook-id'] === id;
    if (id) {
      await expectCallbacks(channel, 'WH-101', `the retry of ${id}`, ofFirst, { timeoutMs: target.webhooks.timeoutMs, count: 2 }).catch(() => []);
      await channel.waitFor(`an attempt of ${id} a second or more after the first`, (c) => ofFirst(c) && c.receivedAt >= first!.receivedAt + 1_000, { timeoutMs: target.webhooks.timeoutMs }).catch(() => []);
    }
    const attempts = id ? channel.received.filter(ofFirst) : [first!];
    const unsigned: string[] = [];
    for (const [i, attempt] of attempts.entries()) {
      try {
        verifyWebhook(secret!, attempt.headers, attempt.text, attempt.receivedAt / 1000);
      } catch (e) {
        unsigned.push(`attempt ${i + 1} (${/[^\x00-\x7f]/.test(attempt.text) ? 'a body with characters outside ASCII' : 'an ASCII body'}): ${(e as Error).message}`);
      }
    }
    expect(unsigned, `WH-101: every attempt of the callback for ${messageId} verifies with the client secret over the bytes it carried (empty means verified)`).toEqual([]);
  });
});

test.describe('Standard Webhooks: timestamp tolerance', () => {
  // Every kind of event a number's override receives, not one: a delivered SMS's, a failed
  // SMS's (a recipient the sandbox fails), an MMS's, and a retry (its first attempt answered 500).
  // A server that labels or signs one kind apart (a failure's event written by another code path,
  // an MMS's body serialised once more after it was signed) is right on every SMS delivered. Each
  // callback is labelled as the JSON it is (WH-003, section 6) and verifies with the client's
  // secret (WH-101). Kinds the target cannot bring about are left out, and named.
  test("every kind of event a number's override receives (a delivered SMS, a failed SMS, an MMS, a retry) is labelled JSON and verifies with the client secret", { tag: ['@WH-003', '@WH-101'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    // Without the client's secret the labels are still judged (WH-003), the signatures not.
    const secret = target.clients.primary.webhookSecret;
    const failing = target.triggers.failedDelivery?.recipients[0];
    const sms = smsNumber(knownNumbers);
    const mms = knownNumbers.mms;
    const kinds: Array<{ kind: string; numberId: string; payload: unknown; answer?: number }> = [
      { kind: 'a delivered SMS', numberId: sms, payload: smsPayload(sms, deliveredRecipients(target), 'wh-kinds-sms') },
      { kind: 'a delivered SMS whose first attempt was answered 500', numberId: sms, payload: smsPayload(sms, deliveredRecipients(target), 'wh-kinds-retry'), answer: 500 },
    ];
    if (failing !== undefined) kinds.push({ kind: 'a failed SMS', numberId: sms, payload: smsPayload(sms, [failing], 'wh-kinds-failed') });
    if (mms !== undefined) kinds.push({ kind: 'an MMS', numberId: mms, payload: { sendFrom: mms, to: deliveredRecipients(target), messageType: 'MMS', text: 'Conformance check wh-kinds-mms', media: target.mediaSample, externalReference: externalRef('wh-kinds-mms') } });
    const seen: Array<{ kind: string; callbacks: ReceivedCallback[] }> = [];
    for (const [i, { kind, numberId, payload, answer }] of kinds.entries()) {
      const channel = webhooks.channel(`kinds-${i}`);
      // The scripted answer is for this send's callbacks only (scriptOnlyFor).
      const own = answer === undefined ? undefined : channel.respondWith(answer).scriptOnlyFor();
      await deliverTo(settings, numberId, channel.url, 'WH-101');
      const [messageId] = expectQueuedFor(await send(api, newKey(), payload), 'WH-101', `the send of ${kind}`);
      own?.(namesMessage(messageId!));
      // Its final event, and for the retried one both attempts.
      const callbacks = await expectCallbacks(channel, 'WH-101', `the callbacks of ${kind}`, namesMessage(messageId!), { timeoutMs: target.webhooks.timeoutMs, count: answer === undefined ? 1 : 2 });
      seen.push({ kind, callbacks });
    }
    for (const { kind, callbacks } of seen) {
      for (const callback of callbacks) {
        expect.soft(callback.headers['content-type'] ?? '', `WH-003: the callback of ${kind} is labelled application/json; body ${callback.text.slice(0, 120)}`).toMatch(/^\s*application\/([\w.-]+\+)?json\s*(;|$)/i);
        if (secret) expect.soft(problemOf(secret, callback), `WH-101: the callback of ${kind} (webhook-id ${callback.headers['webhook-id']}) verifies with the primary client's secret (empty means verified)`).toBe('');
      }
    }
    const left = [failing === undefined && 'a failed SMS (no triggers.failedDelivery)', mms === undefined && 'an MMS (no numbers.mms)', !secret && 'signatures (no clients.primary.webhookSecret)'].filter(Boolean);
    if (left.length > 0) test.info().annotations.push({ type: 'note', description: `not seen here: ${left.join('; ')}` });
  });

  test('webhook-timestamp is Unix seconds within five minutes of the receiver clock', { tag: ['@WH-102'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('timestamp');
    await deliverTo(settings, numberId, channel.url, 'WH-102');
    const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-timestamp')), 'WH-102');
    const callback = await awaitCallback(channel, messageId!, target.webhooks.timeoutMs, 'WH-102');
    const timestamp = callback.headers['webhook-timestamp'] ?? '';
    expect(timestamp, 'WH-102: webhook-timestamp is an integer number of Unix seconds').toMatch(/^\d+$/);
    const skew = Math.abs(callback.receivedAt / 1000 - Number(timestamp));
    expect(skew, `WH-102: webhook-timestamp ${timestamp} is within ${WEBHOOK_TOLERANCE_IN_SECONDS} s of arrival`).toBeLessThanOrEqual(WEBHOOK_TOLERANCE_IN_SECONDS);
  });
});

test.describe('Standard Webhooks: webhook-id names one event', () => {
  // Standard Webhooks: webhook-id is the message's unique identifier, the same when that message
  // is sent again, and the key a receiver de-duplicates on. So one webhook-id carries one body,
  // however often it comes, and two events (each recipient's outcome of one send) carry two ids:
  // a server that gives every event of a send the send's id is right on a send to one recipient,
  // and a receiver keeps only the first outcome of any other.
  test('each event of a send to several recipients carries a webhook-id of its own, and one webhook-id always the same body', { tag: ['@WH-109'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('one-id-per-event');
    await deliverTo(settings, numberId, channel.url, 'WH-109');
    const failing = target.triggers.failedDelivery?.recipients[0];
    const to = [...deliveredRecipients(target, 2), ...(failing ? [failing] : [])];
    const sent = Date.now();
    const ids = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, to, 'wh-one-id-per-event')), 'WH-109');
    for (const messageId of ids) await awaitCallback(channel, messageId, target.webhooks.timeoutMs, 'WH-109');
    await quietPeriod(Date.now() - sent);
    const bodiesById = new Map<string, Set<string>>();
    for (const c of channel.received) {
      const id = c.headers['webhook-id'];
      if (id === undefined) continue;
      bodiesById.set(id, (bodiesById.get(id) ?? new Set()).add(c.text));
    }
    if (bodiesById.size === 0) notTestable('the callbacks carry no webhook-id (WH-101 judges the headers)');
    const shared = [...bodiesById].filter(([, bodies]) => bodies.size > 1).map(([id, bodies]) => `${id}: ${[...bodies].map((b) => b.slice(0, 120)).join(' | ')}`);
    expect(shared, `WH-109: each webhook-id carries one event; these carried ${shared.length === 0 ? 'one' : 'several'} (${to.length} recipients, messageIds ${ids.join(', ')})`).toEqual([]);
  });

  // Another identity: two clients each send under the same Idempotency-Key (a key is the client's,
  // IDEM-005), to the same recipient. Two operations, two events, two webhook-ids: a server that
  // derives the id from the key (and the recipient's place) is right on every send whose key no
  // other client used, and a receiver that de-duplicates keeps one client's outcome.
  test("the events of two clients' sends under one Idempotency-Key carry webhook-ids of their own", { tag: ['@WH-109'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const theirs = knownNumbers.foreign;
    const record = theirs === undefined ? undefined : (await readNumbers(api, 'secondary')).find((n) => n.numberId === theirs);
    // A sibling of WH-109's other checks: without a second client that can send, it is noted, not
    // tried (WH-109 stays judged by them).
    if (!target.clients.secondary || !record || !canSendSms(record)) {
      test.info().annotations.push({ type: 'note', description: "no number of the secondary client that can send SMS (clients.secondary, numbers.foreign with a campaignregId and smsEnabled): two clients' sends under one key are not tried" });
    } else {
      const numberId = smsNumber(knownNumbers);
      const [mine, other] = [webhooks.channel('same-key-primary'), webhooks.channel('same-key-secondary')];
      await deliverTo(settings, numberId, mine.url, 'WH-109');
      expect(await settings.change(theirs!, { webhookDeliveryOverride: other.url }, 'secondary')).toSucceed("WH-109: precondition: the secondary client points its number's webhookDeliveryOverride at the receiver");
      const key = newKey();
      const to = deliveredRecipients(target, 1);
      const [first, second] = await Promise.all([send(api, key, smsPayload(numberId, to, 'wh-same-key-primary')), send(api, key, smsPayload(theirs!, to, 'wh-same-key-secondary'), 'secondary')]);
      const [a] = expectQueuedFor(first, 'WH-109', "the primary client's send");
      const [b] = expectQueuedFor(second, 'IDEM-005', "the secondary client's send under the same key, its own first attempt");
      const [ca, cb] = await Promise.all([awaitCallback(mine, a!, target.webhooks.timeoutMs, 'WH-109'), awaitCallback(other, b!, target.webhooks.timeoutMs, 'WH-109')]);
      const [ida, idb] = [ca.headers['webhook-id'], cb.headers['webhook-id']];
      if (ida === undefined || idb === undefined) notTestable('the callbacks carry no webhook-id (WH-101 judges the headers)');
      expect(ida, `WH-109: the outcome of the primary client's message ${a} and the secondary client's ${b}, sent under one Idempotency-Key, carry webhook-ids of their own`).not.toBe(idb);
    }
  });

  // The two kinds of event one send brings about when it goes to a number of the client's own
  // (triggers.inbound, kind loopback): the sender's delivery outcome and the recipient number's
  // inbound traffic. Two events, two webhook-ids: a server that derives the id from the message
  // gives both the same, and a receiver that de-duplicates keeps one of them. Both kinds are
  // pointed at one channel, so one receiver sees both ids.
  test('the delivery event and the inbound event of one loopback send carry webhook-ids of their own', { tag: ['@WH-109'] }, async ({ target, knownNumbers, settings, webhooks, inbound }) => {
    if (inbound.sender === undefined) notTestable("inbound traffic comes from the control plane here (triggers.inbound kind control): no send of the client's brings it about, so no delivery event comes with it");
    if (!knownNumbers.share.some((n) => n.role === 'primary' && n.numberId === inbound.sender)) notTestable(`the loopback send goes from ${inbound.sender}, a number outside this worker's share, whose delivery override the test may not change`);
    const channel = webhooks.channel('one-id-two-kinds');
    await inboundTo(settings, inbound.numberId, channel.url, 'WH-109');
    await deliverTo(settings, inbound.sender!, channel.url, 'WH-109');
    const text = `Conformance two kinds ${randomUUID()}`;
    const { sent = [] } = await inbound.deliver(text, 'WH-109');
    const [inboundEvent] = await expectCallbacks(channel, 'WH-109', 'the inbound callback naming the loopback text', inboundNaming(text), { timeoutMs: target.webhooks.timeoutMs });
    const outcomes = await Promise.all(sent.map((messageId) => awaitCallback(channel, messageId, target.webhooks.timeoutMs, 'WH-109')));
    const inboundId = inboundEvent!.headers['webhook-id'];
    if (inboundId === undefined) notTestable('the inbound callback carries no webhook-id (WH-101 judges the headers)');
    const sharing = outcomes.filter((c) => c.text !== inboundEvent!.text && c.headers['webhook-id'] === inboundId).map((c) => c.text.slice(0, 160));
    expect(sharing, `WH-109: the inbound event of the loopback send carries webhook-id ${inboundId}, and so does the send's delivery event, another event`).toEqual([]);
  });
});

test.describe('Standard Webhooks: retries', () => {
  // Only 2xx is success (Standard Webhooks): a 4xx answer is a failure like a 5xx, and is
  // retried too (410 alone tells the sender to stop, and is not tried here), and so is a 3xx,
  // the first status past the successes (a redirect is not followed, and is no success).
  for (const status of [500, 400, 429, 300]) {
    test(`a callback answered ${status} is retried with the same webhook-id`, { tag: ['@WH-103'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
      const numberId = smsNumber(knownNumbers);
      const channel = webhooks.channel(`retry-${status}`).respondWith(status);
      // Only this test's message's callback is answered `status`: a late event of an earlier
      // message, which the override may rightly take, is answered 200.
      const own = channel.scriptOnlyFor();
      await deliverTo(settings, numberId, channel.url, 'WH-103');
      const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), `wh-retry-${status}`)), 'WH-103');
      own(namesMessage(messageId!));
      const failed = await firstAtOverride(channel, messageId!, numberId, target.webhooks.timeoutMs);
      expect(failed!.answered, `WH-103: precondition: the first attempt was answered ${status}`).toBe(status);
      const id = failed!.headers['webhook-id'];
      expect(id, 'WH-103: the callback carries a webhook-id').toBeTruthy();
      // The retry is the attempt with the failed one's webhook-id: a server may send the message's
      // other events (a status before the final one) meanwhile, each with its own id.
      const [, retried] = await expectCallbacks(channel, 'WH-103', `a retry of the callback answered ${status} (webhook-id ${id})`, (c) => c.headers['webhook-id'] === id, { timeoutMs: target.webhooks.timeoutMs, count: 2 });
      expect(retried!.text, 'WH-103: the retry carries the same event').toBe(failed!.text);
      // The same request again: labelled as the first attempt was (a JSON body, Content-Type application/json).
      expect(retried!.headers['content-type'], `WH-103: the retry is labelled as the first attempt was (Content-Type ${failed!.headers['content-type'] ?? 'absent'})`).toBe(failed!.headers['content-type']);
    });
  }

  // Every message of a send, not only its first: each callback's first attempt is answered 500
  // and every later one 200. A server that keeps the retry of a send's first event only (a retry
  // slot per send, not per event) is right on every send to one recipient.
  test('every callback of a send to several recipients, each answered 500 at first, is retried with its own webhook-id', { tag: ['@WH-103'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    // Up to three recipients, as many as the target declares (with one, it is the retry of one event).
    const to = [...deliveredRecipients(target), ...target.recipients.delivered.slice(1, 3)];
    const channel = webhooks.channel('retry-every-event').answerWith((c, earlier) => (earlier.some((e) => e.headers['webhook-id'] === c.headers['webhook-id']) ? 200 : 500));
    const own = channel.scriptOnlyFor();
    await deliverTo(settings, numberId, channel.url, 'WH-103');
    const messageIds = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, to, 'wh-retry-every-event')), 'WH-103');
    own((c) => messageIds.some((id) => c.text.includes(id)));
    await Promise.all(
      messageIds.map(async (messageId) => {
        const failed = await firstAtOverride(channel, messageId, numberId, target.webhooks.timeoutMs);
        const id = failed.headers['webhook-id'];
        expect(id, 'WH-103: the callback carries a webhook-id').toBeTruthy();
        await expectCallbacks(channel, 'WH-103', `a retry of the callback of ${messageId} (webhook-id ${id}), one of ${messageIds.length} messages of one send, answered 500`, (c) => c.headers['webhook-id'] === id, { timeoutMs: target.webhooks.timeoutMs, count: 2 });
      }),
    );
  });

  // The other outcome: the event of a message that failed (a recipient of
  // triggers.failedDelivery), answered 500, is retried as a delivered message's is. A server that
  // builds the failure's event on another path, without the retry, is right on every test above.
  test("a callback reporting a failed message, answered 500, is retried with the same webhook-id and the same event", { tag: ['@WH-103'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const failing = target.triggers.failedDelivery?.recipients[0];
    if (failing === undefined) notTestable('needs a recipient whose messages fail (triggers.failedDelivery in the target config)');
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('retry-failed-outcome').respondWith(500);
    const own = channel.scriptOnlyFor();
    await deliverTo(settings, numberId, channel.url, 'WH-103');
    const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, [failing!], 'wh-retry-failed')), 'WH-103');
    own(namesMessage(messageId!));
    const failed = await firstAtOverride(channel, messageId!, numberId, target.webhooks.timeoutMs);
    expect(failed.answered, 'WH-103: precondition: the first attempt was answered 500').toBe(500);
    const id = failed.headers['webhook-id'];
    expect(id, 'WH-103: the callback carries a webhook-id').toBeTruthy();
    const [, retried] = await expectCallbacks(channel, 'WH-103', `a retry of the callback of the failed message (webhook-id ${id}), answered 500`, (c) => c.headers['webhook-id'] === id, { timeoutMs: target.webhooks.timeoutMs, count: 2 });
    expect(retried!.text, 'WH-103: the retry carries the same event').toBe(failed.text);
  });

  // A later moment: something else happens while a callback's retries are due. Its number is
  // written with the values it has (so where the callback goes does not change), another of the
  // client's numbers is written likewise, the client obtains a new token, or the send is retried
  // (safely, or with its key reused for another payload and refused); each on a callback of its
  // own, every attempt answered 500 until that is done, and 200 after. A server that drops
  // pending retries when a number's settings are written, any number's, when its client renews
  // its token, when the send's key is used again, or when another callback at the same override
  // is answered 410, is right on every retry nothing meets. A retry of the callback under another
  // webhook-id is no retry of it (WH-103).
  test("a callback answered 500 is still retried after its number, or another of its client's numbers, was written meanwhile (SMS turned off and on included), its client obtained a new token, its send was retried safely or unsafely, or another callback at its override was answered 410", { tag: ['@WH-103'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const records = await readNumbers(api);
    const sameValues = (id: string) => {
      const record = records.find((n) => n.numberId === id);
      return { smsEnabled: record?.smsEnabled ?? true, ...(record && 'campaignregId' in record && { campaignregId: record.campaignregId }) };
    };
    const neighbour = knownNumbers.primary.find((n) => n.numberId !== numberId)?.numberId;
    // What a step's action is given: the send whose callback fails, its channel, and the marks
    // (an externalReference, a messageId) of callbacks that channel answers 410 Gone.
    type Sent = { key: string; payload: ReturnType<typeof smsPayload>; channel: WebhookChannel; gone: string[] };
    const meanwhile: Array<{ label: string; what: string; run: (sent: Sent) => Promise<void> }> = [
      { label: 'own-number', what: `its number ${numberId} was updated to the values it had`, run: async () => expect(await settings.change(numberId, sameValues(numberId))).toSucceed(`WH-103: precondition: the update of ${numberId} to the values it has is accepted`) },
      ...(neighbour === undefined
        ? []
        : [{ label: 'neighbour', what: `another of the client's numbers, ${neighbour}, was updated to the values it had`, run: async () => expect(await settings.change(neighbour, sameValues(neighbour))).toSucceed(`WH-103: precondition: the update of ${neighbour} to the values it has is accepted`) }]),
      { label: 'new-token', what: 'the client obtained a new token', run: async () => expect(await api.call('token', tokenRequest('json', target.clients.primary))).toSucceed('WH-103: precondition: a new token of the primary client is issued') },
      // The send itself again: retried safely (the same key and payload), or its key reused for
      // another payload and refused. Neither is a new outcome, nor the end of the first one's.
      {
        label: 'safe-retry',
        what: 'the send was retried safely (the same key and payload)',
        run: async ({ key, payload }) => {
          expectQueuedFor(await send(api, key, payload), 'WH-103', 'precondition: the safe retry of the send');
        },
      },
      { label: 'unsafe-retry', what: 'its key was reused for another payload, and refused', run: async ({ key, payload }) => expect(await send(api, key, { ...payload, text: `${payload.text} (changed)` })).not.toSucceed('WH-103: precondition: the unsafe retry is refused (IDEM-002)') },
      // Another message of the same number whose callback is answered 410 Gone: the 410 settles
      // that callback (WH-105), not every callback of its number or receiver.
      {
        label: 'gone-neighbour',
        what: `another message's callback at the same override was answered 410 Gone`,
        run: async ({ channel, gone }) => {
          const other = smsPayload(numberId, deliveredRecipients(target), 'wh-retry-gone-other');
          gone.push(other.externalReference);
          const [otherId] = expectQueuedFor(await send(api, newKey(), other), 'WH-103', 'precondition: another send from the number');
          gone.push(otherId!);
          await expectCallbacks(channel, 'WH-103', `the callback of ${otherId}, answered 410`, namesMessage(otherId!), { timeoutMs: target.webhooks.timeoutMs });
        },
      },
      // A real change of the number, not one to the values it had: SMS turned off and on again. An
      // accepted message's outcome is owed whatever the number may send later.
      {
        label: 'sms-off',
        what: `its number ${numberId} had SMS turned off and on again`,
        run: async () => {
          const off = await settings.change(numberId, { smsEnabled: false });
          expect(off).toSucceed(`WH-103: precondition: the update of ${numberId} turning SMS off is accepted`);
          expect(await settings.change(numberId, sameValues(numberId))).toSucceed(`WH-103: precondition: the update of ${numberId} back to the values it had is accepted`);
        },
      },
    ];
    for (const { label, what, run } of meanwhile) {
      await test.step(`while a retry is due, ${what}`, async () => {
        let done = false;
        const gone: string[] = [];
        const markedGone = (c: ReceivedCallback) => gone.some((mark) => c.text.includes(mark));
        const channel = webhooks.channel(`retry-after-${label}`).answerWith((c) => (markedGone(c) ? 410 : done ? 200 : 500));
        const own = channel.scriptOnlyFor();
        await deliverTo(settings, numberId, channel.url, 'WH-103');
        const sent = { key: newKey(), payload: smsPayload(numberId, deliveredRecipients(target), `wh-retry-${label}`), channel, gone };
        const [messageId] = expectQueuedFor(await send(api, sent.key, sent.payload), 'WH-103');
        own((c) => namesMessage(messageId!)(c) || markedGone(c));
        const failed = await firstAtOverride(channel, messageId!, numberId, target.webhooks.timeoutMs);
        const id = failed.headers['webhook-id'];
        if (!id) notTestable('the callback carries no webhook-id, so its retries cannot be told apart (WH-101 judges the headers)');
        await run(sent);
        const doneAt = Date.now();
        done = true;
        const later = await channel.waitFor(`an attempt of ${id} after ${what}`, (c) => c.headers['webhook-id'] === id && c.receivedAt >= doneAt, { timeoutMs: target.webhooks.timeoutMs }).catch(() => null);
        // Attempts that kept coming meanwhile, and then none: the server's attempts may simply
        // have run out (its schedule is its own), so nothing is judged.
        const during = channel.received.filter((c) => c.headers['webhook-id'] === id && c.receivedAt > failed.receivedAt && c.receivedAt < doneAt);
        if (later === null && during.length > 0) notTestable(`the callback ${id} was tried ${during.length + 1} times before ${what} and not after: its retries may have run out meanwhile`);
        expect(later, `WH-103: the callback ${id}, answered 500, was not tried again within webhooks.timeoutMs (${target.webhooks.timeoutMs} ms) once ${what}: that dropped its retries`).not.toBeNull();
      });
    }
  });

  // The other kind of event section 6 sends: inbound traffic. A server whose retry queue holds
  // delivery outcomes alone sends each inbound event once, and is right on every delivery
  // callback above.
  test('an inbound callback answered 500 is retried with the same webhook-id and the same event', { tag: ['@WH-110'] }, async ({ target, settings, webhooks, inbound }) => {
    const channel = webhooks.channel('inbound-retry').respondWith(500);
    const own = channel.scriptOnlyFor();
    await inboundTo(settings, inbound.numberId, channel.url, 'WH-110');
    const text = `Conformance inbound ${randomUUID()}`;
    own(inboundNaming(text));
    await inbound.deliver(text, 'WH-110');
    const [failed] = await expectCallbacks(channel, 'WH-110', 'the inbound callback naming its text', inboundNaming(text), { timeoutMs: target.webhooks.timeoutMs });
    expect(failed!.answered, 'WH-110: precondition: the first attempt was answered 500').toBe(500);
    const id = failed!.headers['webhook-id'];
    expect(id, 'WH-110: the inbound callback carries a webhook-id').toBeTruthy();
    const [, retried] = await expectCallbacks(channel, 'WH-110', `a retry of the inbound callback answered 500 (webhook-id ${id})`, (c) => c.headers['webhook-id'] === id, { timeoutMs: target.webhooks.timeoutMs, count: 2 });
    expect(retried!.text, 'WH-110: the retry carries the same event').toBe(failed!.text);
  });

  // And 410 Gone on that kind too (as WH-105 has it for delivery callbacks): an inbound callback
  // answered 500, then 410, is not tried again. A server that honours 410 on its delivery outcomes
  // alone keeps retrying inbound traffic. The gap before the first retry says how long to watch, as
  // for the delivery callback.
  test('an inbound callback answered 410 Gone is not tried again', { tag: ['@WH-110'] }, async ({ target, settings, webhooks, inbound }) => {
    const channel = webhooks.channel('inbound-gone').respondWith(500, 410);
    const { id, attempts } = await inboundAttempts({ target, settings, inbound }, channel, 'answered 500');
    expect(attempts.map((a) => a.answered), 'WH-110: precondition: the first attempt was answered 500, the second 410').toEqual([500, 410]);
    const gap = attempts[1]!.receivedAt - attempts[0]!.receivedAt;
    await new Promise((resolve) => setTimeout(resolve, Math.max(1_000, 4 * gap)));
    const after = channel.received.filter((c) => c.headers['webhook-id'] === id);
    expect(after.length, `WH-110: no attempt of the inbound callback ${id} follows its 410 within ${Math.max(1_000, 4 * gap)} ms (four times the gap before the first retry, ${gap} ms)`).toBe(2);
  });

  // Retry-After on that kind too (as WH-106 has it for delivery callbacks): an inbound callback
  // answered 429 with Retry-After: 3 is not tried again before then (1 s allowed for the two
  // clocks, as for delivery callbacks). A server that reads Retry-After on its delivery outcomes
  // alone retries inbound traffic on its own backoff.
  test('an inbound callback answered 429 with Retry-After is not tried again before that time', { tag: ['@WH-110'] }, async ({ target, settings, webhooks, inbound }) => {
    const channel = webhooks.channel('inbound-retry-after').answerWith((_c, earlier) => (earlier.length === 0 ? { status: 429, headers: { 'retry-after': '3' } } : 200));
    const { id, attempts } = await inboundAttempts({ target, settings, inbound }, channel, 'answered 429');
    const waited = attempts[1]!.receivedAt - attempts[0]!.receivedAt;
    expect(waited, `WH-110: the retry of the inbound callback ${id}, answered 429 with Retry-After: 3, came ${waited} ms after it, before the 3 s it asked for (1 s allowed)`).toBeGreaterThanOrEqual(2_000);
  });

  // Standard Webhooks retries with exponential backoff: the waits grow. Each attempt of the
  // test's callback is failed until the fifth; the waits before the fourth and fifth, together,
  // must be more than BACKOFF_GROWTH times those before the second and third. Doubling waits give
  // four times, and at least twice under "equal jitter" (half of each wait random); linear ones
  // (1, 2, 3, 4 s) more than twice. Summed in pairs so that jitter, and this machine's own delays
  // in taking a callback, do not decide: a server that retries at a fixed interval, or sooner
  // each time, fails. A target whose fifth attempt does not come within webhooks.timeoutMs (a
  // schedule of minutes) is not testable here.
  // The rule holds however the callback fails, so it is checked three ways, each on a message
  // and a channel of its own: answered 500; its connection reset without an answer (a receiver
  // that crashes, a proxy that drops it: a server may keep two schedules, one per kind of
  // failure); and answered 429 with Retry-After first, then 500 (a server may start its backoff
  // afresh once it honoured a wait the receiver asked for, but the four waits after that answer
  // must grow as well). Each on its own channel, so a server that backs off per endpoint (a
  // success at one resetting its count) is judged on each message's schedule alone; the first
  // two on two numbers at once where the client has two. The first is the precondition: without
  // its five attempts nothing is judged; a sibling whose attempts do not come is noted.
  test('a callback that keeps failing is retried with growing waits, whether it is answered with an error status or its connection is reset, and after a Retry-After it honoured', { tag: ['@WH-108', '@WH-103'] }, async ({ api, knownNumbers, settings, webhooks, target, newKey }) => {
    const ways: Array<{ label: string; what: string; answer: (attempt: number) => CallbackAnswer; from: number }> = [
      { label: 'retry-backoff', what: 'answered 500 each time', answer: (attempt) => (attempt >= 4 ? 200 : 500), from: 0 },
      { label: 'retry-backoff-reset', what: 'its connection reset without an answer each time', answer: (attempt) => (attempt >= 4 ? 200 : RESET), from: 0 },
      { label: 'retry-backoff-after-retry-after', what: 'answered 429 with Retry-After: 1 first, then 500 each time', answer: (attempt) => (attempt === 0 ? { status: 429, headers: { 'retry-after': '1' } } : attempt >= 5 ? 200 : 500), from: 1 },
    ];
    const schedule = async ({ label, what, answer, from }: (typeof ways)[number], numberId: string) => {
      const channel = webhooks.channel(label).answerWith((callback, earlier) => answer(earlier.filter((c) => c.headers['webhook-id'] === callback.headers['webhook-id']).length));
      const own = channel.scriptOnlyFor();
      await deliverTo(settings, numberId, channel.url, 'WH-108');
      const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), `wh-${label}`)), 'WH-108');
      own(namesMessage(messageId!));
      const first = await firstAtOverride(channel, messageId!, numberId, target.webhooks.timeoutMs);
      const id = first.headers['webhook-id'];
      if (!id) notTestable('the callback carries no webhook-id, so its retries cannot be told apart (WH-101 judges the headers)');
      const attempts = await channel.waitFor(`${from + 5} attempts of ${id}`, (c) => c.headers['webhook-id'] === id, { timeoutMs: target.webhooks.timeoutMs + from * 1_000, count: from + 5 }).catch(() => null);
      // The same event under another webhook-id is a retry too (its body is the first attempt's),
      // one a receiver that de-duplicates takes twice: a server that renames the event from some
      // attempt on is right on the first retry WH-103's tests look at.
      const renamed = [...new Set(channel.received.filter((c) => c.text === first.text).map((c) => c.headers['webhook-id']))].filter((other) => other !== id);
      expect.soft(renamed, `WH-103: an attempt of the event ${id}, ${what}, carries another webhook-id (${renamed.join(', ')}): every retry of one event carries its webhook-id`).toEqual([]);
      return { what, id: id!, from, at: attempts?.slice(from, from + 5).map((c) => c.receivedAt) ?? null };
    };
    const numberId = smsNumber(knownNumbers);
    const second = secondSmsNumber(knownNumbers);
    const schedules = second !== undefined ? await Promise.all([schedule(ways[0]!, numberId), schedule(ways[1]!, second)]) : [await schedule(ways[0]!, numberId), await schedule(ways[1]!, numberId)];
    schedules.push(await schedule(ways[2]!, numberId));
    if (schedules[0]!.at === null) notTestable(`fewer than five attempts of the failed callback ${schedules[0]!.id} came within webhooks.timeoutMs (${target.webhooks.timeoutMs} ms): its retry schedule is longer than the harness waits`);
    const waitsOf = (at: number[]) => at.slice(1).map((t, i) => t - at[i]!);
    const grows = (waits: number[]) => waits[2]! + waits[3]! > BACKOFF_GROWTH * (waits[0]! + waits[1]!);
    for (const [i, { what, id, from, at }] of schedules.entries()) {
      if (at === null) test.info().annotations.push({ type: 'note', description: `WH-108: the callback ${id}, ${what}, was not tried again often enough within webhooks.timeoutMs to judge its waits (WH-103 and WH-104 judge whether it is retried)` });
      // Waits of a tenth of a second (the bundled reference's schedule in a certification) are
      // within what a loaded machine adds to a callback's arrival: a schedule that does not grow
      // is measured once more, on a message of its own, and judged on that second measurement.
      // A server that does not back off does not on either; a late arrival is rarely late twice.
      const again = at !== null && !grows(waitsOf(at)) ? await schedule(ways[i]!, numberId) : undefined;
      const judged = again?.at ?? at;
      const measured = again === undefined ? '' : ` (measured again on ${again.id}, after waits of ${waitsOf(at!).map((w) => `${w} ms`).join(', ')} the first time)`;
      if (judged !== null) expect.soft(grows(waitsOf(judged)), `WH-108: the callback ${again?.at ? again.id : id}, ${what}, was retried after waits of ${waitsOf(judged).map((w) => `${w} ms`).join(', ')}${from > 0 ? ' (from its first 500 on)' : ''}${measured}: the later retries do not wait half as long again as the first (no backoff)`).toBe(true);
    }
  });

  // The other way a receiver can fail to answer: it takes the callback and says nothing. Its
  // first attempt is held unanswered for up to STALL_MS; a server that gives up on it before then
  // (its own timeout) has an attempt with no answer, no success (only a 2xx is), and tries again
  // with the same webhook-id. A server that waits longer is answered 200 and nothing is judged.
  test('a callback whose receiver does not answer before the server gives up on it is retried with the same webhook-id', { tag: ['@WH-104'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const holdMs = Math.min(STALL_MS, Math.floor(target.webhooks.timeoutMs / 2));
    const channel = webhooks.channel('stalled').answerWith((c, earlier) => (earlier.some((e) => e.headers['webhook-id'] === c.headers['webhook-id']) ? 200 : { status: 200, holdMs }));
    const own = channel.scriptOnlyFor();
    await deliverTo(settings, smsNumber(knownNumbers), channel.url, 'WH-104');
    const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'wh-stalled')), 'WH-104');
    own(namesMessage(messageId!));
    const first = await firstAtOverride(channel, messageId!, smsNumber(knownNumbers), target.webhooks.timeoutMs);
    const id = first.headers['webhook-id'];
    if (!id) notTestable('the callback carries no webhook-id, so its retries cannot be told apart (WH-101 judges the headers)');
    // Until the server gives up on the held attempt, or the hold is over and it was answered.
    while (first.abandonedAfterMs === undefined && Date.now() < first.receivedAt + holdMs + 200) await new Promise((resolve) => setTimeout(resolve, 50));
    if (first.abandonedAfterMs === undefined) notTestable(`the server waited ${holdMs} ms for the receiver's answer to ${id} without giving up: its timeout is longer than the harness holds a callback`);
    const [, retried] = await expectCallbacks(channel, 'WH-104', `a retry of ${id}, whose first attempt the server gave up on after ${first.abandonedAfterMs} ms without an answer`, (c) => c.headers['webhook-id'] === id, { timeoutMs: target.webhooks.timeoutMs, count: 2 });
    expect(retried!.text, 'WH-104: the retry carries the same event').toBe(first.text);
  });

  test('a callback to an unreachable receiver is retried once it is reachable', { tag: ['@WH-104'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const late = await webhooks.unreachable('unreachable');
    await deliverTo(settings, numberId, late.url, 'WH-104');
    const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-unreachable')), 'WH-104');
    // The channel resets every connection until it opens: the first attempt fails before any
    // HTTP answer, as on a closed port, and is seen, so the test knows the retry is a retry.
    await late.attempted(target.webhooks.timeoutMs).catch((error: Error) => {
      throw new Error(`WH-104: no delivery attempt reached the receiver while it was unreachable: ${error.message}`);
    });
    expect(late.received, 'WH-104: precondition: nothing could arrive while the receiver was down').toEqual([]);
    await late.open();
    await awaitCallback(late, messageId!, target.webhooks.timeoutMs, 'WH-104');
  });
});

/** The longest the receiver holds a callback unanswered, waiting for the server to give up on it (WH-104). */
const STALL_MS = 10_000;

/** How long the receiver asks the server to wait before it tries a callback again (WH-106). */
const RETRY_AFTER_SECONDS = 1;

type Fixtures = Parameters<Parameters<typeof test>[2]>[0];

/**
 * Sends an SMS whose callbacks go to a new channel, and answers the attempts of the first
 * callback naming it (one webhook-id) as `attemptAnswer` says for the attempt's index (0 the
 * first); every other callback gets 200. Resolves with the channel and that webhook-id once the
 * first attempt came; not testable when the callback carries no webhook-id.
 */
async function failOwnCallback(
  { api, target, knownNumbers, settings, webhooks, newKey }: Pick<Fixtures, 'api' | 'target' | 'knownNumbers' | 'settings' | 'webhooks' | 'newKey'>,
  id: 'WH-105' | 'WH-106' | 'WH-107',
  label: string,
  attemptAnswer: (attempt: number) => CallbackAnswer,
  numberId: string = smsNumber(knownNumbers),
): Promise<{ channel: WebhookChannel; webhookId: string }> {
  let failed: string | undefined;
  const channel = webhooks.channel(label).answerWith((c, earlier) => {
    const webhookId = c.headers['webhook-id'];
    if (!webhookId || webhookId !== (failed ??= webhookId)) return undefined;
    return attemptAnswer(earlier.filter((e) => e.headers['webhook-id'] === webhookId).length);
  });
  const own = channel.scriptOnlyFor();
  await deliverTo(settings, numberId, channel.url, id);
  const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), `wh-${label}`)), id);
  own(namesMessage(messageId!));
  const first = await firstAtOverride(channel, messageId!, numberId, target.webhooks.timeoutMs);
  const webhookId = first!.headers['webhook-id'];
  if (!webhookId) notTestable('the callback carries no webhook-id (WH-101 asks for one), so its attempts cannot be told from other callbacks');
  return { channel, webhookId };
}

test.describe('Standard Webhooks: a receiver that is gone, or asks for time', () => {
  test('a callback answered 410 Gone is not tried again, leaves the number as it was, and the outcome of a later message still reaches its own target', { tag: ['@WH-105', '@WH-001', '@NUM-006'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    // The first attempt of the test's own callback is answered 500 and its retry 410: the gap
    // between the two says how soon this server tries again, so the test knows how long to watch
    // for an attempt after the 410.
    const { channel, webhookId } = await failOwnCallback({ api, target, knownNumbers, settings, webhooks, newKey }, 'WH-105', 'gone', (attempt) => (attempt === 0 ? 500 : 410));
    // The number whose override answers 410 (the one failOwnCallback set), as the list shows it:
    // this test holds that number alone, so another worker's change of another is not read here.
    const goneNumber = smsNumber(knownNumbers);
    const recordOfGone = async () => (await readNumbers(api, 'primary')).find((n) => n.numberId === goneNumber);
    const numberBefore = await recordOfGone();
    const attempts = await channel.waitFor(`a retry of ${webhookId}`, (c) => c.headers['webhook-id'] === webhookId, { timeoutMs: target.webhooks.timeoutMs, count: 2 }).catch(() => null);
    if (attempts === null) notTestable(`the callback answered 500 was not tried again within webhooks.timeoutMs (${target.webhooks.timeoutMs} ms; WH-103), so how soon an attempt could follow a 410 is not known`);
    expect(attempts.map((a) => a.answered), 'WH-105: precondition: the first attempt was answered 500, the second 410').toEqual([500, 410]);
    // A sender that took the 410 for any failure would try again after about twice the first
    // gap (exponential backoff); four times it allows for jitter, and at least a second.
    const gap = attempts[1]!.receivedAt - attempts[0]!.receivedAt;
    await new Promise((resolve) => setTimeout(resolve, Math.max(1_000, 4 * gap)));
    const after = channel.received.filter((c) => c.headers['webhook-id'] === webhookId);
    expect(after.length, `WH-105: no attempt of ${webhookId} follows its 410 within ${Math.max(1_000, 4 * gap)} ms (four times the gap before the first retry, ${gap} ms)`).toBe(2);
    // What the 410 settles is the callback (and, for the server, that receiver): not the number's
    // settings, which change through the update route only. Its webhookDeliveryOverride is still
    // the one the client set.
    expect.soft(await recordOfGone(), `NUM-006: after ${goneNumber}'s override answered 410 Gone, the number is as the list showed it before (the override the client set included)`).toEqual(numberBefore);
    // A later moment: the 410 settles that callback, and at most that receiver (Standard
    // Webhooks: 410 disables the endpoint). The outcome of a later message of the same number,
    // its override pointed at another receiver, is still reported there (section 6, WH-001): a
    // server that stops every later callback of the client, or of the server, after one 410 is
    // right until a receiver first answers it.
    const numberId = smsNumber(knownNumbers);
    const later = webhooks.channel('after-gone');
    await deliverTo(settings, numberId, later.url, 'WH-001');
    const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-after-gone')), 'WH-001', 'the send after the 410');
    await awaitCallback(later, messageId!, target.webhooks.timeoutMs, "WH-001: after another receiver answered 410, the outcome of a later message still reaches the number's new override");
  });

  // The other side of WH-103: any 2xx is success (Standard Webhooks, "Delivery success and
  // failure"), not only 200. The first attempt is answered 500 and its retry the 2xx, so the gap
  // says how soon this server tries again; a sender that took the 2xx for a failure tries again
  // within four times that. 200 and 204, and 201 and 202, the statuses of a receiver that
  // queues what it takes: a server that counts 200 and 204 alone as success retries those.
  // Two at once, each on a number of its own where there are two.
  test('a callback answered 200, 201, 202 or 204 is delivered: it is not tried again', { tag: ['@WH-107'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const second = secondSmsNumber(knownNumbers);
    const check = async (status: 200 | 201 | 202 | 204, numberId: string) => {
      const { channel, webhookId } = await failOwnCallback({ api, target, knownNumbers, settings, webhooks, newKey }, 'WH-107', `delivered-${status}`, (attempt) => (attempt === 0 ? 500 : status), numberId);
      const attempts = await channel.waitFor(`a retry of ${webhookId}`, (c) => c.headers['webhook-id'] === webhookId, { timeoutMs: target.webhooks.timeoutMs, count: 2 }).catch(() => null);
      if (attempts === null) notTestable(`the callback answered 500 was not tried again within webhooks.timeoutMs (${target.webhooks.timeoutMs} ms; WH-103), so how soon an attempt could follow the ${status} is not known`);
      expect(attempts[1]!.answered, `WH-107: precondition: the retry was answered ${status}`).toBe(status);
      const gap = attempts[1]!.receivedAt - attempts[0]!.receivedAt;
      await new Promise((resolve) => setTimeout(resolve, Math.max(1_000, 4 * gap)));
      const after = channel.received.filter((c) => c.headers['webhook-id'] === webhookId);
      expect(after.length, `WH-107: no attempt of ${webhookId} follows its ${status} within ${Math.max(1_000, 4 * gap)} ms (four times the gap before the first retry, ${gap} ms): a 2xx is success`).toBe(2);
    };
    for (const [a, b] of [[200, 204], [202, 201]] as const) {
      if (second !== undefined) await Promise.all([check(a, smsNumber(knownNumbers)), check(b, second)]);
      else for (const status of [a, b]) await check(status, smsNumber(knownNumbers));
    }
  });

  test('a callback answered 429 with Retry-After, in seconds or as an HTTP date, or 503 with Retry-After, is not tried again before that time, and is tried again when that time has already come', { tag: ['@WH-106', '@WH-103'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    // RFC 9110 10.2.3 gives Retry-After two forms; both are tried at once, each on a message of
    // its own. The date is 2 to 3 s ahead, a whole second (its resolution). The server reads it
    // on its own clock, so 1 s is allowed for the two clocks to disagree, and more when its
    // webhook-timestamp shows its clock ahead; a server that ignores the date retries after its
    // backoff, well before.
    let dateMs = 0;
    // Each form on a number of its own, so both wait at once; with one number, one after the other.
    const second = secondSmsNumber(knownNumbers);
    const forms = [
      {
        label: 'retry-after',
        status: 429,
        numberId: smsNumber(knownNumbers),
        // Written with a leading zero, another spelling of the same delay-seconds (1*DIGIT): a
        // server that reads one digit, or none after a zero, retries at once.
        what: `Retry-After: ${String(RETRY_AFTER_SECONDS).padStart(2, '0')}`,
        header: () => String(RETRY_AFTER_SECONDS).padStart(2, '0'),
        // The server counts from when it read the answer, sent right after the first attempt arrived; 100 ms allows for the clocks' granularity.
        earliest: (firstAt: number, _first: ReceivedCallback) => firstAt + RETRY_AFTER_SECONDS * 1_000 - 100,
      },
      {
        label: 'retry-after-date',
        status: 429,
        numberId: second ?? smsNumber(knownNumbers),
        what: 'Retry-After as an HTTP date',
        header: () => new Date((dateMs = Math.ceil((Date.now() + 2_000) / 1_000) * 1_000)).toUTCString(),
        // A server whose clock runs ahead of this one reads the date sooner: its webhook-timestamp
        // (whole seconds) on the first attempt says by how much, at most, beyond the 1 s allowed.
        earliest: (firstAt: number, first: ReceivedCallback) => dateMs - 1_000 - Math.max(0, Number(first.headers['webhook-timestamp']) * 1_000 - firstAt || 0),
      },
    ];
    // `lead`: attempts answered a plain 500 first, so the Retry-After comes on a later failure.
    const check = async ({ label, status, numberId, what, header, earliest, due = false, lead = 0 }: (typeof forms)[number] & { due?: boolean; lead?: number }) => {
        const { channel, webhookId } = await failOwnCallback({ api, target, knownNumbers, settings, webhooks, newKey }, 'WH-106', label, (attempt) => (attempt < lead ? 500 : attempt === lead ? { status, headers: { 'retry-after': header() } } : 200), numberId);
        const all = await channel.waitFor(`a retry of ${webhookId}`, (c) => c.headers['webhook-id'] === webhookId, { timeoutMs: 3_000 + (lead + 1) * target.webhooks.timeoutMs, count: lead + 2 }).catch(() => null);
        const attempts = all?.slice(lead) ?? null;
        // The same event again under another webhook-id is a retry a receiver that de-duplicates
        // takes twice: a server that queues a callback answered with Retry-After afresh renames it.
        const first = channel.received.find((c) => c.headers['webhook-id'] === webhookId)!;
        const renamed = channel.received.filter((c) => c.text === first.text && c.headers['webhook-id'] !== webhookId).map((c) => c.headers['webhook-id'] ?? 'none');
        expect(renamed, `WH-103: the callback ${webhookId}, answered ${status} with ${what}, was tried again under another webhook-id (${renamed.join(', ')}): every retry of one event carries its webhook-id`).toEqual([]);
        // A time already come asks for no wait at all: never trying again is the failure WH-103 names.
        if (due) expect(attempts, `WH-103: the callback ${webhookId}, answered ${status} with ${what} (a time already come), was never tried again within webhooks.timeoutMs (${target.webhooks.timeoutMs} ms): a non-2xx answer is retried`).not.toBeNull();
        if (attempts === null) notTestable(`the callback answered ${status} with ${what} was not tried again within its time and webhooks.timeoutMs (WH-103 asks that it is)`);
        expect(attempts[0]!.answered, `WH-106: precondition: the first attempt was answered ${status} with ${what}`).toBe(status);
        const waited = attempts[1]!.receivedAt - attempts[0]!.receivedAt;
        expect(attempts[1]!.receivedAt, `WH-106: the retry of ${webhookId} came ${waited} ms after the ${status} answer with ${what}, before the time it asked for`).toBeGreaterThanOrEqual(earliest(attempts[0]!.receivedAt, attempts[0]!));
    };
    if (second !== undefined) await Promise.all(forms.map(check));
    else for (const form of forms) await check(form);
    // The same delay on a 503, the other status RFC 9110 10.2.3 pairs with Retry-After: a server
    // that reads the header on a 429 alone retries a 503 after its backoff.
    // And a Retry-After on a later failure than the first (500, then 503 with Retry-After): a
    // server that reads it on the first failure alone retries after its backoff. Beside the 503
    // on another number, where there are two.
    const later = [
      { ...forms[0]!, label: 'retry-after-503', status: 503 },
      { ...forms[0]!, numberId: second ?? smsNumber(knownNumbers), label: 'retry-after-second-failure', status: 503, what: `Retry-After: ${String(RETRY_AFTER_SECONDS).padStart(2, '0')} on the second failure, after a 500`, lead: 1 },
    ];
    if (second !== undefined) await Promise.all(later.map(check));
    else for (const form of later) await check(form);
    // And a time already come, in both forms: Retry-After 0, and a date a minute past. Each asks
    // for a retry at once (no earliest time); a server that reads either as "do not retry" drops
    // the event, and its outcome is never reported.
    const due = [
      { ...forms[0]!, label: 'retry-after-zero', what: 'Retry-After: 0', header: () => '0', earliest: (firstAt: number) => firstAt, due: true },
      { ...forms[1]!, label: 'retry-after-past', status: 503, what: 'Retry-After as a date a minute past', header: () => new Date(Math.floor(Date.now() / 1_000) * 1_000 - 60_000).toUTCString(), earliest: (firstAt: number) => firstAt, due: true },
    ];
    if (second !== undefined) await Promise.all(due.map(check));
    else for (const form of due) await check(form);
  });
});
