import type { FaultDefinition } from './fault.ts';

// Faults of the error model (section 7).

export const ERRORS_FAULTS = {
  'errors.text-plain-content-type': {
    breaks: ['ERR-004'],
    description: 'the numbers list is answered with Content-Type text/plain (the body is still JSON)',
    route: 'GET /api/core/numbers',
    answer({ status, reply }) {
      if (status === 200) reply.type('text/plain; charset=utf-8');
    },
  },
} satisfies Record<string, FaultDefinition>;
