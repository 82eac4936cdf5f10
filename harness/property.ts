import fc from 'fast-check';
import { isReplayableStep, type HttpRequest, type ScenarioState } from '../generators/http-request.ts';
import { SEND_PATH } from '../generators/send-payload.ts';
import { isJudged, recordError, requirementsOfLabel, type Judged, type Judgement } from './judgement.ts';
import { shrinkingStarted } from './send-guard.ts';
import { RUNS_BY_DEPTH, runSettings, type ConformanceDepth, type PropertyInput } from './settings.ts';

/**
 * Runs a property for a conformance suite: how many cases, from which seed, and, when it
 * fails, a report that leads with what a person needs to reproduce it — the requirement,
 * seed, path, runs and shrinks, the counterexample as the HTTP request to replay, and the
 * command line that replays it. Independent of Playwright, so it has unit tests of its own.
 *
 * The settings come from the run's settings (harness/settings.ts: `--deep`, `--runs`, and
 * `--seed`, `--path`, `--replay-path` to replay a reported failure).
 */

export type { ConformanceDepth } from './settings.ts';

/**
 * How many cases of a property whose cases are independent are in flight at once. A target's
 * answers, not the harness, set the pace of a property: 25 cases one after another against a
 * server that answers in 20 ms take half a second, eight at a time a tenth of it. Eight keeps a
 * staging server's load to what a handful of clients make (a configured rate limit still
 * spaces every request, harness/rate-limit.ts).
 */
export const CASES_AT_ONCE = 8;

export interface PropertySettings {
  depth: ConformanceDepth;
  numRuns: number;
  seed?: number;
  path?: string;
  replayPath?: string;
  /** The command the replay line starts with (the run's own: `npm run certify -- --config …`). */
  command?: string;
}

/** Property settings from the run's settings; a malformed value is an error, never a silent default. */
export function propertySettings(input?: Partial<PropertyInput>, command?: string): PropertySettings {
  const run = input === undefined ? runSettings() : undefined;
  const { depth = 'quick', runs = null, seed = null, path = null, replayPath = null } = input ?? run!.property;
  if (depth !== 'quick' && depth !== 'deep') throw new Error(`the depth must be quick or deep, got ${JSON.stringify(depth)}`);
  if (runs !== null && (!Number.isSafeInteger(runs) || runs < 1)) throw new Error(`--runs must be a positive integer, got ${JSON.stringify(runs)}`);
  if (seed !== null && !Number.isSafeInteger(seed)) throw new Error(`--seed must be an integer, got ${JSON.stringify(seed)}`);
  if (path !== null && seed === null) throw new Error('--path replays a failure only together with the --seed it was reported with');
  if (path !== null && !/^\d+(:\d+)*$/.test(path)) throw new Error(`--path must look like 12:0:3, got ${JSON.stringify(path)}`);
  return {
    depth,
    numRuns: runs ?? RUNS_BY_DEPTH[depth],
    command: command ?? run?.command ?? DEFAULT_COMMAND,
    ...(seed !== null && { seed }),
    ...(path !== null && { path }),
    ...(replayPath !== null && replayPath !== '' && { replayPath }),
  };
}

const DEFAULT_COMMAND = 'npm run certify --';

export interface CheckPropertyOptions<Ts> {
  /** @defaultValue propertySettings(): the run's settings */
  settings?: PropertySettings;
  /**
   * The Playwright `--grep` that selects the failing test in the replay command.
   * @defaultValue the requirement tags, e.g. `@SEND-007`
   */
  grep?: string;
  /**
   * Render a counterexample as the requests to replay.
   * @defaultValue renderCounterexample: single-defect cases, send payloads, command scenarios
   */
  toRequests?: (counterexample: Ts) => HttpRequest[];
  /** Further fast-check parameters (timeouts, examples); seed, path and numRuns come from the settings. */
  parameters?: Omit<fc.Parameters<Ts>, 'seed' | 'path' | 'numRuns'>;
  /**
   * The cases share nothing: each makes its own requests (its own Idempotency-Key, its own
   * body) and judges only their answers, so they may run CASES_AT_ONCE at a time. The cases are
   * the ones fast-check would run one by one for the seed; a failing one is then replayed alone
   * from its path and shrunk one case at a time, so the report and its replay command are the
   * ones a sequential run gives. Not for a property whose cases read what earlier ones changed.
   * @defaultValue false
   */
  independentCases?: boolean;
  /**
   * How long shrinking may go on after the first failure, in milliseconds: each attempt replays
   * requests against the target. When it runs out the smallest failure found so far is reported,
   * with a note that shrinking stopped early.
   * @defaultValue SHRINK_BUDGET_MS
   */
  shrinkBudgetMs?: number;
}

