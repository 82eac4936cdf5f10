import { replaceMember, type FaultDefinition } from './fault.ts';

// Faults of versioning (section 9).

export const VERSIONING_FAULTS = {
  'versioning.v1-prefix-only': {
    breaks: ['VER-001'],
    description: 'the token endpoint answers only at /api/v1/auth/token, not at the unversioned /api/auth/token',
    behaviour: replaceMember('paths', 'token', () => '/api/v1/auth/token'),
  },
} satisfies Record<string, FaultDefinition>;
