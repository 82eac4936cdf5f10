import { HarnessStop } from './judgement.ts';

/** Refused before anything is sent: the harness will not message a number it was not given, nor send past the cap. */
export class SendGuardError extends HarnessStop {
  override name = 'SendGuardError';
  constructor(
    message: string,
    /** The cap stops the whole run; a refused recipient only the test that chose it. */
    override readonly stopsRun: boolean,
  ) {
    super(message);
  }
}

const E164_SYNTAX = /^\+[1-9]\d{1,14}$/;

/**
 * The part of the send cap kept for shrinking a property that has already failed: ordinary sends
 * stop short of it, so that a failure found late in a run can still be shrunk, and a run that
 * reaches the cap while shrinking still reports the failure it found.
 */
export const SHRINK_RESERVE = 0.15;

/** How many properties of this process are shrinking a failure now (harness/property.ts says). */
let shrinking = 0;

/** A property found a failure and shrinks it: its sends may use the reserve until `done` is called. */
export function shrinkingStarted(): () => void {
  shrinking += 1;
  let done = false;
  return () => {
    if (!done) shrinking -= 1;
    done = true;
  };
}

/** Where the sends of a run are counted: across its worker processes (harness/run-state.ts). Returns the run's count. */
export interface SendCounter {
  countSend(): number;
}

export interface SendCap {
  /** Sends the run may make. */
  sends: number;
  /** How the cap reads in a message: where it is set and what it is for the run. */
  describe: string;
}

/**
 * Keeps a run safe against real systems: every recipient that a conforming server could
 * actually message (well-formed E.164) must match the configured test pattern, and a run
 * stops at its send cap. Malformed recipients pass the guard: they exist to be rejected.
 */
export class SendGuard {
  private sent = 0;
  private readonly pattern: RegExp;
  private readonly cap: SendCap;

  constructor(
    allowPattern: string,
    cap: number | SendCap,
    private readonly counter: SendCounter = { countSend: () => ++this.sent },
  ) {
    this.pattern = new RegExp(allowPattern);
    this.cap = typeof cap === 'number' ? { sends: cap, describe: `${cap} sends; raise sendCap in the target config` } : cap;
  }

  admit(payload: unknown): void {
    const to = (payload as { to?: unknown } | null)?.to;
    if (Array.isArray(to)) {
      for (const recipient of to) {
        if (typeof recipient === 'string' && E164_SYNTAX.test(recipient) && !this.pattern.test(recipient)) {
          throw new SendGuardError(`refusing to send to ${recipient}: it does not match recipients.allowPattern (${this.pattern.source})`, false);
        }
      }
    }
    const count = this.counter.countSend();
    this.sent = count;
    if (count > this.cap.sends) throw new SendGuardError(`send cap reached (${this.cap.describe})`, true);
    const ordinary = this.cap.sends - Math.floor(this.cap.sends * SHRINK_RESERVE);
    if (shrinking === 0 && count > ordinary) throw new SendGuardError(`send cap reached: ${ordinary} sends, the cap less the ${Math.round(SHRINK_RESERVE * 100)}% kept for shrinking a failure (${this.cap.describe})`, true);
  }

  get count(): number {
    return this.sent;
  }
}