/** How long a property's shrinking may take by default: long enough for most, short of stalling a run. */
export const SHRINK_BUDGET_MS = 30_000;

/** How a passing property ran, for the test to record. */
export interface PropertyRun {
  seed: number;
  numRuns: number;
}

/** A failed property; the message is the full report. It judged the requirements it was run for. */
export class PropertyFailure extends Error implements Judged {
  override readonly name = 'PropertyFailure';
  constructor(
    message: string,
    readonly requirementIds: readonly string[],
    readonly seed: number,
    readonly path: string | null,
    readonly numRuns: number,
    readonly numShrinks: number,
    readonly counterexample: unknown,
    readonly requests: readonly HttpRequest[],
    readonly replayCommand: string,
    cause: unknown,
  ) {
    super(message, { cause });
    recordError(this);
  }

  /**
   * The requirements the failure judged: what the failing check judged, as everywhere else (a
   * judged error's own judgement, or the IDs its message leads with: a property checking a
   * document rule and a standard's beside it fails only the one it broke, and a model property
   * that meets an unsafe retry accepted fails IDEM-002, whatever it was run for), else, when the
   * check named none, all the requirements the property was run for.
   */
  get judgement(): Judgement {
    const cause = this.cause;
    if (isJudged(cause) && cause.judgement.kind === 'requirements') return cause.judgement;
    const named = requirementsOfLabel(cause instanceof Error ? cause.message : '');
    return { kind: 'requirements', ids: named.length > 0 ? named : [...this.requirementIds] };
  }
}

/**
 * Check `property` and throw a PropertyFailure whose message leads with the requirement(s),
 * seed, path, runs and shrinks. Resolves with the seed when the property holds.
 */
