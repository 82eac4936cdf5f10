// The StrykerJS plugins of `npm run mutation` (cli/mutation.ts):
//
// - test runner `certify`: runs the certification suite, as `npm run certify` does (the bundled
//   reference, compiled by esbuild from the sandbox's sources, which StrykerJS has mutated),
//   against each mutant, with --strict: the reference claims the standards' rules as well as the
//   document's and its profile's, so a failure at any level fails the run, as the kill matrix
//   counts a non-strict failure caught. The mutant is killed when a run ends NOT CONFORMANT
//   (exit 1), or when the mutated reference, having served, ends with an exit code of its own
//   before the run does (it crashed, and certify stops the run saying so: as with StrykerJS's
//   command runner, a server under test that dies has been noticed). Any other harness error
//   (exit 2), or a run that does not end in time, is not a kill.
// - ignorer `mutation-kept`: leaves the limits cli/mutation-files.ts keeps unmutated.
// - reporter `mutation-results`: writes each mutant's outcome, under its stable id, to the
//   results file of the run, as soon as it is known (a chunk interrupted keeps what it finished).
//
// What makes it cheaper per mutant:
// - The dry run certifies the unmutated (instrumented) reference once and reads which mutants
//   the run reached (cli/mutation-coverage.mjs, in every process of the run). A mutant it never
//   reached cannot change a run: it is reported `no coverage` (a survivor) without a run. (Should
//   a run reach code the dry run did not, by a generated input, this can only count a kill less.)
// - Everything else is certified by the whole suite, to its end, as certify runs it: a run that
//   failed a check can still end in a harness error later (a harness stop, the server gone),
//   and then it is no kill.
// - `fast` (--fast) trades that for time: a mutant in a file whose entry in cli/mutation-files.ts
//   names suites areas is first certified with those areas' tests alone, and every run stops at
//   its first failed test (--max-failures 1). A survivor is still one (it passed the whole suite
//   to its end); a kill means a check failed, and may be a harness error or a timeout in a
//   whole run: a fast score can only be too high, never too low.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { INSTRUMENTER_CONSTANTS, type MutantResult as StrykerMutantResult, type StrykerOptions } from '@stryker-mutator/api/core';
import type { Logger } from '@stryker-mutator/api/logging';
import { commonTokens, declareClassPlugin, declareFactoryPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin';
import type { Reporter } from '@stryker-mutator/api/report';
import {
  DryRunStatus,
  MutantRunStatus,
  TestStatus,
  type DryRunOptions,
  type DryRunResult,
  type MutantRunOptions,
  type MutantRunResult,
  type TestRunner,
} from '@stryker-mutator/api/test-runner';
import { entryFor } from './mutation-files.ts';
import { KeptDeclarations, sameMutant, shortText, type Location, type Outcome } from './mutation-mutants.ts';
import { REFERENCE_DID_NOT_START, REFERENCE_EXITED } from '../harness/embedded-reference.ts';

/** What cli/mutation.ts tells the plugins (StrykerJS option `mutationCertify`). */
export interface CertifyRunnerOptions {
  /** The project StrykerJS copied into its sandbox. */
  projectRoot: string;
  /** JSON: the selected mutants (`SelectedMutant[]`); any other mutant StrykerJS instruments is not run. */
  selection: string;
  /** JSONL the runner appends to: what each mutant's certify runs came to. */
  runs: string;
  /** JSONL the reporter appends to: each selected mutant's outcome, by stable id. */
  results: string;
  /** A certify run that has not ended after this many seconds is stopped: a timeout. */
  timeoutSeconds: number;
  /** Written into each result, so results of other code are never merged with these. */
  fingerprint: string;
  /** Areas first and a stop at the first failed test: kills may be over-counted (see above). */
  fast: boolean;
}

export interface SelectedMutant {
  id: string;
  file: string;
  mutator: string;
  replacement: string;
  location: Location;
}

/** A line of the results file. */
export interface ResultLine {
  id: string;
  outcome: Outcome;
  detail: string;
  seconds: number;
  fingerprint: string;
}

export const strykerValidationSchema = {
  $schema: 'http://json-schema.org/draft-07/schema',
  type: 'object',
  properties: {
    mutationCertify: {
      type: 'object',
      properties: {
        projectRoot: { type: 'string' },
        selection: { type: 'string' },
        runs: { type: 'string' },
        results: { type: 'string' },
        timeoutSeconds: { type: 'number' },
        fingerprint: { type: 'string' },
        fast: { type: 'boolean' },
      },
    },
  },
};

const optionsOf = (options: StrykerOptions) => (options as unknown as { mutationCertify: CertifyRunnerOptions }).mutationCertify;

const COVERAGE_HOOK = fileURLToPath(new URL('./mutation-coverage.mjs', import.meta.url));

/** The suites areas: each folder of suites/ with spec files, by name. */
export function suiteAreas(root: string): string[] {
  return readdirSync(join(root, 'suites'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && readdirSync(join(root, 'suites', d.name)).some((f) => f.endsWith('.spec.ts')))
    .map((d) => d.name)
    .sort();
}

/** A --grep that selects the tests of these areas: Playwright matches it against each test's file path and titles. */
export function areaGrep(areas: readonly string[]): string {
  return `(?:^|\\s)(?:${areas.map((a) => a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})/[^\\s/]+\\.spec\\.ts(?:\\s|$)`;
}

const CERTIFY_TEST = 'certify';

/** What one certify run came to. */
export interface CertifyRun {
  /** `all`, or the areas it ran. */
  suites: string;
  exit: number | null;
  timedOut: boolean;
  seconds: number;
  /** Requirements the report holds as failed (document or profile level: they fail the run). */
  failing: string[];
  /** Requirements failed at standard level, reported non-strict (they do not fail a run). */
  nonStrict: string[];
  /** The report's harness errors, or what ended the run without a report. */
  errors: string[];
  /** The reference served, then ended with an exit code of its own before the run did: a kill (certify stopped the run naming the crash). */
  crashed?: boolean;
}

type Report = { verdict?: string; requirements?: Array<{ id: string; verdict: string }>; run?: { errors?: string[] } };

export class CertifyTestRunner implements TestRunner {
  static inject = tokens(commonTokens.options, commonTokens.logger);
  private readonly settings: CertifyRunnerOptions;
  private readonly sandbox = process.cwd();
  private readonly running = new Set<ChildProcess>();
  private areas: string[] = [];

  constructor(options: StrykerOptions, private readonly log: Logger) {
    this.settings = optionsOf(options);
    // A test runner process StrykerJS stops takes its certify runs with it.
    process.once('exit', () => this.killAll());
  }

  capabilities() {
    // Every run starts its own reference, so a mutant is always active from the start.
    return { reloadEnvironment: true };
  }

  async init(): Promise<void> {
    if (!existsSync(join(this.sandbox, 'cli', 'certify.ts'))) throw new Error(`the certify test runner runs in a copy of the project, but ${this.sandbox} has no cli/certify.ts`);
    this.areas = suiteAreas(this.sandbox);
  }

  async dryRun(options: DryRunOptions): Promise<DryRunResult> {
    const { run, reached } = await this.covered();
    this.logRun({ dryRun: true, runs: [run] });
    if (run.exit !== 0) return { status: DryRunStatus.Error, errorMessage: `the unmutated reference is not CONFORMANT: ${describeRun(run)}` };
    if (reached.size === 0) {
      return { status: DryRunStatus.Error, errorMessage: 'the certification reached none of the mutated code: the reference that ran is not the sandbox\'s mutated one' };
    }
    this.log.info(`dry run: CONFORMANT in ${run.seconds.toFixed(1)} s; ${reached.size} of the instrumented mutants reached`);
    void options;
    return {
      status: DryRunStatus.Complete,
      tests: [{ id: CERTIFY_TEST, name: 'certify: the whole suite', status: TestStatus.Success, timeSpentMs: Math.round(run.seconds * 1000) }],
      mutantCoverage: { static: Object.fromEntries([...reached].map((id) => [id, 1])), perTest: {} },
    };
  }

  async mutantRun(options: MutantRunOptions): Promise<MutantRunResult> {
    const { activeMutant } = options;
    const file = projectPath(this.settings.projectRoot, activeMutant.fileName);
    const selected = this.selection().find((s) => sameMutant(s, { file, mutator: activeMutant.mutatorName, replacement: activeMutant.replacement, location: activeMutant.location }));
    if (selected === undefined) return { status: MutantRunStatus.Error, errorMessage: NOT_SELECTED };
    const areas = (entryFor(file)?.suites ?? []).filter((a) => this.areas.includes(a));
    const plan: Array<string[] | null> = this.settings.fast && areas.length > 0 && areas.length < this.areas.length ? [areas, null] : [null];
    const runs: CertifyRun[] = [];
    for (const suites of plan) {
      const run = await this.certify(suites, { mutant: activeMutant.id });
      runs.push(run);
      if (run.exit === 1 || run.crashed) {
        this.logRun({ id: selected.id, runs, outcome: 'killed' });
        return { status: MutantRunStatus.Killed, killedBy: [CERTIFY_TEST], failureMessage: describeRuns(runs), nrOfTests: 1 };
      }
    }
    const last = runs[runs.length - 1]!;
    const outcome: Outcome = last.timedOut ? 'timeout' : last.exit === 0 ? 'survived' : runs.some((r) => r.errors.some((e) => e.includes(REFERENCE_DID_NOT_START))) ? 'does not start' : 'harness error';
    this.logRun({ id: selected.id, runs, outcome });
    if (outcome === 'timeout') return { status: MutantRunStatus.Timeout, reason: describeRuns(runs) };
    if (outcome === 'survived') return { status: MutantRunStatus.Survived, nrOfTests: 1 };
    return { status: MutantRunStatus.Error, errorMessage: describeRuns(runs) };
  }

  async dispose(): Promise<void> {
    this.killAll();
  }

  private cachedSelection: SelectedMutant[] | undefined;
  private selection(): SelectedMutant[] {
    this.cachedSelection ??= JSON.parse(readFileSync(this.settings.selection, 'utf8')) as SelectedMutant[];
    return this.cachedSelection;
  }

  private logRun(entry: object): void {
    appendFileSync(this.settings.runs, `${JSON.stringify(entry)}\n`);
  }

  /** A run of the unmutated reference that also reads which mutants it reached. */
  private async covered(): Promise<{ run: CertifyRun; reached: Set<string> }> {
    const dir = mkdtempSync(join(tmpdir(), 'mutation-coverage-'));
    try {
      const run = await this.certify(null, { coverageDir: dir });
      const reached = new Set<string>();
      for (const f of readdirSync(dir)) for (const id of JSON.parse(readFileSync(join(dir, f), 'utf8')) as string[]) reached.add(id);
      return { run, reached };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** One certify run in the sandbox: the whole suite (null) or these areas' tests; with `fast`, a mutant's stops at its first failed test. */
  private certify(suites: string[] | null, how: { mutant?: string; coverageDir?: string }): Promise<CertifyRun> {
    const out = mkdtempSync(join(tmpdir(), 'mutation-certify-'));
    const args = ['--import', 'tsx', 'cli/certify.ts', '--quiet', '--strict', '--out', out];
    if (suites !== null) args.push('--grep', areaGrep(suites));
    if (how.mutant !== undefined && this.settings.fast) args.push('--max-failures', '1');
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.INIT_CWD;
    delete env[INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT_ENV_VARIABLE];
    if (how.mutant !== undefined) env[INSTRUMENTER_CONSTANTS.ACTIVE_MUTANT_ENV_VARIABLE] = how.mutant;
    if (how.coverageDir !== undefined) {
      env.MUTATION_COVERAGE_DIR = how.coverageDir;
      // a file URL: no space for NODE_OPTIONS to split on
      env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(COVERAGE_HOOK).href}`.trim();
    }
    const started = Date.now();
    return new Promise((done) => {
      // its own process group, so a timeout stops certify, Playwright, its workers and the reference
      const child = spawn(process.execPath, args, { cwd: this.sandbox, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      this.running.add(child);
      let output = '';
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-20_000);
      };
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child);
      }, this.settings.timeoutSeconds * 1000);
      child.once('close', (code) => {
        clearTimeout(timer);
        this.running.delete(child);
        killGroup(child); // anything of the run still alive
        const run: CertifyRun = { suites: suites?.join(',') ?? 'all', exit: timedOut ? null : code, timedOut, seconds: (Date.now() - started) / 1000, failing: [], nonStrict: [], errors: [] };
        try {
          const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
          run.failing = (report.requirements ?? []).filter((r) => r.verdict === 'fail').map((r) => r.id);
          run.nonStrict = (report.requirements ?? []).filter((r) => r.verdict === 'non-strict fail').map((r) => r.id);
          run.errors = (report.run?.errors ?? []).map((e) => e.split('\n')[0]!);
        } catch {
          if (!timedOut && code !== 0 && code !== 1) run.errors = [lastLines(output)];
        }
        if (run.exit !== 0 && run.exit !== 1 && run.errors.length === 0) run.errors = [timedOut ? `stopped after ${this.settings.timeoutSeconds} s` : lastLines(output)];
        // certify's word that the mutated reference never served, whatever report the stopped run left
        if (run.exit === 2 && output.includes(REFERENCE_DID_NOT_START) && !run.errors.some((e) => e.includes(REFERENCE_DID_NOT_START))) run.errors.push(`${REFERENCE_DID_NOT_START} (certify)`);
        // ...or that it served and then failed on its own (an exit code, not a signal): the run saw the mutant crash the server
        const crash = run.exit === 2 ? new RegExp(`${REFERENCE_EXITED} \\((\\d+)\\) before the run ended`).exec(output) : null;
        if (crash) {
          run.crashed = true;
          run.errors.push(`${REFERENCE_EXITED} (${crash[1]}) during the run: the mutant crashed the server, and certify stopped the run naming it`);
        }
        rmSync(out, { recursive: true, force: true });
        done(run);
      });
    });
  }

  private killAll(): void {
    for (const child of this.running) killGroup(child);
  }
}

export const NOT_SELECTED = 'not selected: outside this sample or chunk (instrumented only because it shares a place with one that is)';

/** A file StrykerJS names (absolute, or relative to the project) as a project path. */
function projectPath(root: string, fileName: string): string {
  return (isAbsolute(fileName) ? relative(root, fileName) : fileName).split('\\').join('/');
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function lastLines(output: string): string {
  return output.trim().split('\n').slice(-3).join(' | ').slice(0, 600);
}

export function describeRun(run: CertifyRun): string {
  const suites = run.suites === 'all' ? 'full suite' : `suites ${run.suites}`;
  const verdict = run.timedOut ? 'no end in time' : run.exit === 0 ? 'CONFORMANT' : run.exit === 1 ? 'NOT CONFORMANT' : `HARNESS ERROR (exit ${run.exit})`;
  const parts = [`${suites}: ${verdict} in ${run.seconds.toFixed(1)} s`];
  if (run.failing.length > 0) parts.push(`failed ${run.failing.join(', ')}`);
  if (run.nonStrict.length > 0) parts.push(`non-strict ${run.nonStrict.join(', ')}`);
  if (run.errors.length > 0 && run.exit !== 1) parts.push(run.errors.join('; '));
  return parts.join('; ');
}

export function describeRuns(runs: readonly CertifyRun[]): string {
  return runs.map(describeRun).join(' → ');
}

// ---- the reporter ------------------------------------------------------------------------------

/** What StrykerJS's status of a mutant is, as an outcome of this tool; null when it was not selected or not run. */
export function outcomeOf(status: string, reason: string | undefined): Outcome | null {
  switch (status) {
    case 'Killed':
      return 'killed';
    case 'Survived':
      return 'survived';
    case 'NoCoverage':
      return 'no coverage';
    case 'Timeout':
      return 'timeout';
    case 'RuntimeError':
    case 'CompileError':
      if (reason === NOT_SELECTED) return null;
      return reason?.includes(REFERENCE_DID_NOT_START) ? 'does not start' : 'harness error';
    default:
      return null;
  }
}

export class MutationResultsReporter implements Reporter {
  static inject = tokens(commonTokens.options);
  private readonly settings: CertifyRunnerOptions;
  private done = 0;

  constructor(options: StrykerOptions) {
    this.settings = optionsOf(options);
  }

  onMutantTested(result: Readonly<StrykerMutantResult>): void {
    const file = projectPath(this.settings.projectRoot, result.fileName);
    const selection = JSON.parse(readFileSync(this.settings.selection, 'utf8')) as SelectedMutant[];
    // a reported mutant's place counts lines and columns from 1, the instrumenter's from 0
    const { start, end } = result.location;
    const location = { start: { line: start.line - 1, column: start.column - 1 }, end: { line: end.line - 1, column: end.column - 1 } };
    const selected = selection.find((s) => sameMutant(s, { file, mutator: result.mutatorName, replacement: result.replacement, location }));
    const outcome = outcomeOf(result.status, result.statusReason);
    if (selected === undefined || outcome === null) return;
    const runs = existsSync(this.settings.runs)
      ? readFileSync(this.settings.runs, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: string; runs: CertifyRun[] }).filter((l) => l.id === selected.id).pop()
      : undefined;
    const detail = runs ? describeRuns(runs.runs) : outcome === 'no coverage' ? 'no run of the unmutated suite reached this code' : shortText(result.statusReason ?? '');
    const seconds = runs ? runs.runs.reduce((s, r) => s + r.seconds, 0) : 0;
    const line: ResultLine = { id: selected.id, outcome, detail, seconds: Math.round(seconds * 10) / 10, fingerprint: this.settings.fingerprint };
    mkdirSync(join(this.settings.results, '..'), { recursive: true });
    appendFileSync(this.settings.results, `${JSON.stringify(line)}\n`);
    this.done++;
    process.stderr.write(`mutation: ${String(this.done).padStart(4)} ${outcome.padEnd(13)} ${seconds.toFixed(1).padStart(5)} s  ${selected.file}:${selected.location.start.line + 1} ${selected.mutator} ${shortText(selected.replacement).slice(0, 60)}\n`);
  }
}

export const strykerPlugins = [
  declareClassPlugin(PluginKind.TestRunner, 'certify', CertifyTestRunner),
  declareClassPlugin(PluginKind.Reporter, 'mutation-results', MutationResultsReporter),
  declareFactoryPlugin(PluginKind.Ignore, 'mutation-kept', () => new KeptDeclarations(process.cwd())),
];
