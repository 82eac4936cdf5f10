// The decisions of the reference server that a kill-matrix fault (reference/faults/) may take
// differently. buildApp builds this object once: referenceBehaviour() is what the reference
// does, and all an ordinary start ever runs; an active fault replaces one member of it. The
// routes, services and dispatcher read these members and know nothing of faults.

/** What the reference does where a fault may do otherwise. */
export interface Behaviour {
  /** Where the endpoints answer. */
  paths: {
    /** VER-001: no version segment. */
    token: string;
  };
}

/** The reference's own behaviour: the interface document's rules and the reference profile's choices. */
export function referenceBehaviour(): Behaviour {
  return {
    paths: { token: '/api/auth/token' },
  };
}
