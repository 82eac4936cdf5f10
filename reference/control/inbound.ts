import type { ReferenceContext } from '../context.ts';
import { newId } from '../ids.ts';
import type { DueWebhook } from '../store/outbox.ts';
import { inboundEvent } from '../webhooks/events.ts';

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
  const now = Date.now();
  const messageId = newId('msg');
  const target = ctx.behaviour.webhooks.inboundTarget(client, number);
  const payload = inboundEvent({ messageId, numberId: number.numberId, from: inbound.from, to: number.phoneNumber, text: inbound.text }, now, ctx.options.wire['webhook.payload']);
  const webhookId = newId('evt');
  const state = await ctx.writes.run({
    op: 'receiveInbound',
    message: { messageId, apiClientId: client.apiClientId, numberId: number.numberId, from: inbound.from, text: inbound.text, createdAt: now },
    event: { webhookId, apiClientId: client.apiClientId, kind: 'message.inbound', messageId, targetUrl: target, payload, createdAt: now },
  });
  const webhook = state === 'pending' && target ? { webhookId, targetUrl: target, payload, webhookSecret: client.webhookSecret, attempts: 0, nextAttemptAt: now } : undefined;
  return { messageId, webhook };
}