export async function checkProperty<Ts>(
  requirementIds: string | readonly string[],
  property: fc.IAsyncProperty<Ts> | fc.IProperty<Ts>,
  options: CheckPropertyOptions<Ts> = {},
): Promise<PropertyRun> {
  const ids = typeof requirementIds === 'string' ? [requirementIds] : [...requirementIds];
  if (ids.length === 0) throw new Error('checkProperty: name at least one requirement ID');
  const settings = options.settings ?? propertySettings();
  // The seed is drawn here, as fast-check would, so that cases run at once and their replay agree.
  const seed = settings.seed ?? (Date.now() ^ (Math.random() * 0x100000000));
  const parameters: fc.Parameters<Ts> = {
    ...options.parameters,
    // fast-check counts examples among numRuns, so more examples than runs would drop the last
    // ones: every example runs, then numRuns drawn cases.
    numRuns: settings.numRuns + (options.parameters?.examples?.length ?? 0),
    seed,
    ...(settings.path === undefined ? {} : { path: settings.path }),
  };
  const stop: { error?: Error; shrinkingCut?: boolean; endShrinking?: () => void } = {};
  const stoppableProperty = stoppable(property as fc.IRawProperty<Ts>, stop, options.shrinkBudgetMs ?? SHRINK_BUDGET_MS);
  try {
    let atOnce: CasesAtOnce<Ts> | null = null;
    if (options.independentCases === true && settings.path === undefined && Object.keys(options.parameters ?? {}).every((k) => k === 'examples')) {
      atOnce = await runCasesAtOnce(stoppableProperty, parameters, CASES_AT_ONCE);
      if (atOnce.failure === null) {
        if (stop.error) throw stop.error;
        return { seed, numRuns: atOnce.ran };
      }
      // Replay the first failing case alone, from its path, and let fast-check shrink it.
      parameters.path = String(atOnce.failure.index);
    }
    const details = await fc.check(stoppableProperty, parameters);
    if (atOnce?.failure != null && (!details.failed || details.counterexample === null)) {
      // The case failed among others and passed alone: the failure stands as it was seen.
      const { index, value, error } = atOnce.failure;
      // (Unless the harness stopped the replay: then it did not pass, it was not judged.)
      const note = stop.error
        ? `the case failed while up to ${CASES_AT_ONCE} cases ran at once; its replay alone was stopped by the harness (${stop.error.message.split('\n')[0]})`
        : `the case failed while up to ${CASES_AT_ONCE} cases ran at once, and passed when replayed alone`;
      throw propertyFailure(ids, settings, options, { seed, path: String(index), numRuns: atOnce.ran, numSkips: atOnce.skipped, numShrinks: 0, counterexample: value, error, interrupted: false, note });
    }
    // The harness stopped a case (the send cap, a recipient the guard refuses) before any case
    // failed: the property checked nothing, and the stop, not a failure of the requirement, is
    // what ends the test. After a failure it only ends the shrinking: the failure stands. A stop
    // in the first case leaves fast-check "failed" with no counterexample: that, too, is the stop.
    if (stop.error && (!details.failed || details.counterexample === null)) throw stop.error;
    if (!details.failed) return { seed: details.seed, numRuns: details.numRuns };
    throw propertyFailure(ids, settings, options, {
      seed: details.seed,
      path: details.counterexamplePath,
      numRuns: atOnce === null ? details.numRuns : atOnce.ran,
      numSkips: details.numSkips,
      numShrinks: details.numShrinks,
      counterexample: details.counterexample,
      error: details.errorInstance,
      interrupted: details.interrupted,
      note: stop.error
        ? `shrinking stopped when the harness did (${firstLineOf(stop.error.message)}): the counterexample is the smallest found by then, and the failure stands`
        : stop.shrinkingCut
          ? `shrinking stopped after ${Math.round((options.shrinkBudgetMs ?? SHRINK_BUDGET_MS) / 1000)} s: the counterexample is the smallest found by then, not necessarily the smallest there is`
          : null,
    });
  } finally {
    stop.endShrinking?.();
  }
}

interface FailedRun<Ts> {
  seed: number;
  path: string | null;
  numRuns: number;
  numSkips: number;
  numShrinks: number;
  counterexample: Ts | null;
  error: unknown;
  interrupted: boolean;
  /** How the failure was seen, when it was not seen the usual way. */
  note: string | null;
}

function propertyFailure<Ts>(ids: readonly string[], settings: PropertySettings, options: CheckPropertyOptions<Ts>, run: FailedRun<Ts>): PropertyFailure {
  const counterexample = run.counterexample;
  // fast-check hands the counterexample over as the tuple of the property's arguments.
  const asTuple = counterexample as unknown as readonly unknown[];
  const requests = counterexample === null ? [] : options.toRequests !== undefined ? options.toRequests(counterexample) : renderCounterexample(asTuple);
  const replayPath = counterexample === null ? undefined : findReplayPath(asTuple);
  const grep = options.grep ?? (ids.length === 1 ? `@${ids[0]}` : `"${ids.map((id) => `@${id}`).join('|')}"`);
  const replayCommand = [
    settings.command ?? DEFAULT_COMMAND,
    // --seed=N: a negative seed would read as another flag after a space.
    `--seed=${run.seed}`,
    ...(run.path === null ? [] : [`--path ${run.path}`]),
    ...(replayPath === undefined ? [] : [`--replay-path '${replayPath}'`]),
    `--grep ${grep}`,
  ].join(' ');
  const cause = run.error;
  const lines = [
    `Property failed: ${ids.join(', ')}`,
    `  seed: ${run.seed}`,
    `  path: ${run.path ?? '(none)'}`,
    `  runs: ${run.numRuns} of ${settings.numRuns}${run.numSkips > 0 ? ` (${run.numSkips} skipped)` : ''}`,
    `  shrinks: ${run.numShrinks}`,
    ...(run.note === null ? [] : [`  note: ${run.note}`]),
    '',
    requests.length > 0 ? 'Counterexample, as the request(s) to replay:' : 'Counterexample:',
    indent(requests.length > 0 ? formatRequests(requests) : counterexample === null ? '(none: the run stopped before one was found)' : fc.stringify(counterexample)),
    '',
    'Replay:',
    `  ${replayCommand}`,
    '',
    'Failure:',
    indent(cause instanceof Error ? cause.message : cause === null || cause === undefined ? describeStop(run) : String(cause)),
  ];
  return new PropertyFailure(lines.join('\n'), ids, run.seed, run.path, run.numRuns, run.numShrinks, counterexample, requests, replayCommand, cause);
}

