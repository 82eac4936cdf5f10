import { callerOf } from '../reference/auth/bearer.ts';
import { CoreError, coreErrorBody } from '../reference/errors.ts';
import { objectBodyOf, type Answer, type FaultDefinition } from './fault.ts';

// Faults of the number search (section 4.4): one rewrites a field before the schema sees it,
// the others rewrite the search's answer.

const SEARCH = 'POST /api/core/numbers/search';

/** Adds each of `phoneNumbers` to the group of its exchange, as an available number. */
function offered(groups: Array<{ npa: string; nxx: string; count: number; phoneNumbers: string[] }>, phoneNumbers: readonly string[]): void {
  for (const group of groups) {
    group.phoneNumbers.push(...phoneNumbers.filter((n) => n.startsWith(`+1${group.npa}${group.nxx}`) && !group.phoneNumbers.includes(n)));
    group.count = group.phoneNumbers.length;
  }
}

export const SEARCH_FAULTS = {
  'search.non-ascii-500': {
    breaks: ['SEARCH-001'],
    description: "a search criterion holding a letter outside ASCII (a city such as Montr\u00e9al) fails the upstream query's encoding: 500 SERVER_ERROR (ASCII criteria are answered)",
    route: SEARCH,
    preHandler(request) {
      const body = objectBodyOf(request);
      if (body && Object.values(body).some((v) => typeof v === 'string' && /[^\x00-\x7f]/.test(v))) throw new Error("'ascii' codec can't encode character");
    },
  },
  'search.quantity-missing-by-city': {
    breaks: ['SEARCH-001'],
    description: 'a search that names a city is answered without requestedQuantity (a search by any other field has it)',
    route: SEARCH,
    answer({ request, status, body }) {
      if (status === 200 && (request.body as { city?: unknown } | null)?.city !== undefined) delete body.requestedQuantity;
    },
  },
  'search.failure-swallowed-by-zip': {
    breaks: ['SEARCH-002'],
    description: "a search that names a zipCode falls back to an empty result when the provider fails: answered 200 with no groups (a failed search by any other criteria is 502 UPSTREAM_ERROR)",
    route: SEARCH,
    answer(answer) {
      if (answer.status !== 502 || (answer.request.body as { zipCode?: unknown } | null)?.zipCode === undefined) return;
      answer.status = 200;
      answer.body = { groups: [], providerResultCount: 0, requestedQuantity: 0 };
    },
  },
  'search.failure-swallowed-for-others': {
    breaks: ['SEARCH-002'],
    description: "a search by any client but the first falls back to an empty result when the provider fails: answered 200 with no groups (the first client's failed search is 502 UPSTREAM_ERROR)",
    route: SEARCH,
    answer(answer, { seeded }) {
      if (answer.status !== 502 || callerOf(answer.request).apiClientId === seeded[0]!.apiClientId) return;
      answer.status = 200;
      answer.body = { groups: [], providerResultCount: 0, requestedQuantity: 0 };
    },
  },
  'search.assigned-numbers-offered': {
    breaks: ['SEARCH-004'],
    description: "the search offers the service's own numbers of the exchange it finds as available too (the provider's list is merged with the service's numbers, assigned or not): a search by 202 offers +12025550142 beside the provider's numbers",
    route: SEARCH,
    answer({ status, body }, { stores, seeded }) {
      if (status !== 200 || !Array.isArray(body.groups)) return;
      offered(body.groups, seeded.flatMap(({ apiClientId }) => stores.numbers.listForClient(apiClientId)).map((n) => n.phoneNumber));
    },
  },
  'search.disabled-number-offered': {
    breaks: ['SEARCH-004'],
    description: "the search takes a service number turned off for SMS, or given a webhook override, for one out of service and offers it as available (a number as first assigned is never offered)",
    route: SEARCH,
    answer({ status, body }, { stores, seeded }) {
      if (status !== 200 || !Array.isArray(body.groups)) return;
      const idle = seeded
        .flatMap(({ apiClientId }) => stores.numbers.listForClient(apiClientId))
        .filter((n) => !n.smsEnabled || n.webhookDeliveryOverride !== null || n.webhookInboundOverride !== null);
      offered(body.groups, idle.map((n) => n.phoneNumber));
    },
  },
  'search.coerced-beside-zip': {
    breaks: ['SEARCH-003'],
    description: 'a search that names a zipCode reads its other criteria with String(), so npa: 202 beside a zipCode is searched (a search without a zipCode type-checks every field)',
    route: SEARCH,
    preValidation(request) {
      const fields = objectBodyOf(request);
      if (!fields) return;
      if (typeof fields.zipCode !== 'string') return;
      for (const [name, value] of Object.entries(fields)) if (name !== 'zipCode' && value !== null && typeof value !== 'string') fields[name] = String(value);
    },
  },
  'search.number-field-coerced': {
    breaks: ['SEARCH-003'],
    description: 'a search field given as a JSON number (npa: 202) is read as its string and searched',
    route: SEARCH,
    preValidation(request) {
      const fields = objectBodyOf(request);
      if (!fields) return;
      for (const [name, value] of Object.entries(fields)) if (typeof value === 'number') fields[name] = String(value);
    },
  },
  'search.stall-status-empty': {
    breaks: ['SEARCH-203'],
    description: 'a search whose provider did not answer in time is answered 502 UPSTREAM_ERROR with an empty details.providerStatus, not "TIMEOUT"',
    route: SEARCH,
    answer({ status, body }) {
      if (status === 502 && body.error?.details?.providerStatus === 'TIMEOUT') body.error.details.providerStatus = '';
    },
  },
  'search.field-missing': {
    breaks: ['SEARCH-001'],
    description: 'the search answer leaves out providerResultCount',
    route: SEARCH,
    answer({ status, body }) {
      if (status === 200) delete body.providerResultCount;
    },
  },
  'search.nothing-found-count-null': {
    breaks: ['SEARCH-001'],
    description: 'a search that finds nothing answers providerResultCount null (one that finds numbers counts them)',
    route: SEARCH,
    answer({ status, body }) {
      if (status === 200 && Array.isArray(body.groups) && body.groups.length === 0) body.providerResultCount = null;
    },
  },
  'search.groups-keep-last-number': {
    breaks: ['SEARCH-201'],
    description: 'each group of a search keeps only the last number of its exchange, with count 1 (a search that finds one number per exchange is right)',
    route: SEARCH,
    answer({ status, body }) {
      if (status !== 200 || !Array.isArray(body.groups)) return;
      for (const group of body.groups as Array<{ count: number; phoneNumbers: string[] }>) {
        group.phoneNumbers = group.phoneNumbers.slice(-1);
        group.count = group.phoneNumbers.length;
      }
    },
  },
  'search.empty-groups-null': {
    breaks: ['SEARCH-001'],
    description: 'a search that finds nothing answers groups: null instead of an empty array (a search with results is right)',
    route: SEARCH,
    answer({ status, body }) {
      if (status === 200 && Array.isArray(body.groups) && body.groups.length === 0) body.groups = null;
    },
  },
  'search.upstream-failure-500': {
    breaks: ['SEARCH-002'],
    description: 'an error status from the inventory provider is answered 500 SERVER_ERROR instead of 502 UPSTREAM_ERROR',
    route: SEARCH,
    // A provider's error status (not a timeout or an unreadable answer) is taken for the server's own failure.
    answer(answer) {
      if (providerStatusOf(answer) !== undefined) answerAs(answer, 'SERVER_ERROR');
    },
  },
  'search.upstream-502-wrong-code': {
    breaks: ['SEARCH-002'],
    description: 'an error status from the inventory provider is answered 502, but with code SERVER_ERROR and no providerStatus (the status is right, the code is not)',
    route: SEARCH,
    answer(answer) {
      if (providerStatusOf(answer) === undefined) return;
      answerAs(answer, 'SERVER_ERROR');
      answer.status = 502;
    },
  },
  'search.upstream-4xx-passed-through': {
    breaks: ['SEARCH-002'],
    description: "a client error of the inventory provider (4xx other than 429) is passed through as the server's own: 404 NOT_FOUND or 400 INVALID_REQUEST, where a provider's 5xx or 429 is still 502 UPSTREAM_ERROR",
    route: SEARCH,
    answer(answer) {
      const status = providerStatusOf(answer);
      if (status !== undefined && status >= 400 && status < 500 && status !== 429) answerAs(answer, status === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST');
    },
  },
  'search.upstream-300-taken-as-success': {
    breaks: ['SEARCH-002'],
    description: 'an answer of the inventory provider is a failure only from 301 on: a 300 is read as a success, and its body (no result list) as an empty search',
    route: SEARCH,
    answer(answer) {
      if (providerStatusOf(answer) !== 300) return;
      answer.status = 200;
      answer.body = { groups: [], providerResultCount: 0, requestedQuantity: 10 };
    },
  },
} satisfies Record<string, FaultDefinition>;

/** The provider's HTTP status a 502 UPSTREAM_ERROR names, or undefined for any other answer (a timeout names none). */
function providerStatusOf(answer: Answer): number | undefined {
  const { code, details } = answer.body?.error ?? {};
  return code === 'UPSTREAM_ERROR' && typeof details?.providerStatus === 'number' ? details.providerStatus : undefined;
}

/** The server's own error `code` in place of the answer. */
function answerAs(answer: Answer, code: ConstructorParameters<typeof CoreError>[0]): void {
  const error = new CoreError(code);
  answer.status = error.status;
  answer.body = coreErrorBody(error, answer.request.id);
}
