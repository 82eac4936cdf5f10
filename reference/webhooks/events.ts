import type { WireChoices } from '../options.ts';

// Event payloads of the reference profile (webhook.payload): a delivery event names its message
// by messageId (WH-003, WH-201); an inbound event as WH-203 describes. The webhook.payload choice
// 'flat' puts the fields at the top instead, beside an `event` name and `occurredAt`.
export interface DeliveryEventData {
  messageId: string;
  status: 'DELIVERED' | 'FAILED';
  to: string;
  sendFrom: string;
  externalReference: string;
  errorCode?: string;
}

export interface InboundEventData {
  messageId: string;
  numberId: string;
  from: string;
  to: string;
  text: string;
}

type PayloadShape = WireChoices['webhook.payload'];

// The events of one request, and of requests in the same millisecond, share a timestamp: it is
// formatted once per millisecond.
let formattedMs = Number.NaN;
let formatted = '';

function isoTime(ms: number): string {
  if (ms !== formattedMs) {
    formatted = new Date(ms).toISOString();
    formattedMs = ms;
  }
  return formatted;
}

function event(type: string, data: DeliveryEventData | InboundEventData, nowMs: number, shape: PayloadShape): string {
  const at = isoTime(nowMs);
  return JSON.stringify(shape === 'flat' ? { event: type, occurredAt: at, ...data } : { type, timestamp: at, data });
}

export function deliveryEvent(data: DeliveryEventData, nowMs: number, shape: PayloadShape = 'typed'): string {
  return event('message.delivery', data, nowMs, shape);
}

export function inboundEvent(data: InboundEventData, nowMs: number, shape: PayloadShape = 'typed'): string {
  return event('message.inbound', data, nowMs, shape);
}
