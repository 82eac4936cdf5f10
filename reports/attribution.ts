// Which requirement a failing test failed on. A test may be tagged with several requirements
// and stops at its first failed check, so "the test failed" says little about each tag. The
// harness's checks record what they judged (harness/judgement.ts): each attempt carries the
// requirements its failed checks named (`failedOn`) or the harness's stop (`harnessStop`).
// This reads that data; it never parses failure messages.
import type { TestRecord } from './types.ts';

export type FailureCause =
  /**
   * The failed checks judged these requirements (all known to the catalogue). `afterChecks`: they
   * were found after the test's own checks ran to their end (the callback audit).
   */
  | { kind: 'requirements'; ids: string[]; afterChecks: boolean }
  /** The harness stopped the test; the text says why. */
  | { kind: 'harness'; message: string }
  /** No check recorded what it judged (a timeout, an unexpected exception): it counts against every tag. */
  | { kind: 'unattributed' };

/** The cause of a failed or flaky test: what its last failing attempt's checks recorded. */
export function causeOfTest(test: TestRecord, knownIds: ReadonlySet<string>): FailureCause | null {
  if (test.outcome !== 'failed' && test.outcome !== 'flaky') return null;
  const failing = [...test.attempts].reverse().find((a) => a.status !== 'passed');
  if (failing?.harnessStop !== undefined) return { kind: 'harness', message: failing.harnessStop };
  const ids = failing?.failedOn ?? [];
  // A check naming an ID the catalogue lacks is the suite's mistake: judge the test by its tags.
  if (ids.length === 0 || !ids.every((id) => knownIds.has(id))) return { kind: 'unattributed' };
  return { kind: 'requirements', ids, afterChecks: failing?.failedAfterChecks === true };
}

/**
 * How one test reads for one requirement. A failure judged against other requirements means
 * the test stopped before it checked this one (or a retry that passed checked it), unless it was
 * found after the test's own checks ran to their end (the callback audit): then this one was
 * checked, and passed; a failure judged against this one, or against none, counts against it; a
 * harness stop checked nothing.
 */
export function testFor(requirementId: string, test: TestRecord, cause: FailureCause | null): TestRecord {
  if (!cause) return test;
  if (cause.kind === 'harness') return { ...test, outcome: 'harness-error', reason: cause.message };
  if (cause.kind === 'unattributed') return test;
  const named = { ...test, failedOn: cause.ids };
  if (cause.ids.includes(requirementId)) return named;
  // A flaky test passed on retry: that attempt ran every check, this one's included; so did one
  // whose every failure came after its own checks.
  return test.outcome === 'flaky' || cause.afterChecks ? { ...named, outcome: 'passed' } : { ...named, outcome: 'stopped' };
}