interface CasesAtOnce<Ts> {
  /** Cases that ran to an outcome (skipped ones included). */
  ran: number;
  skipped: number;
  /** The failing case of lowest index, or null when none failed. */
  failure: { index: number; value: Ts; error: unknown } | null;
}

/**
 * The cases fast-check would run for `parameters` (its examples, then the seed's generated
 * values, the same ones fc.sample gives), `width` at a time. No case starts once one has failed
 * or the harness has stopped the run (a stop is a precondition failure that interrupts, as
 * `stoppable` makes it); cases already running finish, and the lowest failing index wins.
 */
async function runCasesAtOnce<Ts>(property: fc.IRawProperty<Ts>, parameters: fc.Parameters<Ts>, width: number): Promise<CasesAtOnce<Ts>> {
  const values = fc.sample(property, { seed: parameters.seed, numRuns: parameters.numRuns, examples: parameters.examples ?? [] }) as Ts[];
  const result: CasesAtOnce<Ts> = { ran: 0, skipped: 0, failure: null };
  let next = 0;
  let halted = false;
  const worker = async () => {
    while (!halted && next < values.length) {
      const index = next++;
      const value = values[index]!;
      await property.runBeforeEach();
      const outcome = await property.run(value);
      await property.runAfterEach();
      result.ran += 1;
      if (outcome === null) continue;
      if (fc.PreconditionFailure.isFailure(outcome)) {
        result.skipped += 1;
        if (outcome.interruptExecution) halted = true;
        continue;
      }
      halted = true;
      if (result.failure === null || index < result.failure.index) result.failure = { index, value, error: outcome.error };
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, values.length) }, worker));
  return result;
}

/**
 * The property, with a harness stop thrown by a case turned into an interruption of the run:
 * fast-check then ends (keeping a failure it already found, shrunk as far as it got) instead
 * of shrinking towards the stop.
 */
function stoppable<Ts>(property: fc.IRawProperty<Ts>, stop: { error?: Error; shrinkingCut?: boolean; endShrinking?: () => void }, shrinkBudgetMs: number): fc.IRawProperty<Ts> {
  // When the first failure was seen: shrinking after it has shrinkBudgetMs, then stops with the
  // smallest failure found so far (each attempt replays requests against the target).
  let failedAt: number | null = null;
  const asStop = (outcome: fc.PreconditionFailure | fc.PropertyFailure | null) => {
    const error = outcome && 'error' in outcome ? outcome.error : undefined;
    if (isJudged(error) && error.judgement.kind === 'harness') {
      stop.error ??= error;
      return new fc.PreconditionFailure(true);
    }
    if (outcome !== null && !fc.PreconditionFailure.isFailure(outcome) && failedAt === null) {
      failedAt = Date.now();
      // From here the property shrinks: its sends may use the part of the cap kept for that.
      stop.endShrinking = shrinkingStarted();
    }
    return outcome;
  };
  const overBudget = () => failedAt !== null && Date.now() - failedAt > shrinkBudgetMs;
  return {
    isAsync: () => property.isAsync(),
    generate: (mrng, runId) => property.generate(mrng, runId),
    shrink: (value) => property.shrink(value),
    run: ((v: Ts) => {
      if (overBudget()) {
        stop.shrinkingCut = true;
        return new fc.PreconditionFailure(true);
      }
      const outcome = property.run(v);
      return outcome instanceof Promise ? outcome.then(asStop) : asStop(outcome);
    }) as fc.IRawProperty<Ts>['run'],
    runBeforeEach: () => property.runBeforeEach(),
    runAfterEach: () => property.runAfterEach(),
  };
}

