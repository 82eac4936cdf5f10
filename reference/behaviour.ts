// The decisions of the reference server that a kill-matrix fault (reference/faults/) may take
// differently. buildApp builds this object once: referenceBehaviour() is what the reference
// does, and all an ordinary start ever runs; an active fault replaces one member of it. The
// routes, services and dispatcher read these members and know nothing of faults.

import { bearerAuthentication, type Authenticate } from './auth/bearer.ts';
import type { Stores } from './store/index.ts';

/** What the reference does where a fault may do otherwise. */
export interface Behaviour {
  /** Where the endpoints answer. */
  paths: {
    /** VER-001: no version segment. */
    token: string;
  };
  /** The bearer authentication every /api/core route runs first. */
  authenticate: Authenticate;
}

/** The reference's own behaviour: the interface document's rules and the reference profile's choices. */
export function referenceBehaviour(stores: Stores): Behaviour {
  return {
    paths: { token: '/api/auth/token' },
    authenticate: bearerAuthentication(stores.clients),
  };
}
