// Event payloads of the reference profile (webhook.payload): a delivery event names its message
// by messageId (WH-003, WH-201); an inbound event as WH-203 describes.
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

export function deliveryEvent(data: DeliveryEventData, nowMs: number): string {
  return JSON.stringify({ type: 'message.delivery', timestamp: new Date(nowMs).toISOString(), data });
}

export function inboundEvent(data: InboundEventData, nowMs: number): string {
  return JSON.stringify({ type: 'message.inbound', timestamp: new Date(nowMs).toISOString(), data });
}
