import type { ClientRecord } from '../store/clients.ts';
import type { NumberRecord } from '../store/numbers.ts';
import type { DueWebhook, WebhookKind } from '../store/outbox.ts';
import { deliveryEvent } from './events.ts';
import { parseRetryAfter, retryDelayMs } from './retryPolicy.ts';
import { signedHeaders } from './sign.ts';

/** Where callbacks go, what a delivery event says and how callbacks are signed. */
export interface WebhookPolicy {
  /** Where the delivery event of a message to `to` goes (WH-001, WH-002). */
  deliveryTarget(client: ClientRecord, number: NumberRecord, to: string): string | null;
  inboundTarget(client: ClientRecord, number: NumberRecord): string | null;
  deliveryEvent: typeof deliveryEvent;
  signedHeaders: typeof signedHeaders;
  /**
   * The body an attempt carries, from the event as it was made and the attempts before it (0 for
   * the first): the same event on every attempt (WH-103), so a message's final outcome is
   * reported once, however often it is sent (WH-008).
   */
  attemptPayload(payload: string, attemptsBefore: number): string;
  /**
   * Where an attempt goes, from the event as it was made and the attempts before it (0 for the
   * first): where the first went, the target picked when the event was made (WH-001, WH-004).
   */
  attemptTarget(webhook: Pick<DueWebhook, 'webhookId' | 'kind' | 'targetUrl'>, attemptsBefore: number): string;
  /** Whether an answer delivers the callback, so it is not tried again: any 2xx (Standard Webhooks; WH-103, WH-107). */
  delivered(attempt: FailedAttempt): boolean;
  retried(attempt: FailedAttempt): boolean;
  /** Whether an answer tells the server the receiver is gone, so the callback is not tried again (WH-105). */
  gone(attempt: FailedAttempt): boolean;
  /** How long to wait before the next attempt, the receiver's Retry-After honoured (WH-106). */
  retryDelayMs: typeof retryDelayMs;
  /** The receiver's Retry-After, in seconds or as an HTTP date, as seconds from now (WH-106). */
  parseRetryAfter: typeof parseRetryAfter;
  /** Which failed attempt's Retry-After the next attempt waits for: every one that carries it, 429 and 503 alike (WH-106). */
  honouredRetryAfter(attempt: FailedAttempt): number | undefined;
}

/** An attempt that did not deliver: the receiver's non-2xx status, or no answer at all (`error`), the kind of event it carried and its webhook-id. */
export interface FailedAttempt {
  status?: number;
  /** The receiver's Retry-After, as seconds from now (parseRetryAfter). */
  retryAfterSeconds?: number;
  error?: string;
  kind: WebhookKind;
  /** The callback's webhook-id, the same on each of its attempts (WH-103). */
  webhookId: string;
}

/**
 * A message's delivery event goes to the sending number's webhookDeliveryOverride (WH-001), else
 * to the sending client's delivery webhook (WH-002), whoever the recipient `to` is.
 */
function deliveryTarget(client: ClientRecord, number: NumberRecord, _to: string): string | null {
  return number.webhookDeliveryOverride ?? client.deliveryWebhookUrl;
}

/** An inbound message goes to the number's webhookInboundOverride (WH-004), else to the client's inbound webhook (WH-005). */
function inboundTarget(client: ClientRecord, number: NumberRecord): string | null {
  return number.webhookInboundOverride ?? client.inboundWebhookUrl;
}

/**
 * A failed attempt is tried again, with the same webhook-id, until the attempts run out: whether
 * the receiver answered non-2xx (WH-103) or could not be reached (WH-104), and whatever event it
 * carries, a delivery outcome or inbound traffic (WH-110). (410 Gone, the one answer that stops
 * retries, is settled before this is asked.)
 */
function retried(_attempt: FailedAttempt): boolean {
  return true;
}

/** Every attempt carries the event as it was made (WH-103, WH-008). */
function attemptPayload(payload: string, _attemptsBefore: number): string {
  return payload;
}

/** A Retry-After is honoured whatever status carries it (Standard Webhooks: honour Retry-After; RFC 9110 10.2.3 pairs it with 503 and 429). */
function honouredRetryAfter(attempt: FailedAttempt): number | undefined {
  return attempt.retryAfterSeconds;
}

/** Every attempt goes where the first went: a retry of an outcome reported to a number's override goes to that override, never to the client's webhook (WH-001, WH-103). */
function attemptTarget(webhook: Pick<DueWebhook, 'targetUrl'>, _attemptsBefore: number): string {
  return webhook.targetUrl;
}

/** Any 2xx is success, and only a 2xx (Standard Webhooks: a 3xx is a failure too). */
function delivered(attempt: FailedAttempt): boolean {
  return attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300;
}

/** 410 Gone stops the retries of a callback (Standard Webhooks; WH-105). */
function gone(attempt: FailedAttempt): boolean {
  return attempt.status === 410;
}

export const REFERENCE_WEBHOOKS: WebhookPolicy = { deliveryTarget, inboundTarget, deliveryEvent, signedHeaders, attemptPayload, attemptTarget, delivered, retried, gone, retryDelayMs, parseRetryAfter, honouredRetryAfter };
