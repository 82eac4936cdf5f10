import { randomUUID } from 'node:crypto';
import { expect, notTestable, numberResource, test } from '../../harness/fixtures.ts';
import { deliveredRecipients, expectQueuedFor, externalRef, messageIdsOf, otherSenders, recipientsOf, secondSmsNumber, send, sendableNumberOf, smsNumber, smsPayload } from '../support/sends.ts';
import { awaitCallback, deliverTo, expectCallbacks, namesMessage, quietPeriod } from '../support/callbacks.ts';
import { heldBySecondary, inboundNaming, inboundTo, reportsMessage, untilControlCallback } from './webhook-support.ts';
import { reasonFor } from '../../harness/plan.ts';
import { canSendSms, readNumbers } from '../../harness/known-numbers.ts';
import { carriesFinalStatus, stringsIn, type WebhookChannel } from '../../harness/webhook-receiver.ts';
import { verificationProblem } from '../../harness/webhook-signature.ts';
import type { Target } from '../../harness/config.ts';
import type { Inbound, TriggerSet } from '../../harness/triggers.ts';
import type { SettingsGuard } from '../../harness/settings-guard.ts';
import type { RequirementLabel } from '../../harness/requirement-ids.ts';
import { isRequestDefectAnswer } from '../../harness/answer-classes.ts';
import { testRecipients } from '../support/properties.ts';

// Sections 3 and 6: the final outcome of a message arrives later by webhook, at the sending
// number's webhookDeliveryOverride or else the client's delivery webhook; inbound traffic
// likewise. Payload fields, signing and retries are not shown (WH-006), so at this level a
// callback is recognised by naming the messageId anywhere in its JSON body, and a redelivery
// is tolerated (channels de-duplicate by webhook-id).

/**
 * An inbound message to `inbound`'s number arrives at the client's inbound webhook (WH-005) and,
 * once as long again has passed (a copy to a wrong target goes out with the right one), none of
 * it at `elsewhere`, the target named `where`.
 */
async function inboundAtClientOnly(target: Target, triggers: TriggerSet, inbound: Inbound, elsewhere: WebhookChannel, where: string): Promise<void> {
  await triggers.withClientWebhook('inbound', 'WH-005', async (channel) => {
    const text = `Conformance inbound ${randomUUID()}`;
    const sent = Date.now();
    const { messageId } = await inbound.deliver(text, 'WH-005');
    await expectCallbacks(channel, 'WH-005', `an inbound callback naming its text${messageId ? ` or ${messageId}` : ''}`, inboundNaming(text, messageId), { timeoutMs: target.webhooks.timeoutMs });
    await quietPeriod(Date.now() - sent);
    expect(elsewhere.received.filter((c) => c.text.includes(text)).map((c) => c.text.slice(0, 200)), `WH-005: ${where} receives none of ${inbound.numberId}'s inbound traffic`).toEqual([]);
  });
}

/**
 * Point a number's override at a URL with a query string; whether it was taken. A server may
 * refuse such a URL as a request defect when it is set (the document does not say which URLs it
 * takes): there is no such override to call then, and the refusal is noted. Any other failure is
 * the update's (UPD-001).
 */
async function overrideWithQuery(settings: SettingsGuard, numberId: string, field: 'webhookDeliveryOverride' | 'webhookInboundOverride', url: string, id: RequirementLabel): Promise<boolean> {
  const res = await settings.change(numberId, { [field]: url });
  if (isRequestDefectAnswer(res.status)) {
    test.info().annotations.push({ type: 'note', description: `the target refused ${url} as ${numberId}'s ${field} (${res.describe()}): a URL with a query string is not one it takes` });
    return false;
  }
  expect(res).toSucceed(`UPD-001: setting ${field} of ${numberId} to a URL with a query string, which ${id} needs`);
  return true;
}

