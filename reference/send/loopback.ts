import { arrival, type Arrival } from '../delivery/arrival.ts';
import { outcomeFor } from '../delivery/outcome.ts';
import type { WireChoices } from '../options.ts';
import type { Stores } from '../store/index.ts';
import type { NumberRecord } from '../store/numbers.ts';
import type { WebhookPolicy } from '../webhooks/policy.ts';
import type { SendRequest } from './sendRequest.ts';

/**
 * Sandbox trigger inbound: loopback (reference/README.md, "Sandbox triggers"; WH-004, WH-005).
 * A message the simulated carrier delivers to a phone number that is one of the service's own
 * numbers also arrives there as inbound traffic: an inbound message from the sending number's
 * phone number with the send's text, for each such recipient, addressed as every inbound event
 * is. A recipient that ends FAILED receives nothing.
 */
export function loopbackArrivals(
  policy: Pick<WebhookPolicy, 'inboundTarget'>,
  stores: Pick<Stores, 'numbers' | 'clients'>,
  from: NumberRecord,
  request: SendRequest,
  accepted: ReadonlyArray<{ to: string }>,
  nowMs: number,
  shape: WireChoices['webhook.payload'],
): Arrival[] {
  const arrivals: Arrival[] = [];
  for (const { to } of accepted) {
    if (outcomeFor(to).status !== 'DELIVERED' || !stores.numbers.isServiceNumber(to)) continue;
    const number = stores.numbers.byPhoneNumber(to)!;
    arrivals.push(arrival(policy, stores.clients.byApiClientId(number.apiClientId)!, number, from.phoneNumber, request.text ?? '', nowMs, shape));
  }
  return arrivals;
}
