// The annotation types the harness writes on a test's attempts and the reporter reads
// (ARCHITECTURE.md, INTERPRETING.md). One list for both sides.

/** The target lacks a fixture or hook the test needs: "not testable here", never a pass. */
export const NOT_TESTABLE = 'not-testable';
/** A reference-profile check on a target that does not declare the profile. */
export const NOT_APPLICABLE = 'not-applicable';
/** A requirement a failed check judged (one annotation per requirement). */
export const FAILED_ON = 'failed-on';
/**
 * Beside FAILED_ON: every failure of the test was found after its own checks ran to their end
 * (the callback audit of its receiver's callbacks), so the requirements it is tagged with were
 * checked, and passed, whatever those failures judged.
 */
export const FAILED_AFTER_CHECKS = 'failed-after-checks';
/** The harness stopped the test (the send guard, a bad configuration): it checked nothing. */
export const HARNESS_STOP = 'harness-stop';
/** The test never started: the run had stopped (the stop rule, the send cap). */
export const RUN_STOPPED = 'run-stopped';
/** Beside RUN_STOPPED, when the stop rule stopped the run on a requirement failure: those requirements, comma-separated. */
export const RUN_STOPPED_ON = 'run-stopped-on';
/** How many sends the test made (the send guard's count): what the run's send budget is measured from. */
export const SENDS = 'sends';
/** How the test reached a capability its requirements need (harness/triggers.ts): "expireToken: wait". */
export const REACHED_BY = 'reached-by';
/** How many 429 answers the test's requests waited out, and for how long (JSON {retries, waitedMs}): counted, never judged. */
export const RATE_LIMITED = 'rate-limited';
/**
 * Declared on a test (`annotation: { type: LOCKS, description }`), read by the run lock's fixture:
 * what the test locks besides what its fixtures lock (harness/run-lock.ts). `every number`: every
 * number of every client, shared (a test whose checks read values of numbers it does not hold
 * otherwise, and that changes none); `everything`: everything, exclusively (a test that reads or
 * changes every number of every client and compares whole lists).
 */
export const LOCKS = 'locks';
export const LOCKS_VALUES = ['every number', 'everything'] as const;
