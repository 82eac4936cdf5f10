import { Agent, request } from 'undici';
import { CoreError } from '../errors.ts';
import type { AvailableNumber, SearchCriteria } from './inventory.ts';
import type { UpstreamMode } from './triggers.ts';
import { Slots } from './slots.ts';
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

/**
 * SEARCH-004: a search offers available numbers (section 4.4); one the service has assigned to a
 * client is not, whatever the provider still lists. Groups left empty go, and providerResultCount
 * counts what is left, so the groups still add up to it (profile search.groups, SEARCH-201).
 */
export function withoutAssigned(result: SearchResult, assigned: (phoneNumber: string) => boolean): SearchResult {
  let withheld = 0;
  const groups = result.groups
    .map((group) => {
      const phoneNumbers = group.phoneNumbers.filter((n) => !assigned(n));
      withheld += group.phoneNumbers.length - phoneNumbers.length;
      return { ...group, phoneNumbers, count: phoneNumbers.length };
    })
    .filter((group) => group.count > 0);
  return { ...result, groups, providerResultCount: result.providerResultCount - withheld };
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

/** Connections to the provider, shared by every client's searches. */
const PROVIDER_CONNECTIONS = 16;
/**
 * Searches of one client at the provider at once: a quarter of the pool. The searches a provider
 * holds (the sandbox's UPSTREAM-STALL, or a slow provider) hold a connection each until the
 * upstream timeout; without a share per client, one client holding all of them made every other
 * client's searches wait their own timeout out (7 of 25 answered 502).
 */
export const SEARCHES_PER_CLIENT = PROVIDER_CONNECTIONS / 4;

/**
 * The reference's HTTP client for the inventory provider. Every search is bounded by
 * `timeoutMs`, its wait for a slot of its client's share included: a stalled provider is
 * answered 502 with providerStatus "TIMEOUT" (SEARCH-203).
 */
export class UpstreamClient {
  private readonly agent = new Agent({ connections: PROVIDER_CONNECTIONS, keepAliveTimeout: 10_000 });
  private readonly slots = new Slots(SEARCHES_PER_CLIENT);

  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  /**
   * A search for `client` (its apiClientId), in one of the client's SEARCHES_PER_CLIENT slots:
   * a search beyond them waits for one of the client's own, within the timeout. `upstreamStatus`:
   * a sandbox trigger's Sandbox-Upstream-Status, forwarded to the provider (triggers.ts).
   */
  async search(client: string, criteria: SearchCriteria, upstreamStatus?: number): Promise<SearchResult> {
    const started = Date.now();
    const release = await this.slots.acquire(client, this.timeoutMs);
    if (!release) throw upstreamFailure('TIMEOUT');
    let body: unknown;
    try {
      const headers: Record<string, string> = upstreamStatus === undefined ? {} : { [UPSTREAM_STATUS_HEADER]: String(upstreamStatus) };
      body = await this.call('POST', '/v1/inventory/search', { ...criteria, quantity: REQUESTED_QUANTITY }, headers, this.timeoutMs - (Date.now() - started));
    } finally {
      release();
    }
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

  private async call(method: 'POST' | 'PUT', path: string, payload: unknown, headers: Record<string, string> = {}, timeoutMs = this.timeoutMs): Promise<unknown> {
    // Never less than a millisecond: undici takes 0 as no timeout at all.
    const bound = Math.max(1, timeoutMs);
    let response;
    try {
      response = await request(new URL(path, this.baseUrl), {
        method,
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        dispatcher: this.agent,
        headersTimeout: bound,
        bodyTimeout: bound,
        signal: AbortSignal.timeout(bound),
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
      const timedOut = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || (error as Error).name === 'TimeoutError';
      // SEARCH-203 (profile search.upstreamFailure): no status came from the provider, so say why.
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
