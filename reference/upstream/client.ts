import { Agent, request } from 'undici';
import { CoreError } from '../errors.ts';
import type { AvailableNumber, SearchCriteria } from './inventory.ts';
import type { UpstreamMode } from './simulator.ts';
import { UPSTREAM_STATUS_HEADER } from './triggers.ts';

/** Profile search.groups (SEARCH-201): the reference always asks the provider for 10 numbers. */
export const REQUESTED_QUANTITY = 10;

export interface SearchGroup {
  npa: string;
  nxx: string;
  city: string;
  state: string;
  rateCenter: string;
  count: number;
  phoneNumbers: string[];
}

export interface SearchResult {
  groups: SearchGroup[];
  providerResultCount: number;
  requestedQuantity: number;
}

/** SEARCH-002: a provider's failure is 502 UPSTREAM_ERROR with details.providerStatus. */
function upstreamFailure(providerStatus: number | string): CoreError {
  return new CoreError('UPSTREAM_ERROR', undefined, { providerStatus });
}

/** Groups the provider's flat list by exchange (profile search.groups). */
export function groupByExchange(numbers: AvailableNumber[]): SearchGroup[] {
  const groups = new Map<string, SearchGroup>();
  for (const number of numbers) {
    const key = `${number.npa}-${number.nxx}-${number.rateCenter}`;
    let group = groups.get(key);
    if (!group) {
      group = { npa: number.npa, nxx: number.nxx, city: number.city, state: number.state, rateCenter: number.rateCenter, count: 0, phoneNumbers: [] };
      groups.set(key, group);
    }
    group.count += 1;
    group.phoneNumbers.push(number.phoneNumber);
  }
  return [...groups.values()];
}

/**
 * The reference's HTTP client for the inventory provider. Every call is bounded by
 * `timeoutMs`: a stalled provider is answered 502 with providerStatus "TIMEOUT" (SEARCH-203).
 */
export class UpstreamClient {
  private readonly agent = new Agent({ connections: 16, keepAliveTimeout: 10_000 });

  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  /** `upstreamStatus`: a sandbox trigger's Sandbox-Upstream-Status, forwarded to the provider (triggers.ts). */
  async search(criteria: SearchCriteria, upstreamStatus?: number): Promise<SearchResult> {
    const headers: Record<string, string> = upstreamStatus === undefined ? {} : { [UPSTREAM_STATUS_HEADER]: String(upstreamStatus) };
    const body = await this.call('POST', '/v1/inventory/search', { ...criteria, quantity: REQUESTED_QUANTITY }, headers);
    const { total, numbers } = body as { total?: unknown; numbers?: unknown };
    if (typeof total !== 'number' || !Array.isArray(numbers)) throw upstreamFailure('INVALID_RESPONSE');
    return { groups: groupByExchange(numbers as AvailableNumber[]), providerResultCount: total, requestedQuantity: REQUESTED_QUANTITY };
  }

  /** Tells the bundled simulator (or a provider offering the same hook) how to behave. */
  async setMode(mode: UpstreamMode): Promise<void> {
    await this.call('PUT', '/_sim/mode', mode);
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async call(method: 'POST' | 'PUT', path: string, payload: unknown, headers: Record<string, string> = {}): Promise<unknown> {
    let response;
    try {
      response = await request(new URL(path, this.baseUrl), {
        method,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        dispatcher: this.agent,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
      const timedOut = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || (error as Error).name === 'TimeoutError';
      throw upstreamFailure(timedOut ? 'TIMEOUT' : 'UNREACHABLE');
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      await response.body.dump();
      throw upstreamFailure(response.statusCode);
    }
    try {
      return await response.body.json();
    } catch {
      throw upstreamFailure('INVALID_RESPONSE');
    }
  }
}