test.describe('6 delivery outcomes by webhook', () => {
  test("the outcome of a queued message is POSTed to the number's webhookDeliveryOverride", { tag: ['@WH-001'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('override');
    await deliverTo(settings, numberId, channel.url, 'WH-001');
    const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-override')), 'WH-001');
    const callback = await awaitCallback(channel, messageId!, target.webhooks.timeoutMs, 'WH-001');
    expect(callback.method, 'WH-001: the outcome is reported by a POST').toBe('POST');
    expect(channel.unique().filter(namesMessage(messageId!)).length, 'WH-001: the override received the outcome').toBeGreaterThan(0);
  });

  // The override is a URL, and its query string is part of it (RFC 3986 3.4): a receiver may route
  // by it. The outcome is POSTed to the URL as set, query and all; a server that keeps only the
  // path and host is right on every override without one. A server may refuse such a URL as a
  // request defect when it is set; the refusal is noted, and nothing else is judged.
  test("the outcome is POSTed to the number's webhookDeliveryOverride as set, its query string included", { tag: ['@WH-001'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const query = `route=${randomUUID()}&kind=delivery`;
    const channel = webhooks.channel('override-query', { query });
    if (await overrideWithQuery(settings, numberId, 'webhookDeliveryOverride', channel.url, 'WH-001')) {
      const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-override-query')), 'WH-001');
      const callback = await awaitCallback(channel, messageId!, target.webhooks.timeoutMs, 'WH-001');
      expect(callback.path, `WH-001: the outcome is POSTed to ${channel.url}, the override as set, query string included`).toBe(channel.path);
    }
  });

  // The recipient another client of the service holds: the outcome is the sender's, and goes to
  // the sending number's override like any other. A server that routes a message's outcome by
  // whoever holds the recipient's number is right on every recipient outside the service. The
  // recipient is a phone number the secondary client's list shows (where a record holds one, and
  // the target admits it as a recipient: recipients.allowPattern).
  test("the outcome of a message to a number another client holds is POSTed to the sending number's override", { tag: ['@WH-001'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    if (!target.clients.secondary) notTestable(reasonFor('secondClient'));
    const held = (await heldBySecondary(api, target))?.phone;
    if (held === undefined) notTestable("the secondary client's numbers list shows no phone number the target admits as a recipient (recipients.allowPattern)");
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('override-to-held');
    await deliverTo(settings, numberId, channel.url, 'WH-001');
    const res = await send(api, newKey(), smsPayload(numberId, [held!], 'wh-override-held'));
    if (res.status >= 400 && res.status < 500) notTestable(`the target refused a send to ${held}, a number of another client (${res.status}); the sandbox may admit only its test recipients`);
    const [messageId] = expectQueuedFor(res, 'WH-001', `the send to ${held}, a number of the secondary client`);
    await awaitCallback(channel, messageId!, target.webhooks.timeoutMs, `WH-001: the outcome of the message to ${held}, a number the secondary client holds, reaches the sending number's override`);
  });

  // Another identity: the number is another client's, set and sent by that client. A server
  // that honours the first client's overrides alone (or files overrides by client, not number)
  // sends that client's outcomes elsewhere.
  test("the outcome of the secondary client's message is POSTed to its number's webhookDeliveryOverride", { tag: ['@WH-001'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    if (!target.clients.secondary) notTestable(reasonFor('secondClient'));
    const numberId = knownNumbers.foreign;
    const record = numberId === undefined ? undefined : (await readNumbers(api, 'secondary')).find((n) => n.numberId === numberId);
    if (!record || !canSendSms(record)) notTestable("the worker's number of the secondary client cannot send SMS (a campaignregId and smsEnabled)");
    const channel = webhooks.channel('override-secondary');
    const pointed = await settings.change(numberId!, { webhookDeliveryOverride: channel.url }, 'secondary');
    expect(pointed).toSucceed("WH-001: precondition: the secondary client points its number's webhookDeliveryOverride at the receiver");
    const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId!, deliveredRecipients(target), 'wh-override-secondary'), 'secondary'), 'WH-001', "the secondary client's send");
    await awaitCallback(channel, messageId!, target.webhooks.timeoutMs, `WH-001: the outcome of the secondary client's message from ${numberId} reaches that number's webhookDeliveryOverride`);
  });

  test('the outcome of every message of a send reaches the override', { tag: ['@WH-001'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('override-many');
    await deliverTo(settings, numberId, channel.url, 'WH-001');
    const ids = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target, 2), 'wh-override-many')), 'WH-001');
    for (const messageId of ids) await awaitCallback(channel, messageId, target.webhooks.timeoutMs, 'WH-001');
  });

  test("the outcome of an MMS is POSTed to the number's webhookDeliveryOverride too", { tag: ['@WH-001'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    // Section 6 gives a number one delivery target for the outcome of its messages, whatever
    // their type: an MMS is reported where an SMS from the same number would be.
    if (!knownNumbers.mms) notTestable('needs an MMS-capable primary number with a campaignregId (numbers.mms in the target config)');
    if (target.mediaSample.length === 0) notTestable('needs a media sample (mediaSample in the target config)');
    const numberId = knownNumbers.mms!;
    const channel = webhooks.channel('override-mms');
    await deliverTo(settings, numberId, channel.url, 'WH-001');
    const mms = { sendFrom: numberId, to: deliveredRecipients(target), messageType: 'MMS', text: 'Conformance check wh-override-mms', media: target.mediaSample, externalReference: externalRef('wh-override-mms') };
    const [messageId] = expectQueuedFor(await send(api, newKey(), mms), 'WH-001', 'the MMS');
    const callback = await awaitCallback(channel, messageId!, target.webhooks.timeoutMs, 'WH-001');
    expect(callback.method, 'WH-001: the outcome of the MMS is reported by a POST').toBe('POST');
  });

  test("with an override set, the outcome goes to the override and not to the client's delivery webhook", { tag: ['@WH-001'] }, async ({ api, target, knownNumbers, settings, webhooks, triggers, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const override = webhooks.channel('override');
    await deliverTo(settings, numberId, override.url, 'WH-001');
    // A control message from another number, without an override, is reported to the client's
    // webhook (WH-002) after a wrongly sent copy by a server that delivers in order, so its
    // callback bounds the wait. The first number keeps its override all along: a server may pick
    // each event's target when it sends the event, and an override cleared while the message's
    // later events are on their way may rightly send them to the client's webhook.
    const controlNumber = secondSmsNumber(knownNumbers);
    if (controlNumber !== undefined) await deliverTo(settings, controlNumber, null, 'WH-001');
    await triggers.withClientWebhook('delivery', 'WH-001', async (clientHook) => {
      const sent = Date.now();
      const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-precedence')), 'WH-001');
      await awaitCallback(override, messageId!, target.webhooks.timeoutMs, 'WH-001');
      if (controlNumber !== undefined) {
        const [controlId] = expectQueuedFor(await send(api, newKey(), smsPayload(controlNumber, deliveredRecipients(target), 'wh-precedence-control')), 'WH-001', 'the control send');
        await untilControlCallback(clientHook, controlId!, 1_000);
      } else {
        await quietPeriod(Date.now() - sent);
      }
      expect(clientHook.received.filter(namesMessage(messageId!)), "WH-001: the client's delivery webhook gets nothing when the number overrides it").toEqual([]);
    });
  });

  // The number's other override: an inbound one only. Section 6 gives each number two targets,
  // one per kind; without a delivery override the outcome goes to the client's delivery webhook
  // (WH-002), never to the number's inbound override, which a server that falls back to "the
  // number's override" of any kind uses.
  test("the outcome of a message from a number with an inbound override only reaches the client's delivery webhook, not that inbound override", { tag: ['@WH-002'] }, async ({ api, target, knownNumbers, settings, webhooks, triggers, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const inboundOnly = webhooks.channel('inbound-only');
    await deliverTo(settings, numberId, null, 'WH-002');
    await inboundTo(settings, numberId, inboundOnly.url, 'WH-002');
    await triggers.withClientWebhook('delivery', 'WH-002', async (clientHook) => {
      const sent = Date.now();
      const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-inbound-only')), 'WH-002');
      await awaitCallback(clientHook, messageId!, target.webhooks.timeoutMs, 'WH-002');
      await quietPeriod(Date.now() - sent);
      expect(inboundOnly.received.filter(namesMessage(messageId!)).map((c) => c.text.slice(0, 200)), `WH-002: the outcome of a message from ${numberId}, which has an inbound override and no delivery override, reached the inbound override`).toEqual([]);
    });
  });

  // The neighbour that shares an attribute: another number of the client with the sending
  // number's campaignregId (one registration covers many numbers) and an override of its own. The
  // override is that number's (section 6: each number carries its own targets); a server that
  // looks the target up by the registration, not by the number, sends the outcome there.
  test("the outcome of a message from a number without an override reaches the client's delivery webhook, also when a number sharing its campaignregId has an override", { tag: ['@WH-002'] }, async ({ api, target, knownNumbers, settings, webhooks, triggers, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const neighbour = knownNumbers.primary.find((n) => n.numberId !== numberId);
    if (!neighbour) notTestable('needs a second number of the primary client');
    const campaign = knownNumbers.primary.find((n) => n.numberId === numberId)?.campaignregId;
    const neighbours = webhooks.channel('campaign-neighbour');
    await deliverTo(settings, numberId, null, 'WH-002');
    await deliverTo(settings, neighbour!.numberId, neighbours.url, 'WH-002');
    if (typeof campaign === 'string' && neighbour!.campaignregId !== campaign) {
      const shared = await settings.change(neighbour!.numberId, { campaignregId: campaign });
      if (shared.status < 200 || shared.status >= 300) notTestable(`the target refused to give ${neighbour!.numberId} the campaignregId ${campaign} of ${numberId} (${shared.status}): no two numbers share one`);
    }
    await triggers.withClientWebhook('delivery', 'WH-002', async (clientHook) => {
      const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-campaign-neighbour')), 'WH-002');
      await awaitCallback(clientHook, messageId!, target.webhooks.timeoutMs, 'WH-002');
      expect(neighbours.received.filter(namesMessage(messageId!)).map((c) => c.text.slice(0, 200)), `WH-002: the outcome of a message from ${numberId}, which has no override, reaches the override of ${neighbour!.numberId}, which shares its campaignregId`).toEqual([]);
    });
  });

  // A later moment of the same event: its first attempt at the override failed. The override is
  // still the number's, so the outcome is still the override's to receive, on every attempt; a
  // server whose retries fall back to the client's webhook reports it where the override says not
  // to. Whether the retry comes at all is WH-103's (standard level); here the client's webhook
  // must get nothing of the message while the override's retry, or the harness's wait, runs out.
  // Two attempts failed, not one: a server that falls back to the client's webhook from the third
  // attempt on is right on every outcome whose first retry succeeds. The attempts are awaited as
  // long as webhooks.timeoutMs allows (how many a server makes, and when, is open).
  test("with an override set whose receiver failed the first two attempts, the outcome still never reaches the client's delivery webhook", { tag: ['@WH-001'] }, async ({ api, target, knownNumbers, settings, webhooks, triggers, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const override = webhooks.channel('override-failing').respondWith(500, 500);
    const own = override.scriptOnlyFor();
    await deliverTo(settings, numberId, override.url, 'WH-001');
    await triggers.withClientWebhook('delivery', 'WH-001', async (clientHook) => {
      const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-override-retry')), 'WH-001');
      own(namesMessage(messageId!));
      await awaitCallback(override, messageId!, target.webhooks.timeoutMs, 'WH-001');
      // Whichever comes first: the third attempt at the override, or the outcome at the client's webhook.
      const waitMs = target.webhooks.timeoutMs;
      await Promise.race([
        override.waitFor(`a third attempt naming ${messageId}`, namesMessage(messageId!), { timeoutMs: waitMs, count: 3 }).catch(() => undefined),
        clientHook.waitFor(`the outcome of ${messageId}`, namesMessage(messageId!), { timeoutMs: waitMs }).catch(() => undefined),
      ]);
      expect(clientHook.received.filter(namesMessage(messageId!)).map((c) => c.text.slice(0, 200)), `WH-001: the outcome of ${messageId}, whose attempts at ${numberId}'s override were answered 500 (${override.received.filter(namesMessage(messageId!)).length} came there), reaches the client's delivery webhook, not the override`).toEqual([]);
    });
  });

  // The override's receiver answers 410 Gone: the outcome is settled there (Standard Webhooks has
  // the sender stop), and it does not move to another target. A server that re-sends a gone
  // outcome to the client's own webhook is right on every override that takes its callbacks.
  // Watched for as long as a retry of the reference's takes, at most webhooks.timeoutMs.
  test("an outcome whose override answered 410 Gone never reaches the client's delivery webhook", { tag: ['@WH-001'] }, async ({ api, target, knownNumbers, settings, webhooks, triggers, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const override = webhooks.channel('override-gone').respondWith(410);
    const own = override.scriptOnlyFor();
    await deliverTo(settings, numberId, override.url, 'WH-001');
    await triggers.withClientWebhook('delivery', 'WH-001', async (clientHook) => {
      const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-override-gone')), 'WH-001');
      own(namesMessage(messageId!));
      await awaitCallback(override, messageId!, target.webhooks.timeoutMs, 'WH-001');
      await clientHook.waitFor(`the outcome of ${messageId}`, namesMessage(messageId!), { timeoutMs: Math.min(target.webhooks.timeoutMs, 5_000) }).catch(() => undefined);
      expect(clientHook.received.filter(namesMessage(messageId!)).map((c) => c.text.slice(0, 200)), `WH-001: the outcome of ${messageId}, whose override at ${numberId} answered 410 Gone, reaches the client's delivery webhook, not the override`).toEqual([]);
    });
    // A later moment: the 410 settles that callback, at most that receiver. A later message of
    // the same number, its override moved to another receiver, is reported there: a server that
    // stops every later callback after one 410 is right until a receiver first answers it.
    const later = webhooks.channel('after-override-gone');
    await deliverTo(settings, numberId, later.url, 'WH-001');
    const [next] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-after-override-gone')), 'WH-001', 'the send after the 410');
    await awaitCallback(later, next!, target.webhooks.timeoutMs, "WH-001: after the number's override answered 410 Gone, the outcome of a later message still reaches the override it was moved to");
  });

  test("without an override, the outcome is POSTed to the client's delivery webhook", { tag: ['@WH-002'] }, async ({ api, target, knownNumbers, settings, triggers, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    await deliverTo(settings, numberId, null, 'WH-002');
    await triggers.withClientWebhook('delivery', 'WH-002', async (channel) => {
      const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-client')), 'WH-002');
      const callback = await awaitCallback(channel, messageId!, target.webhooks.timeoutMs, 'WH-002');
      expect(callback.method, 'WH-002: the outcome is reported by a POST').toBe('POST');
    });
  });

  // The same number a moment later: an override set, then cleared (null). The outcome goes to
  // the client's delivery webhook again, and none to the cleared override. A server that keeps
  // a cleared override as "set to nothing" is right on every number never given one.
  // The override is used before it is cleared (an outcome reported there): a server that
  // remembers where a number's outcomes went, and never forgets, is right on an override set and
  // cleared without a message between.
  test("an override set, used, and then cleared leaves the outcome to the client's delivery webhook, and none to the cleared override", { tag: ['@WH-002'] }, async ({ api, target, knownNumbers, settings, webhooks, triggers, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const cleared = webhooks.channel('cleared-delivery-override');
    await deliverTo(settings, numberId, cleared.url, 'WH-002');
    const [used] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-override-before-clear')), 'WH-002', 'the send while the override is set');
    await awaitCallback(cleared, used!, target.webhooks.timeoutMs, `WH-001: precondition: the outcome of ${used} reaches ${numberId}'s override while it is set`);
    await deliverTo(settings, numberId, null, 'WH-002');
    await triggers.withClientWebhook('delivery', 'WH-002', async (channel) => {
      const sent = Date.now();
      const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-cleared-override')), 'WH-002');
      await awaitCallback(channel, messageId!, target.webhooks.timeoutMs, `WH-002: with ${numberId}'s override cleared, its outcome reaches the client's delivery webhook`);
      await quietPeriod(Date.now() - sent);
      expect(cleared.received.filter(namesMessage(messageId!)).length, `WH-002: the cleared override of ${numberId} receives none of its outcomes`).toBe(0);
    });
  });
});

test.describe("6 a client's outcomes are its own", () => {
  // The sibling of the test above under another identity: a server that posts the outcomes of
  // a client without a delivery webhook (or of any client) to another client's webhook leaks one
  // tenant's messages to another. The primary's webhook must never see the second client's.
  test("another client's outcomes never come to this client's delivery webhook", { tag: ['@WH-002'] }, async ({ api, target, knownNumbers, settings, triggers, newKey, secondClient, lockHold }) => {
    void secondClient; // the fixture reports the test not testable without a second client
    if (!knownNumbers.foreign) notTestable('needs a number of the second client to send from (numbers.foreign in the target config)');
    const theirNumber = await sendableNumberOf(api, 'secondary', knownNumbers.foreign!);
    await lockHold.need([{ resource: numberResource('secondary', theirNumber), mode: 'shared' }]);
    const numberId = smsNumber(knownNumbers);
    await deliverTo(settings, numberId, null, 'WH-002');
    await triggers.withClientWebhook('delivery', 'WH-002', async (channel) => {
      const sent = Date.now();
      const theirs = expectQueuedFor(await send(api, newKey(), smsPayload(theirNumber, deliveredRecipients(target), 'wh-other-client'), 'secondary'), 'WH-002', "the second client's send");
      // The config's other clients too: a client without a webhook of its own is where a server
      // most often falls back to another tenant's. Their sends not being accepted is no matter here.
      const others = await Promise.all(
        (await otherSenders(api, target)).map(async (other) => ({ other, ids: messageIdsOf(await other.send(newKey(), smsPayload(other.numberId, deliveredRecipients(target), 'wh-other-client'))) })),
      );
      // A message of the primary's own after it: its outcome bounds the wait for a stray one.
      const [mine] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-own-after')), 'WH-002');
      await awaitCallback(channel, mine!, target.webhooks.timeoutMs, 'WH-002');
      await quietPeriod(Date.now() - sent);
      expect(channel.received.filter((c) => theirs.some((id) => c.text.includes(id))), "WH-002: no outcome of the second client's messages comes to the primary client's delivery webhook").toEqual([]);
      for (const { other, ids } of others) {
        expect(channel.received.filter((c) => ids.some((id) => c.text.includes(id))).map((c) => c.text.slice(0, 200)), `WH-002: no outcome of the messages of ${other.name} (sent from ${other.numberId}) comes to the primary client's delivery webhook (unless that client's own delivery webhook was configured to the primary's URL: point it elsewhere)`).toEqual([]);
      }
    });
  });
});

test.describe('6 a failed outcome goes where any outcome goes', () => {
  test("the outcome of a message to a recipient the sandbox fails is POSTed to the number's webhookDeliveryOverride", { tag: ['@WH-007'] }, async ({ api, knownNumbers, settings, webhooks, triggers, newKey, target }) => {
    const [failing] = triggers.failingRecipients();
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('override-failed');
    await deliverTo(settings, numberId, channel.url, 'WH-007');
    const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, [failing!], 'wh-override-failed')), 'WH-007');
    await awaitCallback(channel, messageId!, target.webhooks.timeoutMs, "WH-007: the failed outcome reaches the number's override");
  });
});

test.describe('3, 6 the final outcome of every message is reported', () => {
  // Section 6 reports "the final outcome of a message", and a send to several recipients queues
  // one message for each (4.6 rule 7): every messageId of the answer gets its own final
  // outcome, whatever its place in `to` or its type. Which statuses are final is not shown, so
  // the target declares them (webhooks.finalStatuses); an interim event does not count.
  const cases = [
    { title: 'every message of an SMS to several recipients', type: 'SMS' as const, failing: false },
    { title: 'every message of an MMS to several recipients', type: 'MMS' as const, failing: false },
    { title: 'a message that fails, beside one that is delivered, in one send', type: 'SMS' as const, failing: true },
    // The same with MMS: a server that reports the failure of an SMS right may not of an MMS.
    { title: 'a message that fails, beside one that is delivered, in one MMS send', type: 'MMS' as const, failing: true },
  ];
  for (const c of cases) {
    test(`${c.title} is reported by a callback with a final status`, { tag: ['@WH-008'] }, async ({ api, target, knownNumbers, settings, webhooks, triggers, newKey }) => {
      const finalStatuses = target.webhooks.finalStatuses;
      if (!finalStatuses) notTestable(reasonFor('finalStatuses'));
      if (c.type === 'MMS' && !knownNumbers.mms) notTestable('needs an MMS-capable primary number with a campaignregId (numbers.mms in the target config)');
      if (c.type === 'MMS' && target.mediaSample.length === 0) notTestable('needs a media sample (mediaSample in the target config)');
      // Four recipients, the failing one second: a server that reports the first two only, or
      // the first, is right on a send to two and wrong on the messages after them.
      const failing = c.failing ? triggers.failingRecipients() : [];
      const others = testRecipients(target).filter((r) => !failing.includes(r));
      if (others.length < (c.failing ? 3 : 4)) notTestable(`needs ${c.failing ? 3 : 4} recipients the target admits (recipients.delivered and recipients.allowPattern), it has ${others.length}`);
      const recipients = c.failing ? [others[0]!, failing[0]!, others[1]!, others[2]!] : others.slice(0, 4);
      const numberId = c.type === 'MMS' ? knownNumbers.mms! : smsNumber(knownNumbers);
      const channel = webhooks.channel(`final-${c.type.toLowerCase()}${c.failing ? '-failing' : ''}`);
      await deliverTo(settings, numberId, channel.url, 'WH-008');
      const reference = externalRef(`wh-final-${c.type.toLowerCase()}`);
      const body = c.type === 'MMS'
        ? { sendFrom: numberId, to: recipients, messageType: 'MMS', text: `Conformance check ${reference}`, media: target.mediaSample, externalReference: reference }
        : smsPayload(numberId, recipients, `wh-final${c.failing ? '-failing' : ''}`);
      // With a failing recipient, a send for each one the target declares puts it first: a
      // server that reports every message of a send with the first recipient's outcome is wrong
      // on one order or the other, and one that fails only the first recipient it was told of
      // reports the others delivered.
      const sends = [recipients, ...(c.failing ? failing.map((f) => [f, others[0]!]) : [])];
      const answered = await Promise.all(sends.map(async (to, i) => ({ to, ids: expectQueuedFor(await send(api, newKey(), { ...body, to, externalReference: `${reference}-${i}` }), 'WH-008') })));
      for (const { to, ids } of answered) {
        const outcomes: string[][] = [];
        for (const messageId of ids) {
          const final = (cb: Parameters<typeof carriesFinalStatus>[0] & { text: string }) => cb.text.includes(messageId) && carriesFinalStatus(cb, finalStatuses!);
          let reported: Array<Parameters<typeof carriesFinalStatus>[0]>;
          try {
            reported = await channel.waitFor(`a callback naming ${messageId} with a final status (${finalStatuses!.join(', ')})`, final, { timeoutMs: target.webhooks.timeoutMs });
          } catch (e) {
            const seen = channel.unique().filter(namesMessage(messageId));
            throw new Error(`WH-008: message ${messageId} of a ${c.type} to ${to.join(', ')} (answer's messageIds: ${ids.join(', ')}) was not reported with a final status: ${seen.length === 0 ? 'no callback named it' : `the callbacks that named it carried none of ${finalStatuses!.join(', ')}: ${seen.map((x) => x.text.slice(0, 200)).join(' | ')}`}. (${(e as Error).message.split('\n')[0]})`);
          }
          outcomes.push(finalStatuses!.filter((status) => reported.some((cb) => carriesFinalStatus(cb, [status]))));
        }
        // The target declares one recipient failing and the others delivered, so their messages'
        // outcomes differ: one final status for all of them reports some message with another's
        // outcome. Which status means which is the target's; only that they differ is read, and
        // only where each message's callbacks carry one final status.
        if (c.failing && outcomes.every((o) => o.length === 1)) {
          expect(new Set(outcomes.map((o) => o[0])).size, `WH-008: the messages of a send to ${to.join(', ')}, where ${to.filter((r) => failing.includes(r)).join(', ')} is a recipient the target declares failing (triggers.failedDelivery) and the others delivered, were all reported ${outcomes[0]![0]}: some message was reported with another's outcome`).toBeGreaterThan(1);
        }
      }
    });
  }
});

test.describe('3, 6 the final outcome of every message is reported, a recipient named twice included', () => {
  test('every message a send that names one recipient twice was answered with is reported by a callback with a final status, and no other message', { tag: ['@WH-008', '@WH-003'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    // The document does not forbid a recipient twice in `to`. However a server answers it (a
    // message for each place, or one and an error item), each messageId it gives is a message
    // whose final outcome section 6 reports: a server that sends one callback per phone number
    // leaves the other message unreported.
    const finalStatuses = target.webhooks.finalStatuses;
    if (!finalStatuses) notTestable(reasonFor('finalStatuses'));
    const [a, b] = deliveredRecipients(target, 2);
    if (!a || !b) notTestable('needs two recipients the target delivers to (recipients.delivered)');
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('final-repeated-recipient');
    await deliverTo(settings, numberId, channel.url, 'WH-008');
    const res = await send(api, newKey(), smsPayload(numberId, [a!, b!, a!], 'wh-final-twice'));
    if (res.status >= 400 && res.status < 500) notTestable(`the target refused a send naming ${a} twice (${res.status}): no message to follow`);
    const sent = Date.now();
    const ids = expectQueuedFor(res, 'WH-008');
    for (const messageId of ids) {
      const final = (cb: Parameters<typeof carriesFinalStatus>[0] & { text: string }) => cb.text.includes(messageId) && carriesFinalStatus(cb, finalStatuses!);
      await expectCallbacks(channel, 'WH-008', `a callback naming ${messageId} (of a send to ${a}, ${b}, ${a}; the answer's messageIds: ${ids.join(', ')}) with a final status (${finalStatuses!.join(', ')})`, final, { timeoutMs: target.webhooks.timeoutMs });
    }
    // The other way round: every message it reports is one an answer gave. A server that queues
    // a message for each place but answers with one item per phone number reports a message whose
    // messageId the client never got (WH-003: a callback names the messageId the send's answer
    // gave). After a quiet period as long as the outcomes took, a callback at the channel that
    // names no message any answer of the run gave is that message (an earlier test's late event
    // names one of the run's).
    await quietPeriod(Date.now() - sent);
    const known = [...api.messagesOfRun()];
    const unanswered = channel.unique().filter((c) => !known.some((messageId) => c.text.includes(messageId)));
    expect(unanswered.map((c) => c.text.slice(0, 200)), `WH-003: a send to ${a}, ${b}, ${a} was answered with the messageIds ${ids.join(', ')}, and the number's override was sent callbacks naming a message no answer gave`).toEqual([]);
  });
});

test.describe('3, 6 the final outcome of every message is reported, however like an earlier one it is', () => {
  test('a send repeated under a new key after the first was reported, same reference and recipient, is reported by a callback with a final status too', { tag: ['@WH-008'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    // externalReference is the caller's business key (4.6 table), which two operations may
    // share: a server that reports an outcome once per reference and recipient, to spare the
    // receiver a duplicate, is right on the first message and silent on the second.
    const finalStatuses = target.webhooks.finalStatuses;
    if (!finalStatuses) notTestable(reasonFor('finalStatuses'));
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('final-repeated');
    await deliverTo(settings, numberId, channel.url, 'WH-008');
    const body = smsPayload(numberId, deliveredRecipients(target).slice(0, 1), 'wh-final-repeated');
    const finalFor = (messageId: string) => (cb: Parameters<typeof carriesFinalStatus>[0] & { text: string }) => cb.text.includes(messageId) && carriesFinalStatus(cb, finalStatuses!);
    const [first] = expectQueuedFor(await send(api, newKey(), body), 'WH-008');
    await expectCallbacks(channel, 'WH-008', `a callback naming ${first} with a final status (${finalStatuses!.join(', ')})`, finalFor(first!), { timeoutMs: target.webhooks.timeoutMs });
    const [second] = expectQueuedFor(await send(api, newKey(), body), 'WH-008');
    expect(second, 'WH-008: precondition: the send under a new key is a new message (IDEM-005 judges keys)').not.toBe(first);
    await expectCallbacks(channel, 'WH-008', `a callback naming ${second}, the same send repeated under a new key, with a final status (${finalStatuses!.join(', ')})`, finalFor(second!), { timeoutMs: target.webhooks.timeoutMs });
  });
});

test.describe('3, 6 a message has one final outcome, however often it is reported', () => {
  // "The final outcome" of a message (sections 3 and 6) is one: a callback sent again (a retry
  // after the receiver failed it, or any later event) may repeat it, never report another. A
  // server that rebuilds a retried event, or reports a failed message again as delivered, is right
  // on a callback that is taken at once and wrong on its retry. The receiver fails the first
  // attempt of each of the test's events; whether and when a server retries is not shown (WH-006),
  // so a server that does not retry within webhooks.timeoutMs is judged on its first reports
  // alone. A recipient the target declares failing is among the recipients where there is one.
  test("every callback that reports a message's final status, its retries included, reports the same one, and a retried report still carries it", { tag: ['@WH-008'] }, async ({ api, target, knownNumbers, settings, webhooks, triggers, newKey }) => {
    const finalStatuses = target.webhooks.finalStatuses;
    if (!finalStatuses) notTestable(reasonFor('finalStatuses'));
    const failing = triggers.failingRecipients();
    const recipients = [deliveredRecipients(target)[0]!, ...failing.slice(0, 1)];
    const numberId = smsNumber(knownNumbers);
    // Each event's first attempt is answered 500, every later one 200; a callback without a
    // webhook-id cannot be told from a retry of it, and is taken.
    const channel = webhooks.channel('final-once').answerWith((callback, earlier) => {
      const id = callback.headers['webhook-id'];
      return id === undefined || earlier.some((c) => c.headers['webhook-id'] === id) ? 200 : 500;
    });
    const own = channel.scriptOnlyFor();
    await deliverTo(settings, numberId, channel.url, 'WH-008');
    const ids = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, recipients, 'wh-final-once')), 'WH-008');
    own((c) => ids.some((id) => c.text.includes(id)));
    for (const messageId of ids) {
      const final = (cb: Parameters<typeof carriesFinalStatus>[0] & { text: string }) => cb.text.includes(messageId) && carriesFinalStatus(cb, finalStatuses!);
      const [first] = await expectCallbacks(channel, 'WH-008', `a callback naming ${messageId} with a final status (${finalStatuses!.join(', ')})`, final, { timeoutMs: target.webhooks.timeoutMs });
      // Its retry, where the server retries: the attempt with the first one's webhook-id, or any later final report.
      const id = first!.headers['webhook-id'];
      await channel.waitFor(`another callback naming ${messageId} with a final status`, (c) => final(c) && c !== first && (id === undefined || c.headers['webhook-id'] === id), { timeoutMs: target.webhooks.timeoutMs }).catch(() => []);
      // The report answered 500 was not taken: where the server retried it (an attempt with its
      // webhook-id came), some report of the message's final status must have been taken (2xx).
      // A server that rebuilds the retry from what it has stored since (an interim status) sends
      // the outcome again, but never reports it to a receiver that takes it.
      const retried = id === undefined ? [] : channel.received.filter((c) => c !== first && c.headers['webhook-id'] === id);
      const taken = channel.received.filter((c) => final(c) && c.answered >= 200 && c.answered < 300);
      if (retried.length > 0) {
        expect(taken.length, `WH-008: message ${messageId}'s final status came only in the callback answered 500 (webhook-id ${id}); its retry carries no final status (${retried.map((c) => c.text.slice(0, 160)).join(' | ')}), so the outcome never reached a receiver that took it`).toBeGreaterThan(0);
      }
      const reports = channel.received.filter(final).map((cb) => finalStatuses!.filter((status) => carriesFinalStatus(cb, [status])));
      const reported = new Set(reports.filter((r) => r.length === 1).map((r) => r[0]));
      expect(reported.size, `WH-008: message ${messageId} of a send to ${recipients.join(', ')}${failing.length > 0 ? ` (${failing[0]} a recipient the target declares failing)` : ''} was reported by ${reports.length} callbacks (the first answered 500) with the final statuses ${[...reported].join(' and ')}: a message has one final outcome`).toBeLessThanOrEqual(1);
    }
  });
});

test.describe('6 what a delivery callback carries', () => {
  test('a delivery callback is a JSON body that names the messageId it reports', { tag: ['@WH-003'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('payload');
    await deliverTo(settings, numberId, channel.url, 'WH-003');
    const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-payload')), 'WH-003');
    const callback = await awaitCallback(channel, messageId!, target.webhooks.timeoutMs, 'WH-003');
    expect(callback.json, `WH-003: the callback body is JSON; got ${callback.text.slice(0, 200)}`).not.toBeUndefined();
    expect(reportsMessage(messageId!)(callback), `WH-003: the JSON body holds the messageId ${messageId} as a value; got ${callback.text.slice(0, 300)}`).toBe(true);
  });

  test('each message of a send is identified by its own messageId in a callback', { tag: ['@WH-003'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('payload-many');
    await deliverTo(settings, numberId, channel.url, 'WH-003');
    const to = deliveredRecipients(target, 2);
    const res = await send(api, newKey(), smsPayload(numberId, to, 'wh-payload-many'));
    const ids = expectQueuedFor(res, 'WH-003');
    // Where the answer pairs each messageId with its recipient (a result item holding one of
    // them), a callback that holds one recipient of the send holds that recipient's messageId: a
    // server that reports each message under another's messageId names every messageId once and
    // reports every outcome, yet tells the client one recipient's outcome as another's.
    const recipientOf = recipientsOf(res, to);
    for (const messageId of ids) {
      const callbacks = await expectCallbacks(channel, 'WH-003', `a JSON callback holding ${messageId}`, reportsMessage(messageId), { timeoutMs: target.webhooks.timeoutMs });
      const own = recipientOf.get(messageId);
      if (own === undefined) continue;
      for (const callback of callbacks) {
        const carried = [...new Set(stringsIn(callback.json).filter((value) => to.includes(value)))];
        if (carried.length !== 1) continue;
        expect(carried[0], `WH-003: the send's answer gave ${messageId} to ${own}, but a callback naming ${messageId} holds the recipient ${carried[0]}: it reports another message's outcome under this messageId; got ${callback.text.slice(0, 300)}`).toBe(own);
      }
    }
  });
});

test.describe('1, 4.6 rule 7: the outcome is reported later, not before the send is answered', () => {
  // The receiver holds its answers to this send's callbacks. A server that sends a callback and
  // waits for the receiver's answer before it answers the send answers seconds after the callback
  // arrived; one that dispatches the callback on its own answers at once, even when the callback
  // happens to arrive first.
  const HOLD_MS = 5_000;
  const WAITED_MS = 2_000;
  test("a send is answered while the receiver holds back its answer to the send's callback", { tag: ['@WH-009'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('held-answers').holdAnswers(HOLD_MS);
    await deliverTo(settings, numberId, channel.url, 'WH-009');
    const res = await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'wh-held-answers'));
    const answeredAt = Date.now();
    const ids = expectQueuedFor(res, 'WH-009');
    const before = channel.received.filter((c) => ids.some((id) => c.text.includes(id)) && answeredAt - c.receivedAt >= WAITED_MS);
    expect(
      before.map((c) => `a callback naming ${ids.filter((id) => c.text.includes(id)).join(', ')} arrived ${answeredAt - c.receivedAt} ms before the send was answered`),
      `WH-009: the send waited on its callback, whose answer the receiver held ${HOLD_MS / 1000} s: the outcome must come after the answer, not hold it back`,
    ).toEqual([]);
    // Its outcome still arrives (WH-001 judges where), so the hold left nothing unread.
    await awaitCallback(channel, ids[0]!, target.webhooks.timeoutMs + HOLD_MS, 'WH-001: precondition: the held callback arrives');
  });
});

test.describe('6 inbound traffic by webhook', () => {
  // The same traffic reached another way: the number named after another recipient of the send
  // that brings it about (triggers.inbound, kind loopback). A server that looks for its own
  // numbers among a send's first recipient only is right on the send of one.
  test("inbound traffic to a number named second among a send's recipients is POSTed to its webhookInboundOverride too", { tag: ['@WH-004'] }, async ({ target, settings, webhooks, inbound }) => {
    if (target.triggers.inbound?.kind !== 'loopback') notTestable('the inbound trigger is not a loopback send (triggers.inbound kind loopback): no send names the number beside another recipient');
    const channel = webhooks.channel('inbound-second-recipient');
    await inboundTo(settings, inbound.numberId, channel.url, 'WH-004');
    const text = `Conformance inbound ${randomUUID()}`;
    const { messageId } = await inbound.deliver(text, 'WH-004', { besides: deliveredRecipients(target, 1) });
    await expectCallbacks(channel, 'WH-004', `an inbound callback naming its text, the number named second among the send's recipients`, inboundNaming(text, messageId), { timeoutMs: target.webhooks.timeoutMs });
  });

  // The same traffic again, a moment later: a second message to the number with the same text,
  // from the same sender. Two messages arrive, so two inbound events: a server that suppresses
  // what looks like a carrier's duplicate (same sender, number and text) is right on every
  // message whose text is new.
  test('two messages with the same text, one after the other, each reach the webhookInboundOverride', { tag: ['@WH-004'] }, async ({ target, settings, webhooks, inbound }) => {
    const channel = webhooks.channel('inbound-same-text');
    await inboundTo(settings, inbound.numberId, channel.url, 'WH-004');
    const text = `Conformance inbound twice ${randomUUID()}`;
    await inbound.deliver(text, 'WH-004');
    await inbound.deliver(text, 'WH-004');
    await expectCallbacks(channel, 'WH-004', 'two inbound callbacks naming the same text', inboundNaming(text), { timeoutMs: target.webhooks.timeoutMs, count: 2 }).catch(() => []);
    const events = channel.unique().filter(inboundNaming(text));
    expect(events.length, `WH-004: two messages with the text "${text}" reached ${inbound.numberId}; ${events.length} inbound event(s) of theirs were taken at its override (by webhook-id)`).toBeGreaterThanOrEqual(2);
  });

  // The other messageType: an MMS to the number is inbound traffic as an SMS is (section 6
  // names no kind of traffic that is not delivered). A server that raises inbound events from
  // SMS alone is right on every loopback SMS.
  test("an inbound MMS (a loopback MMS to the number) is POSTed to its webhookInboundOverride too", { tag: ['@WH-004'] }, async ({ target, settings, webhooks, inbound }) => {
    if (target.triggers.inbound?.kind !== 'loopback') notTestable('the inbound trigger is not a loopback send (triggers.inbound kind loopback): the control plane delivers text alone');
    const channel = webhooks.channel('inbound-mms');
    await inboundTo(settings, inbound.numberId, channel.url, 'WH-004');
    const text = `Conformance inbound MMS ${randomUUID()}`;
    await inbound.deliver(text, 'WH-004', { mms: true });
    await expectCallbacks(channel, 'WH-004', 'an inbound callback naming the text of the loopback MMS', inboundNaming(text), { timeoutMs: target.webhooks.timeoutMs });
  });

  // Another identity on the receiving side: a number the secondary client holds, its inbound
  // override set by that client, gets the traffic a send of the primary client brings it. The
  // secondary client may have no inbound webhook of its own: the override is the number's
  // (section 6), whatever its client has. A server that delivers an override only for the
  // client that sent, or only when the client also has an inbound webhook, is right on every
  // send between the primary client's own numbers.
  test("inbound traffic to a number another client holds is POSTed to that number's webhookInboundOverride", { tag: ['@WH-004', '@WH-101'] }, async ({ api, target, knownNumbers, settings, webhooks, lockHold, newKey }) => {
    if (target.triggers.inbound?.kind !== 'loopback') notTestable('the inbound trigger is not a loopback send (triggers.inbound kind loopback): a send brings no inbound traffic about');
    if (!target.clients.secondary) notTestable(reasonFor('secondClient'));
    const held = await heldBySecondary(api, target);
    if (!held) notTestable("the secondary client's numbers list shows no phone number the target admits as a recipient (recipients.allowPattern)");
    const { record: theirs, phone } = held!;
    if (!('webhookInboundOverride' in theirs)) notTestable(`the numbers list does not show webhookInboundOverride of ${theirs.numberId}, so its change could not be put back`);
    if (theirs.numberId !== knownNumbers.foreign) await lockHold.need([{ resource: numberResource('secondary', theirs.numberId), mode: 'exclusive' }]);
    const channel = webhooks.channel('inbound-theirs-override');
    const pointed = await settings.change(theirs.numberId, { webhookInboundOverride: channel.url }, 'secondary');
    expect(pointed).toSucceed(`WH-004: precondition: the secondary client points the webhookInboundOverride of ${theirs.numberId} at the receiver`);
    const payload = { ...smsPayload(smsNumber(knownNumbers), [phone], 'inbound-theirs-override'), text: `Conformance inbound ${randomUUID()}` };
    const res = await send(api, newKey(), payload);
    if (res.status >= 400 && res.status < 500) notTestable(`the target refused a send to ${phone}, a number of another client (${res.status})`);
    expectQueuedFor(res, 'WH-004', `the send to ${phone}, a number of the secondary client`);
    const [callback] = await expectCallbacks(channel, 'WH-004', `the inbound callback naming the text sent to ${phone}, at the override the secondary client set on ${theirs.numberId}`, inboundNaming(payload.text), { timeoutMs: target.webhooks.timeoutMs });
    // Whose callback it is: the secondary client's, whose number it reached, so signed with that
    // client's secret (Standard Webhooks: the receiving endpoint's secret), never the sender's.
    const secret = target.clients.secondary?.webhookSecret;
    if (secret && callback!.headers['webhook-signature']) {
      const problem = verificationProblem(secret, callback!.headers, callback!.text, Number(callback!.headers['webhook-timestamp']));
      expect(problem, `WH-101: the inbound callback at the override of ${theirs.numberId}, the secondary client's number, verifies with the secondary client's secret, not the sending client's (empty means verified)`).toBe('');
    }
  });

  // Another identity: the number another client holds. Its inbound traffic is its owner's
  // (section 6: each client has its own inbound webhook, each number its own override), so a
  // send from the primary client to a phone number the secondary client holds, which has no
  // inbound override, brings the primary client nothing inbound: neither at its inbound webhook
  // nor at the sending number's inbound override. A server that files inbound traffic under the
  // client that sent it is right on every send between a client's own numbers. The send's own
  // delivery callback bounds the wait, with a quiet period after it.
  test("inbound traffic to a number another client holds never reaches the sending client's inbound webhook or the sending number's override", { tag: ['@WH-005'] }, async ({ api, target, knownNumbers, settings, webhooks, triggers, lockHold, newKey }) => {
    if (target.triggers.inbound?.kind !== 'loopback') notTestable('the inbound trigger is not a loopback send (triggers.inbound kind loopback): a send brings no inbound traffic about');
    if (!target.clients.secondary) notTestable(reasonFor('secondClient'));
    const held = await heldBySecondary(api, target);
    if (!held) notTestable("the secondary client's numbers list shows no phone number the target admits as a recipient (recipients.allowPattern)");
    const { record: theirs, phone } = held!;
    if (theirs.numberId !== knownNumbers.foreign) await lockHold.need([{ resource: numberResource('secondary', theirs.numberId), mode: 'exclusive' }]);
    const sender = smsNumber(knownNumbers);
    const inboundAtSender = webhooks.channel('inbound-at-sender');
    const outcomes = webhooks.channel('inbound-theirs-outcome');
    if ('webhookInboundOverride' in theirs) await settings.change(theirs.numberId, { webhookInboundOverride: null }, 'secondary');
    await inboundTo(settings, sender, inboundAtSender.url, 'WH-005');
    await deliverTo(settings, sender, outcomes.url, 'WH-005');
    await triggers.withClientWebhook('inbound', 'WH-005', async (clientChannel) => {
      const payload = { ...smsPayload(sender, [phone], 'inbound-theirs'), text: `Conformance inbound ${randomUUID()}` };
      const sent = Date.now();
      const res = await send(api, newKey(), payload);
      if (res.status >= 400 && res.status < 500) notTestable(`the target refused a send to ${phone}, a number of another client (${res.status})`);
      const [messageId] = expectQueuedFor(res, 'WH-005', `the send to ${phone}, a number of the secondary client`);
      await awaitCallback(outcomes, messageId!, target.webhooks.timeoutMs, 'WH-001: precondition: the outcome of the send to the secondary client\'s number reaches the sending number\'s override');
      await quietPeriod(Date.now() - sent);
      for (const [where, channel] of [["the sending client's inbound webhook", clientChannel], ["the sending number's inbound override", inboundAtSender]] as const) {
        // Each callback once, however often it was retried.
        expect(channel.unique().filter(inboundNaming(payload.text)).map((c) => c.text.slice(0, 200)), `WH-005: inbound traffic to ${phone}, the secondary client's number, never reaches ${where}`).toEqual([]);
      }
    });
  });

  test("an inbound message is POSTed to the number's webhookInboundOverride", { tag: ['@WH-004'] }, async ({ target, settings, webhooks, inbound }) => {
    const channel = webhooks.channel('inbound-override');
    await inboundTo(settings, inbound.numberId, channel.url, 'WH-004');
    const text = `Conformance inbound ${randomUUID()}`;
    const { messageId } = await inbound.deliver(text, 'WH-004');
    const [callback] = await expectCallbacks(channel, 'WH-004', `an inbound callback naming its text${messageId ? ` or ${messageId}` : ''}`, inboundNaming(text, messageId), {
      timeoutMs: target.webhooks.timeoutMs,
    });
    expect(callback!.method, 'WH-004: inbound traffic is delivered by a POST').toBe('POST');
  });

  test("an inbound message is POSTed to the number's webhookInboundOverride as set, its query string included", { tag: ['@WH-004'] }, async ({ target, settings, webhooks, inbound }) => {
    const query = `route=${randomUUID()}&kind=inbound`;
    const channel = webhooks.channel('inbound-override-query', { query });
    if (await overrideWithQuery(settings, inbound.numberId, 'webhookInboundOverride', channel.url, 'WH-004')) {
      const text = `Conformance inbound ${randomUUID()}`;
      const { messageId } = await inbound.deliver(text, 'WH-004');
      const [callback] = await expectCallbacks(channel, 'WH-004', `an inbound callback naming its text${messageId ? ` or ${messageId}` : ''}`, inboundNaming(text, messageId), { timeoutMs: target.webhooks.timeoutMs });
      expect(callback!.path, `WH-004: inbound traffic is POSTed to ${channel.url}, the override as set, query string included`).toBe(channel.path);
    }
  });

  // The inbound twin of WH-001's precedence, judged where the client's inbound webhook is
  // (WH-005): the override replaces that webhook for the number, it is not a copy beside it.
  // After the event reached the override, and a quiet period as long as that took, nothing
  // naming it reached the client's inbound webhook.
  test("with an inbound override set, inbound traffic goes to the override and not to the client's inbound webhook", { tag: ['@WH-005'] }, async ({ target, settings, webhooks, triggers, inbound }) => {
    const override = webhooks.channel('inbound-precedence');
    await inboundTo(settings, inbound.numberId, override.url, 'WH-005');
    await triggers.withClientWebhook('inbound', 'WH-005', async (clientHook) => {
      const text = `Conformance inbound ${randomUUID()}`;
      const sent = Date.now();
      const { messageId } = await inbound.deliver(text, 'WH-005');
      await expectCallbacks(override, 'WH-005', `an inbound callback naming its text${messageId ? ` or ${messageId}` : ''} at the number's override`, inboundNaming(text, messageId), { timeoutMs: target.webhooks.timeoutMs });
      await quietPeriod(Date.now() - sent);
      expect(clientHook.received.filter(inboundNaming(text, messageId)).map((c) => c.text.slice(0, 200)), "WH-005: the client's inbound webhook gets nothing when the number's inbound override is set").toEqual([]);
    });
  });

  test("without an override, an inbound message is POSTed to the client's inbound webhook", { tag: ['@WH-005'] }, async ({ target, settings, triggers, inbound }) => {
    await inboundTo(settings, inbound.numberId, null, 'WH-005');
    await triggers.withClientWebhook('inbound', 'WH-005', async (channel) => {
      const text = `Conformance inbound ${randomUUID()}`;
      const { messageId } = await inbound.deliver(text, 'WH-005');
      const [callback] = await expectCallbacks(channel, 'WH-005', `an inbound callback naming its text${messageId ? ` or ${messageId}` : ''}`, inboundNaming(text, messageId), {
        timeoutMs: target.webhooks.timeoutMs,
      });
      expect(callback!.method, 'WH-005: inbound traffic is delivered by a POST').toBe('POST');
    });
  });

  // And an inbound override set, then cleared: inbound traffic is the client's inbound webhook's again.
  test("an inbound override set and then cleared leaves inbound traffic to the client's inbound webhook, and none to the cleared override", { tag: ['@WH-005'] }, async ({ target, settings, webhooks, triggers, inbound }) => {
    const cleared = webhooks.channel('cleared-inbound-override');
    await inboundTo(settings, inbound.numberId, cleared.url, 'WH-005');
    await inboundTo(settings, inbound.numberId, null, 'WH-005');
    await inboundAtClientOnly(target, triggers, inbound, cleared, `the cleared inbound override of ${inbound.numberId}`);
  });

  test("with only a delivery override on the number, inbound traffic still goes to the client's inbound webhook, never to that delivery override", { tag: ['@WH-005'] }, async ({ target, settings, webhooks, triggers, inbound }) => {
    // The two kinds are distinct (section 6): a number's delivery override is no target for its
    // inbound traffic, whichever way a server falls back when the inbound override is unset.
    const deliveryChannel = webhooks.channel('inbound-neighbour');
    await inboundTo(settings, inbound.numberId, null, 'WH-005');
    await deliverTo(settings, inbound.numberId, deliveryChannel.url, 'WH-005');
    await inboundAtClientOnly(target, triggers, inbound, deliveryChannel, "the number's delivery override");
  });

  test("with an inbound override on another of the client's numbers only, inbound traffic to a number without one goes to the client's inbound webhook, never to that neighbour's override", { tag: ['@WH-005'] }, async ({ target, settings, webhooks, triggers, inbound, knownNumbers }) => {
    // The override is the number's own (section 6): a server that falls back to another
    // number's override (one of the same campaign, say) is right whenever no neighbour has one.
    const own = knownNumbers.primary.find((n) => n.numberId === inbound.numberId);
    const others = knownNumbers.primary.filter((n) => n.numberId !== inbound.numberId);
    const neighbour = others.find((n) => own?.campaignregId !== undefined && n.campaignregId === own.campaignregId) ?? others[0];
    if (!neighbour) notTestable('needs a second number of the primary client, to give it an inbound override');
    const neighbourChannel = webhooks.channel('inbound-neighbour-override');
    await inboundTo(settings, inbound.numberId, null, 'WH-005');
    await inboundTo(settings, neighbour!.numberId, neighbourChannel.url, 'WH-005');
    await inboundAtClientOnly(target, triggers, inbound, neighbourChannel, `the inbound override of ${neighbour!.numberId}`);
  });
});
