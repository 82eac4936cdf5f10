import type { ApiClient, ClientRole } from '../../harness/api-client.ts';
import { isRequestDefectAnswer } from '../../harness/answer-classes.ts';
import type { Target } from '../../harness/config.ts';
import { expect } from '../../harness/fixtures.ts';
import type { SettingsGuard } from '../../harness/settings-guard.ts';
import { carriesFinalStatus, ReceiverRefused, type ReceivedCallback, type WebhookChannel } from '../../harness/webhook-receiver.ts';
import { deliveredRecipients, expectQueuedFor, send, smsPayload } from './sends.ts';
import type { RequirementLabel } from '../../harness/requirement-ids.ts';

/**
 * Delivery callbacks, for the suites that check them (send, webhooks): point a number's
 * delivery callbacks at a channel of the harness's receiver, and wait for the ones that name a
 * message, with failures that start with the requirement ID.
 */

/**
 * Point a number's `field` override at `url` (null clears it), for test `id`; the settings
 * fixture restores the old target. A refusal of the receiver's URL as a request defect is the
 * run's problem (ReceiverRefused: the config's webhooks.publicUrl), except on the bundled
 * reference, whose webhook hosts the harness set itself; any other failure, and that one, is the
 * update's, judged on UPD-001, and the test stops before its own requirement.
 */
export async function pointOverride(settings: SettingsGuard, numberId: string, field: 'webhookDeliveryOverride' | 'webhookInboundOverride', url: string | null, id: RequirementLabel, as: ClientRole = 'primary'): Promise<void> {
  const res = await settings.change(numberId, { [field]: url }, as);
  if (url !== null && isRequestDefectAnswer(res.status) && !settings.ownFixtures) throw new ReceiverRefused(field, url, `${res.describe()} ${res.text.slice(0, 200)}`);
  expect(res).toSucceed(`UPD-001: setting ${field} of ${numberId}, which ${id} needs`);
}

/** Point a number's delivery callbacks at `url`; the settings fixture restores the old target. */
export async function deliverTo(settings: SettingsGuard, numberId: string, url: string | null, id: RequirementLabel): Promise<void> {
  await pointOverride(settings, numberId, 'webhookDeliveryOverride', url, id);
}

/** A callback whose raw body names `messageId` (the document shows no payload fields). */
export function namesMessage(messageId: string): (c: ReceivedCallback) => boolean {
  return (c) => c.text.includes(messageId);
}

/**
 * Wait until `count` callbacks on `channel` satisfy `predicate`; on timeout the failure starts
 * with the requirement ID and lists what did arrive (WebhookChannel.waitFor's message).
 */
export async function expectCallbacks(
  channel: WebhookChannel,
  id: RequirementLabel,
  description: string,
  predicate: (c: ReceivedCallback) => boolean,
  options: { timeoutMs: number; count?: number },
): Promise<ReceivedCallback[]> {
  try {
    return await channel.waitFor(description, predicate, options);
  } catch (e) {
    throw new Error(`${id}: ${(e as Error).message}`);
  }
}

/** Wait for the first callback naming `messageId` on `channel`. */
export async function awaitCallback(channel: WebhookChannel, messageId: string, timeoutMs: number, id: RequirementLabel): Promise<ReceivedCallback> {
  const [first] = await expectCallbacks(channel, id, `a callback naming ${messageId}`, namesMessage(messageId), { timeoutMs });
  return first!;
}

/**
 * Judge the absence of a callback fairly. A control send's callback arrived `latencyMs` after
 * its acceptance; a server that does not deliver its callbacks in order may still have a stray
 * one of an earlier request on its way, so wait as long again (at least 200 ms) before judging
 * that none came. The wait follows the target's own pace instead of a fixed sleep.
 */
export async function quietPeriod(latencyMs: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(200, latencyMs)));
}

/**
 * Wait until the outcome of each of `messageIds` is reported and taken in: where the target
 * declares its final statuses, a callback with one of them (an interim event is not the
 * outcome), then a quiet period as long as that took since `started`. The server records the
 * receiver's answer to its final callback after the receiver has it, and no event marks that
 * moment, so a key or a record the server drops then has been dropped when this returns.
 */
export async function outcomesSettled(channel: WebhookChannel, target: Target, messageIds: readonly string[], started: number, id: RequirementLabel): Promise<void> {
  const finalStatuses = target.webhooks.finalStatuses;
  if (finalStatuses) {
    for (const messageId of messageIds) {
      await expectCallbacks(channel, id, `a callback with a final status naming ${messageId}`, (c) => c.text.includes(messageId) && carriesFinalStatus(c, finalStatuses), { timeoutMs: target.webhooks.timeoutMs });
    }
  }
  await quietPeriod(Date.now() - started);
}

/**
 * After sends that must never be reported (refused ones, their externalReferences
 * `rejectedRefs`): send a control message from `numberId`, whose callbacks reach `channel`, wait
 * for them and a quiet period as long again, then fail if any callback on the channel names one
 * of `rejectedRefs` or is about anything but the control messages and the messages `expected`
 * (messageIds of sends the test made accepted before, whose callbacks belong there), or about any
 * other message an answer of the run reported: an earlier test's outcome may arrive late, at the
 * override the number has now (harness/run-messages.ts). Payload fields are open (section 6), so
 * a callback naming none of the run's messages is stray.
 */
export async function expectNoStrayCallbacks(
  api: ApiClient,
  target: Target,
  channel: WebhookChannel,
  numberId: string,
  key: string,
  rejectedRefs: string | readonly string[],
  id: RequirementLabel,
  what: string,
  expected: readonly string[] = [],
): Promise<void> {
  const refs = typeof rejectedRefs === 'string' ? [rejectedRefs] : rejectedRefs;
  const controlSent = Date.now();
  const controlIds = expectQueuedFor(await send(api, key, smsPayload(numberId, deliveredRecipients(target), 'control')), id, 'the control send');
  for (const messageId of controlIds) await awaitCallback(channel, messageId, target.webhooks.timeoutMs, `${id}: the control send is reported, so callbacks reach the receiver`);
  await quietPeriod(Date.now() - controlSent);
  const known = [...new Set([...controlIds, ...expected, ...api.messagesOfRun()])];
  const stray = channel.unique().filter((c) => refs.some((ref) => c.text.includes(ref)) || !known.some((messageId) => c.text.includes(messageId)));
  expect(stray.map((c) => c.text.slice(0, 200)), `${id}: no callback reports ${what} (externalReference ${refs.join(', ')})`).toEqual([]);
}
