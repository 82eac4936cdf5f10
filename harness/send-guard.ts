import { HarnessStop, recordError } from './judgement.ts';

/** Refused before anything is sent: the harness will not message a number it was not given, nor send past the cap. */
export class SendGuardError extends HarnessStop {
  override name = 'SendGuardError';
  constructor(message: string) {
    super(message);
    recordError(this);
  }
}

const E164_SYNTAX = /^\+[1-9]\d{1,14}$/;

/**
 * Keeps a run safe against real systems: every recipient that a conforming server could
 * actually message (well-formed E.164) must match the configured test pattern, and a run
 * stops at its send cap. Malformed recipients pass the guard: they exist to be rejected.
 */
export class SendGuard {
  private sent = 0;
  private readonly pattern: RegExp;

  constructor(
    allowPattern: string,
    private readonly cap: number,
  ) {
    this.pattern = new RegExp(allowPattern);
  }

  admit(payload: unknown): void {
    const to = (payload as { to?: unknown } | null)?.to;
    if (Array.isArray(to)) {
      for (const recipient of to) {
        if (typeof recipient === 'string' && E164_SYNTAX.test(recipient) && !this.pattern.test(recipient)) {
          throw new SendGuardError(`refusing to send to ${recipient}: it does not match recipients.allowPattern (${this.pattern.source})`);
        }
      }
    }
    if (++this.sent > this.cap) {
      throw new SendGuardError(`send cap reached (${this.cap} sends for this worker; raise sendCap in the target config)`);
    }
  }

  get count(): number {
    return this.sent;
  }
}