const firstLineOf = (text: string): string => text.split('\n')[0] ?? text;

function describeStop(details: { interrupted: boolean; numSkips: number }): string {
  if (details.interrupted) return 'the run was interrupted (time limit)';
  return `the property gave no error (${details.numSkips} cases skipped by preconditions)`;
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

// ---- rendering -------------------------------------------------------------------------------

/**
 * The requests a counterexample stands for. Understands, per argument of the property:
 * single-defect cases (`{payload, headers}`), bare send payloads (sent under a fresh key),
 * ready HttpRequests, and command scenarios whose steps render themselves (only the steps
 * that ran). Anything else renders as nothing, and the report falls back to the value.
 */
export function renderCounterexample(counterexample: readonly unknown[]): HttpRequest[] {
  return counterexample.flatMap((argument) => renderArgument(argument));
}

function renderArgument(argument: unknown): HttpRequest[] {
  if (typeof argument !== 'object' || argument === null) return [];
  const record = argument as Record<string, unknown>;
  if (typeof record.method === 'string' && typeof record.path === 'string') return [argument as HttpRequest];
  if (isPlainObject(record.payload) && isPlainObject(record.headers)) {
    return [{ method: 'POST', path: SEND_PATH, headers: record.headers as Record<string, string>, body: record.payload }];
  }
  if ('messageType' in record && 'to' in record) {
    return [{ method: 'POST', path: SEND_PATH, headers: { 'Idempotency-Key': '<a fresh key>' }, body: argument }];
  }
  if (!Array.isArray(argument) && Symbol.iterator in record) {
    const state: ScenarioState = { payloads: [] };
    const requests: HttpRequest[] = [];
    for (const item of argument as Iterable<unknown>) {
      // fast-check wraps each command; a wrapper that did not run is not part of the scenario.
      const wrapper = item as { hasRan?: unknown; cmd?: unknown };
      if (wrapper.hasRan === false) continue;
      const step = wrapper.cmd ?? item;
      if (isReplayableStep(step)) requests.push(...step.httpRequests(state));
    }
    return requests;
  }
  return [];
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** fast-check prints a command scenario's replay hint as a comment: `/*replayPath="…"*\/`. */
function findReplayPath(counterexample: readonly unknown[]): string | undefined {
  for (const argument of counterexample) {
    if (typeof argument !== 'object' || argument === null) continue;
    const match = /replayPath="([^"]*)"/.exec(String(argument));
    if (match?.[1] !== undefined) return match[1];
  }
  return undefined;
}

/** Requests as they go on the wire, one block each; numbered when there are several. */
export function formatRequests(requests: readonly HttpRequest[]): string {
  return requests
    .map((request, index) => {
      const head = [
        ...(requests.length > 1 ? [`# ${index + 1} of ${requests.length}`] : []),
        ...(request.times !== undefined && request.times > 1 ? [`# sent ${request.times} times at once`] : []),
        `${request.method} ${request.path}`,
        'Authorization: Bearer <ACCESS_TOKEN>',
        ...(request.body === undefined ? [] : ['Content-Type: application/json']),
        ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`),
      ];
      return request.body === undefined ? head.join('\n') : `${head.join('\n')}\n\n${visibleJson(request.body)}`;
    })
    .join('\n\n');
}

/**
 * JSON with invisible characters escaped: a no-break space or a zero-width joiner in a
 * counterexample must be seen to be replayed. The escapes are valid JSON, so the body can
 * be pasted as it is.
 */
export function visibleJson(value: unknown): string {
  const json = JSON.stringify(value, null, 2) ?? 'undefined';
  return json.replace(/[\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u007f-\u009f]|(?! )\p{Zs}/gu, (char) =>
    [...char]
      .flatMap((c) => {
        const code = c.codePointAt(0) as number;
        return code > 0xffff ? [c.charCodeAt(0), c.charCodeAt(1)] : [code];
      })
      .map((unit) => `\\u${unit.toString(16).padStart(4, '0')}`)
      .join(''),
  );
}
