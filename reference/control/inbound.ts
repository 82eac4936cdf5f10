import type { ReferenceContext } from '../context.ts';
import { arrival } from '../delivery/arrival.ts';
import type { DueWebhook } from '../store/outbox.ts';

export interface SimulatedInbound {
  numberId: string;
  from: string;
  text: string;
}

/**
 * Records a message arriving at one of the service's numbers and commits its inbound event,
 * addressed to the number's webhookInboundOverride, else the client's inbound webhook.
 * Resolves to undefined when no such number exists.
 */
export async function receiveInbound(ctx: ReferenceContext, inbound: SimulatedInbound): Promise<{ messageId: string; webhook?: DueWebhook } | undefined> {
  const number = ctx.stores.numbers.byId(inbound.numberId);
  if (!number) return undefined;
  const client = ctx.stores.clients.byApiClientId(number.apiClientId)!;
  const { message, event, webhook } = arrival(ctx.behaviour.webhooks, client, number, inbound.from, inbound.text, Date.now(), ctx.options.wire['webhook.payload']);
  const state = await ctx.writes.run({ op: 'receiveInbound', message, event });
  return { messageId: message.messageId, ...(state === 'pending' && webhook && { webhook }) };
}
