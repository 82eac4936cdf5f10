// Before any suite runs, when the run waits for callbacks: does the target reach the harness's
// webhook receiver at all? A receiver the target cannot reach (a server in a container given
// 127.0.0.1, a tunnel that is down) would otherwise fail every callback requirement on the
// run's account. So the preflight points one number's webhookDeliveryOverride at a receiver on
// the port the first worker's receiver will take, sends one message, and waits a bounded time;
// with a control plane that sets the client's webhook to the same address, it tries that way
// too: a callback by it shows the receiver reachable, and a missing one by the override is then
// the target's failure for the suites to judge (WH-001). Declared client webhooks are the
// vendor's own setting at an address of their own, so they are tried as well, and must agree
// with the override: one way reaching the receiver and the other not stops the run, naming the
// config that decides the other's address. Nothing arriving stops the run (exit 2),
// naming webhooks.publicUrl and the address the target was given. Whatever the target does on
// the way that the document does not allow (a refused update, a refused send) is left to the
// suites: a note, and the run goes on.
import { randomUUID } from 'node:crypto';
import { acceptedMessageIds } from '../generators/send-port.ts';
import { isRequestDefectAnswer } from './answer-classes.ts';
import type { Target } from './config.ts';
import { canSendSms } from './known-numbers.ts';
import { ControlClient } from './control.ts';
import type { InterferenceWatch } from './interference.ts';
import { PreflightError, send, shown, stopOrNote, type PreflightResult } from './preflight.ts';
import { RecordedChannel } from './run-receiver.ts';
import { ReceiverRefused, WebhookReceiver, type WebhookChannel } from './webhook-receiver.ts';

export interface RoundTripOptions {
  origin: string;
  runDir: string;
  watch: InterferenceWatch;
  /** Per request; default the target's timeouts.requestMs. */
  timeoutMs?: number;
  /** How long to wait for the callback; default the target's webhooks.timeoutMs. */
  waitMs?: number;
  /** The harness started the target on this host from its own fixtures: the receiver is reachable, and a callback missing is the server's failure (preflight.ts, stopOrNote). */
  ownFixtures?: boolean;
}

/** The port the first worker's receiver takes (harness/fixtures.ts): the one the run's callbacks come to. */
export function firstWorkerPort(target: Target): number {
  const { listenPort } = target.webhooks;
  if (listenPort === 0) return 0;
  return target.triggers.clientWebhooks?.kind === 'declared' ? listenPort + 1 : listenPort;
}

