import { randomUUID } from 'node:crypto';
import { expect, profileOnly, test } from '../../harness/fixtures.ts';
import type { ReceivedCallback } from '../../harness/webhook-receiver.ts';
import { deliveredRecipients, expectQueuedFor, send, smsNumber, smsPayload } from '../support/sends.ts';
import { deliverTo, expectCallbacks } from '../support/callbacks.ts';
import { inboundTo, reportsMessage, settle } from './webhook-support.ts';
import type { RequirementLabel } from '../../harness/requirement-ids.ts';

// The reference profile's webhook payloads and test outcomes (spec/profile.yaml
// webhook.payload, message.transitions, message.testOutcomes).
test.beforeEach(({ target }) => profileOnly(target));

/** RFC 3339 date-time with a zone, as `timestamp` carries it. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** The profile's event is a POST of a JSON body, labelled as one (Standard Webhooks): a receiver that reads by media type reads it. */
function expectJsonPost(event: ReceivedCallback, id: RequirementLabel, what: string): void {
  expect(event.method, `${id}: ${what} is a POST`).toBe('POST');
  expect((event.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase(), `${id}: ${what} is labelled Content-Type: application/json; headers ${JSON.stringify(event.headers)}`).toBe('application/json');
}

/** The delivery event for `messageId`, once it arrives. */
async function deliveryEventFor(channel: Parameters<typeof expectCallbacks>[0], messageId: string, id: RequirementLabel, timeoutMs: number): Promise<ReceivedCallback> {
  const [event] = await expectCallbacks(channel, id, `a delivery event with data.messageId ${messageId}`, (c) => c.json?.data?.messageId === messageId, { timeoutMs });
  return event!;
}

test.describe('profile webhook.payload: delivery events', () => {
  test('a delivery event is a JSON POST {type: message.delivery, timestamp, data: {messageId, status, to, sendFrom, externalReference}}, one per recipient', { tag: ['@WH-201'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('profile-delivery');
    await deliverTo(settings, numberId, channel.url, 'WH-201');
    const to = deliveredRecipients(target, 2);
    const body = smsPayload(numberId, to, 'wh-profile');
    const res = await send(api, newKey(), body);
    expectQueuedFor(res, 'WH-201');
    const byRecipient = new Map<string, string>(res.body.results.map((r: { to: string; messageId: string }) => [r.to, r.messageId]));
    for (const recipient of to) {
      const messageId = byRecipient.get(recipient);
      expect(messageId, `WH-201: precondition: the send reports a messageId for ${recipient}`).toBeTruthy();
      const event = await deliveryEventFor(channel, messageId!, 'WH-201', target.webhooks.timeoutMs);
      expectJsonPost(event, 'WH-201', `the delivery event for ${recipient}`);
      expect(event.json, `WH-201: the delivery event for ${recipient} has the profile's shape`).toEqual({
        type: 'message.delivery',
        timestamp: expect.stringMatching(RFC3339),
        data: { messageId, status: expect.stringMatching(/^(DELIVERED|FAILED)$/), to: recipient, sendFrom: numberId, externalReference: body.externalReference },
      });
    }
    // Redeliveries share a webhook-id; a second distinct event for one message would be two outcomes.
    // The wait stays fixed: a second outcome can be decided after the first, later than any
    // control message's, so no later callback bounds it.
    await settle(500);
    for (const recipient of to) {
      const distinct = channel.unique().filter(reportsMessage(byRecipient.get(recipient)!));
      expect(distinct.length, `WH-201: exactly one delivery event for ${recipient}`).toBe(1);
    }
  });
});

test.describe('profile message.testOutcomes', () => {
  test('a recipient in +1 NPA 555 0150..0199 ends FAILED', { tag: ['@WH-202'] }, async ({ api, target, knownNumbers, settings, webhooks, triggers, newKey }) => {
    const [failing] = triggers.failingRecipients();
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('profile-failed');
    await deliverTo(settings, numberId, channel.url, 'WH-202');
    const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, [failing!], 'wh-failed')), 'WH-202');
    const event = await deliveryEventFor(channel, messageId!, 'WH-202', target.webhooks.timeoutMs);
    expect(event.json?.data?.status, `WH-202: ${failing} ends FAILED`).toBe('FAILED');
    expect(event.json?.data?.errorCode, `WH-202: ${failing} fails with errorCode UNDELIVERABLE`).toBe('UNDELIVERABLE');
  });

  test('a recipient outside the failing range ends DELIVERED', { tag: ['@WH-202'] }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('profile-delivered');
    await deliverTo(settings, numberId, channel.url, 'WH-202');
    const [recipient] = deliveredRecipients(target);
    const [messageId] = expectQueuedFor(await send(api, newKey(), smsPayload(numberId, [recipient!], 'wh-delivered')), 'WH-202');
    const event = await deliveryEventFor(channel, messageId!, 'WH-202', target.webhooks.timeoutMs);
    expect(event.json?.data?.status, `WH-202: ${recipient} ends DELIVERED`).toBe('DELIVERED');
    expect(event.json?.data?.errorCode, `WH-202: a delivered message carries no errorCode`).toBeUndefined();
  });
});

test.describe('profile webhook.payload: inbound events', () => {
  test('an inbound event is a JSON POST {type: message.inbound, timestamp, data: {messageId, numberId, from, to, text}}', { tag: ['@WH-203'] }, async ({ knownNumbers, settings, webhooks, inbound, target }) => {
    const { numberId } = inbound;
    const channel = webhooks.channel('profile-inbound');
    await inboundTo(settings, numberId, channel.url, 'WH-203');
    const text = `Conformance inbound ${randomUUID()}`;
    const { messageId, from } = await inbound.deliver(text, 'WH-203');
    const [event] = await expectCallbacks(channel, 'WH-203', `an inbound event with data.text ${text}`, (c) => c.json?.data?.text === text, {
      timeoutMs: target.webhooks.timeoutMs,
    });
    const phoneNumber = knownNumbers.all.find((n) => n.numberId === numberId)?.phoneNumber;
    const e164 = expect.stringMatching(/^\+[1-9]\d{1,14}$/);
    expectJsonPost(event!, 'WH-203', 'the inbound event');
    expect(event!.json, "WH-203: the inbound event has the profile's shape").toEqual({
      type: 'message.inbound',
      timestamp: expect.stringMatching(RFC3339),
      // A loopback send reports the outbound message's id, not the inbound one's: then any id will do.
      data: { messageId: messageId ?? expect.any(String), numberId, from: from ?? e164, to: typeof phoneNumber === 'string' ? phoneNumber : e164, text },
    });
  });
});
