import { CoreError } from '../errors.ts';
import type { SearchCriteria } from './inventory.ts';

/** What the simulated provider does with a search: answer, fail with a status, or hold it unanswered. */
export type UpstreamMode = { mode: 'ok' } | { mode: 'fail'; status: number } | { mode: 'stall' };

// Sandbox triggers of an upstream failure (reference/README.md, "Sandbox triggers"; SEARCH-002,
// SEARCH-203): one search asks the bundled simulator to fail or stall for it alone, by its
// rateCenter or by a header the reference forwards. Every other search is searched as usual.

/** `Sandbox-Upstream-Status: <400-599>`: the provider answers this search with that status. */
export const UPSTREAM_STATUS_HEADER = 'sandbox-upstream-status';

const RATE_CENTER = /^UPSTREAM-(?:([45]\d\d)|(STALL))$/;

/** The status of one header value, when it is one from 400 to 599. */
function statusOf(value: string | string[] | undefined): number | undefined {
  return typeof value === 'string' && /^ *[45]\d\d *$/.test(value) ? Number(value) : undefined;
}

/**
 * The status a search's Sandbox-Upstream-Status header asks for; undefined without one. A value
 * that is not one status from 400 to 599 is 400 INVALID_REQUEST naming the header.
 */
export function requestedUpstreamStatus(value: string | string[] | undefined): number | undefined {
  if (value === undefined) return undefined;
  const status = statusOf(value);
  if (status === undefined) {
    throw new CoreError('INVALID_REQUEST', 'Sandbox-Upstream-Status must be one HTTP status from 400 to 599.', { header: 'Sandbox-Upstream-Status', reason: 'not a status from 400 to 599' });
  }
  return status;
}

/**
 * What the simulator does for one search: the header's status, else a rateCenter
 * `UPSTREAM-<400-599>` (fail with it) or `UPSTREAM-STALL` (hold it unanswered); undefined for
 * an ordinary search, which follows the simulator's mode.
 */
export function triggeredMode(criteria: SearchCriteria, headerValue: string | string[] | undefined): UpstreamMode | undefined {
  // The reference forwards only a valid header (requestedUpstreamStatus); another is ignored here.
  const header = statusOf(headerValue);
  if (header !== undefined) return { mode: 'fail', status: header };
  const match = typeof criteria.rateCenter === 'string' ? RATE_CENTER.exec(criteria.rateCenter) : null;
  if (!match) return undefined;
  return match[2] ? { mode: 'stall' } : { mode: 'fail', status: Number(match[1]) };
}
