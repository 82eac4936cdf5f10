import type { ApiClient } from '../../harness/api-client.ts';
import type { Target } from '../../harness/config.ts';
import { readNumbers, type NumberRecord } from '../../harness/known-numbers.ts';
import type { SettingsGuard } from '../../harness/settings-guard.ts';
import type { ReceivedCallback, WebhookChannel } from '../../harness/webhook-receiver.ts';
import { namesMessage, pointOverride } from '../support/callbacks.ts';
import { admittedPhoneOf, mentions } from '../support/sends.ts';
import type { RequirementLabel } from '../../harness/requirement-ids.ts';

/**
 * The webhook suites' own helpers. Pointing delivery callbacks at a channel and waiting for
 * them, which the send suite does too, is in ../support/callbacks.ts.
 */

/**
 * The first number of the secondary client whose record shows a phone number (a field whose
 * value is E.164) the target admits as a recipient (recipients.allowPattern), with that phone
 * number: a recipient the service holds for another client. Undefined when no record shows one.
 */
export async function heldBySecondary(api: ApiClient, target: Target): Promise<{ record: NumberRecord; phone: string } | undefined> {
  const phoneOf = admittedPhoneOf(target);
  const record = (await readNumbers(api, 'secondary')).find((n) => phoneOf(n) !== undefined);
  return record === undefined ? undefined : { record, phone: phoneOf(record)! };
}

/** Point a number's inbound callbacks at `url`; the settings fixture restores the old target. */
export async function inboundTo(settings: SettingsGuard, numberId: string, url: string | null, id: RequirementLabel): Promise<void> {
  await pointOverride(settings, numberId, 'webhookInboundOverride', url, id);
}

/** A callback whose JSON body holds `messageId` as a value somewhere. */
export function reportsMessage(messageId: string): (c: ReceivedCallback) => boolean {
  return (c) => c.json !== undefined && mentions(c.json, messageId);
}

/**
 * An inbound callback for the traffic a test brought about: its body names the text sent (a
 * unique one per test) or the messageId the trigger reported. Inbound payload fields are not
 * shown, and a loopback send reports no inbound messageId, so the text is what identifies it.
 */
export function inboundNaming(text: string, messageId?: string): (c: ReceivedCallback) => boolean {
  return (c) => c.text.includes(text) || (messageId !== undefined && c.text.includes(messageId));
}

/** Let late callbacks arrive before asserting that one did not. */
export function settle(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Before asserting that a callback did not arrive at `channel`: wait for the callback of a
 * control message sent after the stray one would have been, which a target that delivers its
 * callbacks in order sends after the stray one. Never waits longer than `atMostMs` and never
 * fails: the control only bounds the wait, and whether it is reported is another check's
 * business, so a target that does not report it within `atMostMs` gets that fixed wait.
 */
export async function untilControlCallback(channel: WebhookChannel, controlId: string, atMostMs: number): Promise<void> {
  await channel.waitFor(`the control callback naming ${controlId}`, namesMessage(controlId), { timeoutMs: atMostMs }).catch(() => undefined);
}
