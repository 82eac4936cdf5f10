// Turns what the reporter collected into the report: pure, so the verdict rules can be tested
// without running Playwright.
import { causeOfTest, testFor, type FailureCause } from './attribution.ts';
import { REQUIREMENT_ID } from './catalogue.ts';
import { verdictOf } from './verdict.ts';
import { TARGET_GONE } from '../harness/api-client.ts';
import { INTERFERENCE } from '../harness/interference.ts';
import type { Catalogue, Coverage, Level, LevelCounts, RateLimited, Report, RequirementResult, RunStop, RunVerdict, Target, TestRecord } from './types.ts';
import { LEVELS, type Exchange } from './types.ts';

export interface BuildInput {
  catalogue: Catalogue;
  /** How the report names the catalogue file (repository-relative path). */
  catalogueName: string;
  tests: TestRecord[];
  target: Target;
  strict: boolean;
  harness: Report['harness'];
  seed: string | null;
  startTime: Date;
  durationMs: number;
  /** Playwright's FullResult.status. */
  playwrightStatus: string;
  /** Errors seen outside tests (Reporter.onError, configuration). */
  errors: string[];
  /** FullConfig.shard: set only in a sharded run that reports directly (not through blob + merge). */
  shard?: { current: number; total: number } | null;
  /** How the run was narrowed (grep, requirement list, shard), as the settings name it. */
  filters?: readonly string[];
  /** The run's workers (FullConfig.workers). */
  workers?: number;
  /** The run stops after this many failed tests (--max-failures). */
  maxFailures?: number | null;
  /** The run ended before any test began (global setup: the preflight, the server's start). */
  setupFailed?: boolean;
  /** The harness stopped the run mid-way (the stop rule, the send cap): why. */
  harnessStopped?: string | null;
  /**
   * The requirements the stop rule's cause failed on, when it stopped the run on a failure of
   * the server seen again and again: then the run is not conformant (and partial), not a harness error.
   */
  harnessStoppedOn?: readonly string[];
}

/** Requirement IDs a test carries: its tags that look like AREA-NNN, without the @. */
export function requirementTags(tags: readonly string[]): string[] {
  return tags.map((t) => t.replace(/^@/, '')).filter((t) => REQUIREMENT_ID.test(t));
}

function emptyCounts(): LevelCounts {
  return { total: 0, pass: 0, fail: 0, nonStrictFail: 0, notTestable: 0, notRun: 0 };
}

/** The run's error when Playwright was interrupted (SIGINT, or SIGTERM passed on as one). */
const INTERRUPTED = 'the run was interrupted before every test ended';

/** Problems with how tests and catalogue fit together; each makes the run a harness error. */
export function consistencyErrors(catalogue: Catalogue, tests: readonly TestRecord[]): string[] {
  const byId = new Map(catalogue.requirements.map((r) => [r.id, r]));
  const errors: string[] = [];
  for (const t of tests) {
    const where = `${t.file}:${t.line} "${t.title}"`;
    const ids = requirementTags(t.tags);
    if (ids.length === 0) errors.push(`${where} carries no requirement tag (@AREA-NNN)`);
    for (const id of ids) {
      const req = byId.get(id);
      if (!req) errors.push(`${where} is tagged @${id}, which is not in the requirement catalogue`);
      else if (req.withdrawn) errors.push(`${where} is tagged @${id}, which is withdrawn`);
      else if (req.check === 'client-side' || req.check === 'not-checkable') {
        errors.push(`${where} is tagged @${id}, which the catalogue marks ${req.check}`);
      }
    }
  }
  return [...new Set(errors)];
}

/**
 * The tests each requirement is judged by, each read for that requirement (attribution.ts):
 * the tests tagged with it, and any other test whose failure names it (a schema violation of
 * ERR-004 found by a token test fails ERR-004, not the token requirement).
 */
function testsByRequirement(tests: readonly TestRecord[], causes: ReadonlyMap<TestRecord, FailureCause | null>): Map<string, TestRecord[]> {
  const byId = new Map<string, TestRecord[]>();
  const add = (id: string, t: TestRecord) => byId.set(id, [...(byId.get(id) ?? []), testFor(id, t, causes.get(t) ?? null)]);
  for (const t of tests) {
    const tags = requirementTags(t.tags);
    for (const id of tags) add(id, t);
    const cause = causes.get(t);
    if (cause?.kind === 'requirements') for (const id of cause.ids.filter((named) => !tags.includes(named))) add(id, t);
  }
  return byId;
}

/** Tests the harness stopped: the run could not check what they were for. */
function harnessStops(tests: readonly TestRecord[], causes: ReadonlyMap<TestRecord, FailureCause | null>): string[] {
  return tests.flatMap((t) => {
    const cause = causes.get(t);
    return cause?.kind === 'harness' ? [`${t.file}:${t.line} "${t.title}" was stopped by the harness: ${cause.message}`] : [];
  });
}

