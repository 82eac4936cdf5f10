// The shapes the reporting layer passes around. report.schema.json is the published form of
// `Report`; keep the two in step (test/reports/schema.test.ts fails when they drift).

import type { Area, Level, Testability as Check } from '../harness/catalogue.ts';
import type { Exchange } from '../harness/evidence.ts';

// The catalogue's own shapes have one definition, the harness's.
export type { Area, Catalogue, Level, Requirement, Testability as Check } from '../harness/catalogue.ts';
export type Verdict = 'pass' | 'fail' | 'non-strict fail' | 'not testable here' | 'not run';
export type RunVerdict = 'conformant' | 'not conformant' | 'partial' | 'harness error';

export const LEVELS: readonly Level[] = ['document', 'standard', 'profile'];
export const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'non-strict fail', 'not testable here', 'not run'];

/** One recorded HTTP exchange: the validating client's own type (harness/evidence.ts). */
export type { Exchange };

/**
 * How one test ended, seen from the requirement it is listed under. `stopped`: it failed on
 * another requirement (named in failedOn) before it checked this one. `harness-error`: the
 * harness stopped it (send guard, configuration), so it checked nothing.
 */
export type TestOutcome = 'passed' | 'failed' | 'flaky' | 'stopped' | 'harness-error' | 'not-testable' | 'skipped' | 'did-not-run';

export interface Attempt {
  retry: number;
  status: string;
  durationMs: number;
  errors: string[];
  evidence: Exchange[];
  /** The requirements this attempt's failed checks judged (the harness records them). */
  failedOn?: string[];
  /** The harness stopped this attempt (send guard, configuration): it checked nothing. */
  harnessStop?: string;
  /** Every failure of this attempt was found after its own checks ran to their end (the callback audit): the requirements it is tagged with were checked. */
  failedAfterChecks?: boolean;
  /** Messages the attempt sent (the send guard's count). */
  sends?: number;
  /** 429 answers with Retry-After the attempt's requests waited out and retried (harness/rate-limit.ts). */
  rateLimited?: RateLimited;
  /** Exchanges the harness left out of a long attempt (it keeps the first and last ones). */
  evidenceOmitted?: number;
}

export interface TestRecord {
  title: string;
  titlePath: string[];
  file: string;
  line: number;
  project: string;
  tags: string[];
  outcome: TestOutcome;
  /** The not-testable annotation's description, the skip reason, or the harness's refusal. */
  reason?: string;
  /** The requirements a failing test's failure names (absent when it names none). */
  failedOn?: string[];
  /** How the test reached a capability through the target's triggers, "capability: kind" (absent when it used none). */
  reachedBy?: string[];
  attempts: Attempt[];
}

export interface Target {
  label: string;
  baseUrl: string | null;
  profile: string | null;
}

export interface LevelCounts {
  total: number;
  pass: number;
  fail: number;
  nonStrictFail: number;
  notTestable: number;
  notRun: number;
}

export interface RequirementResult {
  id: string;
  area: string;
  level: Level;
  check: Check;
  source: string;
  statement: string;
  verdict: Verdict;
  reasons: string[];
  notes: string[];
  /** The triggers its tests reached it by, "capability: kind" (format 3; absent when none was needed). */
  reachedBy?: string[];
  tests: TestRecord[];
}

/** Retries of requests answered 429 with Retry-After, and the time spent waiting: counted, never judged. */
export interface RateLimited {
  retries: number;
  waitedMs: number;
}

/** Why a run ended before its last test. */
export interface RunStop {
  /** setup: before any test (the preflight, the server did not start); harness: the stop rule or the send cap; max-failures: --max-failures; interrupted: SIGINT or SIGTERM. */
  by: 'setup' | 'harness' | 'max-failures' | 'interrupted';
  reason: string;
}

/**
 * What the run exercised, read from the exchanges its tests' evidence kept (a long attempt keeps
 * its first and last ones): the response statuses seen per operation and the requirements
 * whose tests saw them, and per requirement the operations and statuses it was judged on.
 */
export interface Coverage {
  operations: Array<{ operation: string; statuses: Array<{ status: number; exchanges: number; requirements: string[] }> }>;
  requirements: Array<{ id: string; operations: Array<{ operation: string; statuses: number[] }> }>;
}

export interface Report {
  /** 2 since the partial verdict, 3 since reachedBy; reports of formats 1 and 2 are still read. */
  reportFormat: 1 | 2 | 3 | 4;
  verdict: RunVerdict;
  counts: Record<Level, LevelCounts>;
  target: Target;
  interface: { version: string; catalogue: string };
  harness: { name: string; version: string; gitRevision: string | null; gitDirty: boolean | null };
  run: {
    startTime: string;
    durationMs: number;
    seed: string | null;
    strict: boolean;
    playwrightStatus: string;
    /** Set when this report covers one shard only (a run with --shard and this reporter). */
    shard: { current: number; total: number } | null;
    /** The run's workers (--workers, or as certify chose them: README, Workers). */
    workers?: number;
    /** Problems that make the run unfit to certify anything (exit code 2). */
    errors: string[];
    /** How the run was narrowed (grep, requirement list, shard). */
    filters?: string[];
    /** Why the run does not cover the whole suite; empty for a complete run. Never a certificate when not empty. */
    partial?: string[];
    stop?: RunStop | null;
    /** Set when the target rate-limited the run: the 429s waited out, summed over its tests. */
    rateLimited?: RateLimited;
  };
  areas: Area[];
  requirements: RequirementResult[];
  /** Written since coverage was added; absent in older reports. */
  coverage?: Coverage;
}
