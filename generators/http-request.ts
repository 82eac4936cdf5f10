/**
 * A request as a person would replay it: what a failure report shows in place of a
 * generated value. Generators describe requests; they never send them.
 */
export interface HttpRequest {
  method: string;
  /** Path relative to the target's base URL. */
  path: string;
  /** Headers besides authentication and Content-Type, which the report adds. */
  headers: Record<string, string>;
  /** JSON body; absent for no body. */
  body?: unknown;
  /** How many identical copies go out at once (a concurrent burst); absent for one. */
  times?: number;
}

/** What a scenario renders its steps against: the payload stored under each key so far, by key label. */
export interface ScenarioState {
  payloads: unknown[];
}

/**
 * A step of a generated scenario that can show the requests it sends. Steps render in
 * order against one shared state, because a later step may refer to a key an earlier one
 * minted.
 */
export interface ReplayableStep {
  httpRequests(state: ScenarioState): HttpRequest[];
}

/** True when `value` is a step that can render itself as requests. */
export function isReplayableStep(value: unknown): value is ReplayableStep {
  return typeof value === 'object' && value !== null && typeof (value as { httpRequests?: unknown }).httpRequests === 'function';
}