export function buildReport(input: BuildInput): Report {
  const { catalogue, tests } = input;
  const knownIds = new Set(catalogue.requirements.map((r) => r.id));
  const causes = new Map(tests.map((t) => [t, causeOfTest(t, knownIds)]));
  const testsById = testsByRequirement(tests, causes);

  const ctx = { strict: input.strict, targetProfile: input.target.profile, catalogueProfile: catalogue.profile };
  const requirements: RequirementResult[] = catalogue.requirements
    .filter((r) => !r.withdrawn)
    .map((r) => {
      const judgedBy = testsById.get(r.id) ?? [];
      const v = verdictOf(r, judgedBy, ctx);
      const reachedBy = [...new Set(judgedBy.flatMap((t) => t.reachedBy ?? []))].sort();
      return {
        id: r.id, area: r.area, level: r.level, check: r.check, source: r.source, statement: r.statement,
        verdict: v.verdict, reasons: v.reasons, notes: v.notes, ...(reachedBy.length > 0 && { reachedBy }), tests: judgedBy,
      };
    });

  const counts = Object.fromEntries(LEVELS.map((l) => [l, emptyCounts()])) as Record<Level, LevelCounts>;
  for (const r of requirements) {
    const c = counts[r.level];
    c.total++;
    if (r.verdict === 'pass') c.pass++;
    else if (r.verdict === 'fail') c.fail++;
    else if (r.verdict === 'non-strict fail') c.nonStrictFail++;
    else if (r.verdict === 'not testable here') c.notTestable++;
    else c.notRun++;
  }

  const errors = [...input.errors, ...consistencyErrors(catalogue, tests), ...harnessStops(tests, causes)];
  const stop = stopOf(input, tests);
  if (stop?.by === 'harness' && !stoppedOnFailures(input, requirements)) errors.push(`the harness stopped the run: ${stop.reason}`);
  if (input.playwrightStatus === 'interrupted') errors.push(INTERRUPTED);
  if (input.playwrightStatus === 'timedout') errors.push('the run hit its global timeout before every test ended');
  if (!input.setupFailed && !tests.some((t) => t.attempts.length > 0 && t.outcome !== 'did-not-run')) errors.push('no test ran');

  const filters = [...(input.filters ?? [])];
  if (input.shard && !filters.some((f) => f.startsWith('shard '))) filters.push(`shard ${input.shard.current}/${input.shard.total}`);
  const partial = partialReasons(filters, stop, requirements, ctx);
  // A failure the server's own answers showed stands whatever stopped the run after it: the send
  // cap reached while a property shrank, a target that kept answering 429, a trigger the config
  // could not reach. The run is then not conformant, and partial. Only two stops void what the
  // run saw: another client using the target (InterferenceError), whose doing its failures may
  // be, and a target that stopped accepting connections (TargetGone), whose requests in flight
  // then failed with a reset that is no answer of the server's.
  const failed = requirements.some((r) => r.verdict === 'fail');
  const voided = errors.some((e) => e.includes(`${INTERFERENCE}:`) || e.includes(`${TARGET_GONE}:`));
  if (failed && !voided && errors.length > 0) {
    // Named once: the run's stop is among the partial reasons already; tests the harness stopped are counted.
    const stoppedTests = errors.filter((e) => e.includes('was stopped by the harness: '));
    const others = errors.filter((e) => !stoppedTests.includes(e) && !e.startsWith('the harness stopped the run: ') && !(stop?.by === 'interrupted' && e === INTERRUPTED));
    if (stoppedTests.length > 0 && stop?.by !== 'harness') partial.push(`the harness stopped ${stoppedTests.length === 1 ? 'a test' : `${stoppedTests.length} tests`} (${firstLine(stoppedTests[0]!).split('was stopped by the harness: ')[1]})`);
    partial.push(...others.map((e) => `the harness stopped: ${firstLine(e)}`));
  }
  const verdict: RunVerdict =
    errors.length > 0 && (voided || !failed) ? 'harness error'
    : failed ? 'not conformant'
    : partial.length > 0 ? 'partial'
    : 'conformant';

  const rateLimited = rateLimitedOf(tests);
  return {
    reportFormat: 4,
    verdict,
    counts,
    target: input.target,
    interface: { version: catalogue.interface, catalogue: input.catalogueName },
    harness: input.harness,
    run: {
      startTime: input.startTime.toISOString(),
      durationMs: Math.round(input.durationMs),
      seed: input.seed,
      strict: input.strict,
      playwrightStatus: input.playwrightStatus,
      shard: input.shard ? { current: input.shard.current, total: input.shard.total } : null,
      ...(input.workers !== undefined && { workers: input.workers }),
      errors,
      filters,
      partial,
      stop,
      ...(rateLimited !== null && { rateLimited }),
    },
    areas: catalogue.areas,
    requirements,
    coverage: coverageOf(requirements),
  };
}

