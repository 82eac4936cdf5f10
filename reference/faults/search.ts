import { CORE_ERRORS } from '../errors.ts';
import type { FaultDefinition } from './fault.ts';

// Faults of the number search (section 4.4): each rewrites the search's answer.

const SEARCH = 'POST /api/core/numbers/search';

export const SEARCH_FAULTS = {
  'search.field-missing': {
    breaks: ['SEARCH-001'],
    description: 'the search answer leaves out providerResultCount',
    route: SEARCH,
    answer({ status, body }) {
      if (status === 200) delete body.providerResultCount;
    },
  },
  'search.upstream-failure-500': {
    breaks: ['SEARCH-002'],
    description: 'an error status from the inventory provider is answered 500 SERVER_ERROR instead of 502 UPSTREAM_ERROR',
    route: SEARCH,
    // A provider's error status (not a timeout or an unreadable answer) is taken for the server's own failure.
    answer(answer) {
      const { error } = answer.body;
      if (error?.code !== 'UPSTREAM_ERROR' || typeof error.details.providerStatus !== 'number') return;
      answer.status = CORE_ERRORS.SERVER_ERROR.status;
      answer.body.error = { code: 'SERVER_ERROR', message: CORE_ERRORS.SERVER_ERROR.message, details: {} };
    },
  },
} satisfies Record<string, FaultDefinition>;