export async function webhookRoundTrip(target: Target, result: PreflightResult, options: RoundTripOptions): Promise<void> {
  const token = result.tokens?.primary;
  const records = result.records?.primary ?? [];
  const number =
    records.find((n) => n.numberId === target.numbers.sms) ??
    records.find(canSendSms);
  const to = target.recipients.delivered[0];
  if (token === undefined || number === undefined || to === undefined) {
    result.notes.push('the webhook round trip was not tried: it needs a token, a number with a campaignregId that can send SMS, and a recipient (recipients.delivered)');
    return;
  }
  const numberId = number.numberId as string;
  const timeoutMs = options.timeoutMs ?? target.timeouts.requestMs;
  const waitMs = options.waitMs ?? target.webhooks.timeoutMs;
  const config = `in ${options.origin}`;
  const bearer = { authorization: `Bearer ${token}` };
  const json = { 'content-type': 'application/json' };
  const declared = target.triggers.clientWebhooks?.kind === 'declared';
  const update = (value: unknown) => {
    const route = target.routes.update;
    return send(route, target.baseUrl + route.path.replace('{numberId}', encodeURIComponent(numberId)), { ...bearer, ...json }, JSON.stringify({ webhookDeliveryOverride: value }), timeoutMs);
  };
  /** One message from the number, whose externalReference carries the run's mark: what names it in a callback (that and its messageIds), or null when it was not accepted. */
  const sendOne = async (what: string, from: string = numberId): Promise<string[] | null> => {
    const reference = `conformance-${options.watch.mark()}-preflight-${randomUUID().slice(0, 8)}`;
    const body = { sendFrom: from, to: [to], messageType: 'SMS', text: 'Conformance preflight: the webhook round trip', externalReference: reference };
    const answer = await send(target.routes.send, target.baseUrl + target.routes.send.path, { ...bearer, ...json, 'idempotency-key': randomUUID() }, JSON.stringify(body), timeoutMs);
    if (answer.status !== undefined && answer.status >= 200 && answer.status < 300) return [reference, ...acceptedMessageIds(answer.json)];
    result.notes.push(`the webhook round trip ${what}: the send was not accepted (${shown(answer)}); the suites judge it (SEND-008)`);
    return null;
  };
  const arrives = (channel: WebhookChannel, names: readonly string[]) =>
    channel.waitFor(`a callback naming ${names.join(' or ')}`, (c) => names.some((n) => c.text.includes(n)), { timeoutMs: waitMs }).then(() => true, () => false);

  const overridable = 'webhookDeliveryOverride' in number;
  const receiver = await WebhookReceiver.start({ host: target.webhooks.listenHost, port: firstWorkerPort(target), ...(target.webhooks.publicUrl && { publicUrl: target.webhooks.publicUrl }), watch: options.watch });
  const tried: string[] = [];
  /** Whether a callback came by the number's override: undefined when that way was not tried. */
  let byOverride: boolean | undefined;
  /** The channel the override pointed at, which goes on listening after the override is put back. */
  let overrideChannel: WebhookChannel | undefined;
  try {
    if (overridable) {
      const channel = receiver.channel('preflight');
      overrideChannel = channel;
      const set = await update(channel.url);
      const refused = set.status !== undefined && isRequestDefectAnswer(set.status);
      if (refused && !options.ownFixtures) throw new ReceiverRefused('webhookDeliveryOverride', channel.url, shown(set));
      if (refused) {
        result.notes.push(`the bundled reference, started from the harness's own fixtures, refused the receiver ${channel.url} as ${numberId}'s webhookDeliveryOverride (${shown(set)}): the server's failure, for the suites to judge (UPD-001)`);
      } else if (set.status !== undefined && set.status >= 200 && set.status < 300) {
        try {
          const started = Date.now();
          const names = await sendOne('by the number\'s override');
          if (names === null) return;
          byOverride = await arrives(channel, names);
          if (byOverride) {
            result.checked.push(`the target reached the harness's webhook receiver at ${channel.url} (${Date.now() - started} ms)`);
            // Declared client webhooks are the vendor's own setting, at an address of their own: checked below too.
            if (!declared) return;
          } else {
            tried.push(`${channel.url}, as the webhookDeliveryOverride of ${numberId}`);
          }
        } finally {
          await update(number.webhookDeliveryOverride);
        }
      } else {
        result.notes.push(`the webhook round trip could not point ${numberId}'s override at the receiver (${shown(set)}); the suites judge the update (UPD-001)`);
      }
    }
    if (declared) {
      // The primary client's delivery webhook, declared to point at the run receiver: a message from a number without an override reports there.
      const hook = new RecordedChannel(target, options.runDir, 'primary', 'delivery');
      // Another number that can send and shows no override, where there is one: the round trip
      // above set and cleared this number's override, and a server that keeps a cleared override
      // wrongly (WH-002) must not pass for a config whose client webhook is wrong.
      const untouched = byOverride === undefined ? undefined : records.find((n) => n.numberId !== numberId && canSendSms(n) && (n.webhookDeliveryOverride ?? null) === null);
      const from = (untouched?.numberId as string | undefined) ?? numberId;
      const cleared = untouched === undefined && overridable && number.webhookDeliveryOverride !== null ? await update(null) : null;
      try {
        const started = Date.now();
        const names = await sendOne('by the client\'s delivery webhook', from);
        if (names === null) return;
        const byClient = await arrives(hook, names);
        if (byClient && byOverride === false) {
          // Two addresses: the override's comes from webhooks.publicUrl, the client webhook's from
          // the vendor's own setting. One reached the receiver and the other did not: the config
          // cannot tell a publicUrl the target cannot reach from a target that ignores overrides.
          return stopOrNote(new PreflightError(
            `a callback came by the primary client's declared delivery webhook, and none by the number's override within ${Math.round(waitMs / 1000)} s`,
            `the override was ${tried[0]}; the client's webhook is set on your side, at the address of your own choosing, and reached the run receiver (${Date.now() - started} ms)`,
            `webhooks.publicUrl ${config}: the override's address comes from it, and the target could not reach it, while it reaches the address its client webhook names. Make webhooks.publicUrl that address (with {port}, each port's own). If the two already agree, the target does not report outcomes to a number's override (WH-001): certify through a control plane (hooks, clientWebhooks: { kind: control }) to have that judged`,
          ), result, options.ownFixtures, 'WH-001');
        }
        if (byClient) {
          result.checked.push(`the target reached the harness's run receiver at ${hook.url} (${Date.now() - started} ms)`);
          return;
        }
        if (byOverride === true && overrideChannel?.received.some((c) => names.some((n) => c.text.includes(n)))) {
          // The outcome went to the override the round trip had set and taken back: the receiver
          // and the config are fine, and the target kept an override it was told to forget (or
          // used another number's). That is the target's to answer for, and the suites judge it.
          result.notes.push(`the outcome of a message sent after ${numberId}'s override was put back came by that override, not by the client's delivery webhook: the receiver is reachable, and the suites judge where outcomes go (WH-002)`);
          return;
        }
        if (byOverride === true) {
          // The receiver is reachable by publicUrl, yet the client webhook declared to point at
          // the run receiver brought nothing: it points elsewhere (another run's receiver, a port
          // moved in the config only), or the target does not report to it.
          return stopOrNote(new PreflightError(
            `no callback came by the primary client's declared delivery webhook within ${Math.round(waitMs / 1000)} s, though one came by a number's override`,
            `a message from ${from}, without an override, reports to the client's delivery webhook (section 6); it is declared (triggers.clientWebhooks) to point at ${hook.url}, where the run receiver listens on ${target.webhooks.listenHost}:${target.webhooks.listenPort}, and nothing arrived there`,
            `the primary client's delivery webhook on your side: it must point at ${hook.url} for this config (webhooks.listenPort and webhooks.publicUrl ${config} decide that address; a second run needs its own). If it does, the target does not report outcomes to a client's webhook (WH-002): leave triggers.clientWebhooks out to run the rest`,
          ), result, options.ownFixtures, 'WH-002');
        }
        tried.push(`${hook.url}, as the primary client's declared delivery webhook`);
      } finally {
        if (cleared !== null) await update(number.webhookDeliveryOverride);
      }
    }
    const control = target.triggers.clientWebhooks?.kind === 'control' && target.hooks.controlUrl ? new ControlClient(target) : undefined;
    if (control) {
      // The primary client's delivery webhook, pointed at the receiver through the control plane:
      // a second way a callback can come, so a target that reports outcomes to a client webhook
      // and not to an override is told from one that cannot reach the receiver at all. Only a
      // client without one can be put back exactly (whoami shows whether, not where).
      const context = await send(target.routes.whoami, target.baseUrl + target.routes.whoami.path, bearer, undefined, timeoutMs);
      if ((context.json as { deliveryWebhookConfigured?: unknown } | undefined)?.deliveryWebhookConfigured === false) {
        const channel = receiver.channel('preflight-client');
        const clientId = target.clients.primary.clientId;
        const cleared = overridable && number.webhookDeliveryOverride !== null ? await update(null) : null;
        try {
          await control.clientWebhooks(clientId, { delivery: channel.url });
          const started = Date.now();
          const names = await sendOne("by the client's delivery webhook");
          if (names === null) return;
          if (await arrives(channel, names)) {
            result.checked.push(`the target reached the harness's webhook receiver at ${channel.url} (${Date.now() - started} ms)`);
            if (tried.length > 0) result.notes.push(`no callback came by ${tried[0]}, but one came by the client's webhook: the receiver is reachable, and the suites judge the override (WH-001)`);
            return;
          }
          tried.push(`${channel.url}, as the primary client's delivery webhook (through the control plane)`);
        } finally {
          await control.clientWebhooks(clientId, { delivery: null });
          if (cleared !== null) await update(number.webhookDeliveryOverride);
        }
      }
    }
    if (tried.length === 0) {
      result.notes.push('the webhook round trip was not tried: the numbers list does not show webhookDeliveryOverride, and no client webhook is declared');
      return;
    }
    const where = `${target.webhooks.listenHost}:${receiver.port}${declared ? ` and ${target.webhooks.listenHost}:${target.webhooks.listenPort}` : ''}`;
    stopOrNote(new PreflightError(
      `the target did not call the harness's webhook receiver within ${Math.round(waitMs / 1000)} s`,
      `the target was given ${tried.join('; and ')}; it accepted a send whose outcome would go there, and nothing arrived where the receiver listens (${where})`,
      `webhooks.publicUrl ${config}: an address of this machine the target can reach (a server in a container reaches the host at host.docker.internal, with extra_hosts: ["host.docker.internal:host-gateway"], or runs with host networking; a tunnel must be up); webhooks.listenHost and webhooks.listenPort say where the receiver listens. If the target can reach it, it does not report outcomes by webhook (WH-001), and no run can judge the webhook requirements until it does`,
    ), result, options.ownFixtures, 'WH-001');
  } finally {
    await receiver.close();
  }
}