/** The operations and statuses the requirements' tests exchanged, both ways round. */
export function coverageOf(requirements: readonly RequirementResult[]): Coverage {
  const byOperation = new Map<string, Map<number, { exchanges: number; requirements: Set<string> }>>();
  const judgedOn: Coverage['requirements'] = [];
  const counted = new Set<Exchange>();
  for (const r of requirements) {
    const seen = new Map<string, Set<number>>();
    for (const exchange of r.tests.flatMap((t) => t.attempts.flatMap((a) => a.evidence))) {
      if (exchange.operation === undefined || exchange.response === undefined) continue;
      const { operation, response: { status } } = exchange;
      if (!seen.has(operation)) seen.set(operation, new Set());
      seen.get(operation)!.add(status);
      if (!byOperation.has(operation)) byOperation.set(operation, new Map());
      const statuses = byOperation.get(operation)!;
      if (!statuses.has(status)) statuses.set(status, { exchanges: 0, requirements: new Set() });
      const entry = statuses.get(status)!;
      entry.requirements.add(r.id);
      // a test tagged with several requirements holds the same exchanges for each: count them once
      if (!counted.has(exchange)) {
        counted.add(exchange);
        entry.exchanges++;
      }
    }
    if (seen.size > 0) judgedOn.push({ id: r.id, operations: sorted([...seen]).map(([operation, s]) => ({ operation, statuses: [...s].sort((a, b) => a - b) })) });
  }
  return {
    operations: sorted([...byOperation]).map(([operation, statuses]) => ({
      operation,
      statuses: [...statuses].sort(([a], [b]) => a - b).map(([status, e]) => ({ status, exchanges: e.exchanges, requirements: [...e.requirements].sort() })),
    })),
    requirements: judgedOn,
  };
}

const sorted = <T>(entries: Array<[string, T]>): Array<[string, T]> => entries.sort(([a], [b]) => a.localeCompare(b));

/** The 429s the run's tests waited out, summed; null when there were none. */
function rateLimitedOf(tests: readonly TestRecord[]): RateLimited | null {
  const attempts = tests.flatMap((t) => t.attempts).filter((a) => a.rateLimited !== undefined);
  if (attempts.length === 0) return null;
  return { retries: attempts.reduce((n, a) => n + a.rateLimited!.retries, 0), waitedMs: attempts.reduce((n, a) => n + a.rateLimited!.waitedMs, 0) };
}

/**
 * Whether the stop rule stopped the run on requirement failures of the server: tests in a row
 * failed on the same requirement (a broken token response every test meets), which the report
 * holds as failed. Such a run is not conformant, and partial; a stop on a cause no check judged
 * (a refused connection, a timeout) stays a harness error.
 */
function stoppedOnFailures(input: BuildInput, requirements: readonly RequirementResult[]): boolean {
  const on = input.harnessStoppedOn ?? [];
  return on.length > 0 && on.some((id) => requirements.some((r) => r.id === id && r.verdict === 'fail'));
}

/** Why the run ended before its last test, if it did. */
function stopOf(input: BuildInput, tests: readonly TestRecord[]): RunStop | null {
  if (input.setupFailed) return { by: 'setup', reason: firstLine(input.errors[0] ?? 'the run stopped before any test') };
  if (input.harnessStopped) return { by: 'harness', reason: input.harnessStopped };
  if (input.playwrightStatus === 'interrupted') return { by: 'interrupted', reason: 'interrupted (SIGINT or SIGTERM) before every test ended' };
  const max = input.maxFailures ?? null;
  const failed = tests.filter((t) => t.outcome === 'failed' || t.outcome === 'flaky').length;
  if (max !== null && failed >= max && tests.some((t) => t.outcome === 'did-not-run')) {
    return { by: 'max-failures', reason: `stopped after ${failed} failed tests (--max-failures ${max})` };
  }
  return null;
}

/**
 * Why the run does not cover the whole suite: a filter, a stop, or requirements that apply to
 * this target with no test in the run (a filter Playwright applied on its own command line).
 */
function partialReasons(filters: readonly string[], stop: RunStop | null, requirements: readonly RequirementResult[], ctx: { targetProfile: string | null; catalogueProfile: string }): string[] {
  if (stop?.by === 'setup') return ['the run stopped before any test'];
  const reasons = [...filters];
  if (stop) reasons.push(stop.reason);
  if (filters.length === 0) {
    const applies = (r: RequirementResult) => r.check !== 'client-side' && r.check !== 'not-checkable' && (r.level !== 'profile' || ctx.targetProfile === ctx.catalogueProfile);
    const untested = requirements.filter((r) => applies(r) && r.tests.length === 0).length;
    if (untested > 0) reasons.push(untested === 1 ? '1 requirement that applies had no test in this run' : `${untested} requirements that apply had no test in this run`);
  }
  return reasons;
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '')?.trim() ?? text;
}
