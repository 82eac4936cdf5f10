// The verdict rules of INTERPRETING.md, as one pure function per requirement. Change the
// rules here and there together (and move INTERPRETING.md's version).
import type { Requirement, RequirementResult, TestRecord, Verdict } from './types.ts';

export interface VerdictContext {
  /** Standard-level failures count as `fail` instead of `non-strict fail`. */
  strict: boolean;
  /** The profile the target declares (null: none), and the one the catalogue's profile level belongs to. */
  targetProfile: string | null;
  catalogueProfile: string;
}

export interface VerdictResult {
  verdict: Verdict;
  /** Why the verdict is what it is: failure messages, not-testable reasons, why nothing ran. */
  reasons: string[];
  /** Qualifications a reader should see next to the verdict. */
  notes: string[];
}

const unique = (xs: string[]): string[] => [...new Set(xs)];

/** How the reason of a profile-level requirement the target does not declare begins (rule 2). */
export const PROFILE_NOT_DECLARED = 'profile-level requirement of profile';

/**
 * Whether the harness could check `r` on this target at all: not a rule for clients, not an
 * unobservable rule (rule 1), not a profile the target does not declare (rule 2).
 */
export function isCheckableHere(r: Pick<RequirementResult, 'check' | 'level' | 'verdict' | 'reasons'>): boolean {
  if (r.check === 'client-side' || r.check === 'not-checkable') return false;
  return !(r.level === 'profile' && r.verdict === 'not run' && (r.reasons[0] ?? '').startsWith(PROFILE_NOT_DECLARED));
}

function firstLine(s: string): string {
  return s.split('\n').find((l) => l.trim() !== '')?.trim() ?? s;
}

function failureReason(t: TestRecord): string {
  const failed = [...t.attempts].reverse().find((a) => a.errors.length > 0);
  const message = failed?.errors[0] ? firstLine(failed.errors[0]) : `test ended ${failed?.status ?? 'failed'}`;
  return `${t.title}: ${message}`;
}

export function verdictOf(req: Requirement, tests: readonly TestRecord[], ctx: VerdictContext): VerdictResult {
  // Rules for clients and unobservable rules never get a verdict from tests.
  if (req.check === 'client-side' || req.check === 'not-checkable') {
    return { verdict: 'not run', reasons: [req.reason ?? `check: ${req.check}`], notes: [`check: ${req.check}`] };
  }
  if (req.level === 'profile' && ctx.targetProfile !== ctx.catalogueProfile) {
    const declared = ctx.targetProfile ? `declares profile "${ctx.targetProfile}"` : 'declares no profile';
    return { verdict: 'not run', reasons: [`${PROFILE_NOT_DECLARED} "${ctx.catalogueProfile}"; the target ${declared}`], notes: [] };
  }
  if (tests.length === 0) {
    return { verdict: 'not run', reasons: [`no test tagged @${req.id} was in this run (filtered out by --grep or --project, or none exists)`], notes: [] };
  }

  const failing = tests.filter((t) => t.outcome === 'failed' || t.outcome === 'flaky');
  if (failing.length > 0) {
    const notes = failing
      .filter((t) => t.outcome === 'flaky')
      .map((t) => `${t.title}: passed only on retry (flaky); counted as a failure`);
    const nonStrict = req.level === 'standard' && !ctx.strict;
    if (req.level === 'standard') {
      notes.push(nonStrict ? 'standard-level: a non-strict fail (a fail with --strict)' : 'standard-level: a fail because the run is strict');
    }
    return { verdict: nonStrict ? 'non-strict fail' : 'fail', reasons: failing.map(failureReason), notes };
  }

  const passed = tests.filter((t) => t.outcome === 'passed');
  if (passed.length === tests.length) return { verdict: 'pass', reasons: [], notes: [] };

  const partly = passed.length > 0 ? [`${passed.length} of ${tests.length} tagged tests passed; the others did not run here, so the requirement is not certified as pass`] : [];
  const notTestable = tests.filter((t) => t.outcome === 'not-testable');
  if (notTestable.length > 0) {
    return { verdict: 'not testable here', reasons: unique(notTestable.map((t) => t.reason ?? 'not testable (no reason given)')), notes: partly };
  }
  const reasons = unique(tests.filter((t) => t.outcome !== 'passed').map(whyNotRun));
  return { verdict: 'not run', reasons, notes: partly };
}

function whyNotRun(t: TestRecord): string {
  switch (t.outcome) {
    case 'skipped':
      return `skipped: ${t.reason ?? 'no reason given'}`;
    case 'stopped':
      return `stopped: "${t.title}" failed on ${(t.failedOn ?? []).join(', ')} before it checked this requirement`;
    case 'harness-error':
      return `the harness stopped "${t.title}": ${t.reason ?? 'no reason given'}`;
    default:
      return t.reason !== undefined ? `did not run: the run had stopped (${t.reason})` : 'did not run: the run ended before it';
  }
}
