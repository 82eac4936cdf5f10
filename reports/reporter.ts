// The conformance reporter. Collects each test's attempts in onTestEnd, writes the report
// once in onEnd (report.json, report.html, junit.xml under outDir), prints one summary line
// and owns the process exit code: 0 conformant, 1 not conformant, 2 harness or config error.
//
//   reporter: [['./reports/reporter.ts', { outDir, catalogue, target, strict, baseline }]]
//
// Works the same under `playwright merge-reports` (sharded runs), where it sees every
// shard's tests as one run.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { loadBaseline, type Baseline } from './baseline.ts';
import { buildReport, requirementTags } from './build.ts';
import { loadCatalogue } from './catalogue.ts';
import { RUN_STOPPED, RUN_STOPPED_ON } from '../harness/annotations.ts';
import { ANSI, attemptOf, testRecordOf, type CollectedAttempt } from './collect.ts';
import { InputError } from './errors.ts';
import { EXIT_HARNESS_ERROR, gateOf, summaryLine } from './gate.ts';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import { nextSteps, renderNextSteps } from './next-steps.ts';
import { REPO_ROOT } from '../harness/settings.ts';
import { harnessInfo } from './meta.ts';
import { redactText } from './redact.ts';
import { prepareReportSchema, reportSchemaErrors } from './schema.ts';
import { targetOf, type TargetInput } from './target.ts';
import type { Catalogue, Report, Target } from './types.ts';

/**
 * Everything the reporter is told about the run. playwright.config.ts fills these from the
 * run's settings (harness/settings.ts); the reporter reads no environment variable.
 */
export interface ConformanceReporterOptions {
  /** Where report.json, report.html and junit.xml go. Default: <repo>/reports/out. */
  outDir?: string;
  /** The requirement catalogue. Default: <repo>/spec/requirements.yaml. */
  catalogue?: string;
  /** The target: label, base URL, declared profile. Default: an unnamed target. */
  target?: TargetInput;
  /** Standard-level failures fail the run. Default false. */
  strict?: boolean;
  /** Expected-failure baseline file. */
  baseline?: string;
  /** The run's seed. Default: a `seed` annotation of a test, if any. */
  seed?: string;
  /** How the run was narrowed (grep, requirement list, shard), as the report names it. */
  filters?: string[];
  /** The run stops after this many failed tests. */
  maxFailures?: number | null;
  /** One line per finished test; default: only when no other terminal reporter is configured. */
  progress?: boolean;
  /** Set the process exit code (0/1/2). Default true. */
  setExitCode?: boolean;
  /** Playwright passes these to every reporter: the config's folder, and test/list/merge. */
  configDir?: string;
  _mode?: string;
}

// Built-in reporters that do not write to the terminal; any other one (list, line, dot,
// github, custom) already shows progress, so ours stays quiet.
const SILENT_REPORTERS = new Set(['html', 'blob', 'json', 'junit', 'null']);
const MAX_FAILURES_NOTICE = /^Testing stopped early after \d+ maximum allowed failures\.$/;
const STATUS_MARK: Record<string, string> = { passed: '✓', failed: '✗', timedOut: '✗', skipped: '–', interrupted: '–' };

export default class ConformanceReporter implements Reporter {
  private readonly options: ConformanceReporterOptions;
  private config: FullConfig | undefined;
  private suite: Suite | undefined;
  private readonly attempts = new Map<TestCase, CollectedAttempt[]>();
  private readonly errors: string[] = [];
  private progress = false;
  /** Another terminal reporter (list, line, …) prints the errors Playwright hands over itself: ours then does not print them again. */
  private othersPrintErrors = false;
  /** The catalogue, read once: while the tests run if it can be, or when the report is built. */
  private catalogue: { path: string; read: () => Catalogue } | undefined;
  /** `playwright test --list` (a dry run): nothing ran, so nothing to report or judge. */
  private readonly listOnly: boolean;

  constructor(options: ConformanceReporterOptions = {}) {
    this.options = options;
    this.listOnly = options._mode === 'list';
  }

  printsToStdio(): boolean {
    // the summary line; Playwright then adds no default terminal reporter. In list mode we
    // print nothing, so Playwright adds its listing reporter.
    return !this.listOnly;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    if (this.listOnly) return;
    this.config = config;
    this.suite = suite;
    const others = config.reporter.filter(([name]) => !/reports[\\/]reporter(\.ts)?$/.test(name));
    this.othersPrintErrors = others.some(([name]) => !SILENT_REPORTERS.has(name));
    this.progress = this.options.progress ?? !this.othersPrintErrors;
    // What the report needs and the run does not change is read while the first test starts (the
    // runner waits on the workers then), not after the last. A problem with it is kept for the
    // report to raise, as it would have reading it at the end.
    setImmediate(() => {
      try {
        this.catalogueAt(this.cataloguePath());
        prepareReportSchema();
      } catch {
        // raised again where the report is built, as the run's problem
      }
    });
  }

  /** An option's path: relative to the config file, as for Playwright's own reporters. */
  private fromOption(path: string | undefined, fallback: string): string {
    if (path === undefined) return fallback;
    const configDir = this.config?.configFile ? dirname(this.config.configFile) : this.options.configDir ?? process.cwd();
    return isAbsolute(path) ? path : resolve(configDir, path);
  }

  private cataloguePath(): string {
    return this.fromOption(this.options.catalogue, join(REPO_ROOT, 'spec', 'requirements.yaml'));
  }

  private catalogueAt(path: string): Catalogue {
    if (this.catalogue?.path !== path) {
      let read: () => Catalogue;
      try {
        const loaded = loadCatalogue(path);
        read = () => loaded;
      } catch (e) {
        read = () => {
          throw e;
        };
      }
      this.catalogue = { path, read };
    }
    return this.catalogue.read();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    if (this.listOnly) return;
    const list = this.attempts.get(test) ?? [];
    list.push(attemptOf(result));
    this.attempts.set(test, list);
    const final = result.status === 'passed' || result.status === 'skipped' || result.status === 'interrupted' || result.retry >= test.retries;
    if (this.progress && final) {
      const mark = result.status === 'passed' && result.retry > 0 ? '✓ (flaky)' : STATUS_MARK[result.status] ?? '?';
      const ids = requirementTags(test.tags).join(',') || '(untagged)';
      process.stdout.write(`${mark} ${ids} ${test.title}\n`);
    }
  }

  onError(error: TestError): void {
    // the whole message: a preflight failure says what failed, the answer, and what to check
    this.errors.push(redactText(`${error.message ?? error.value ?? 'error'}`.replace(ANSI, '').trim() || 'error'));
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] } | undefined> {
    if (this.listOnly) return undefined;
    let exitCode: 0 | 1 | 2;
    try {
      exitCode = this.finish(result);
    } catch (e) {
      // Playwright would route a throw from onEnd to onError, which nobody prints after the
      // run: say it here. Input problems get their message; anything else is a bug, with stack.
      const text = e instanceof InputError ? e.message : e instanceof Error ? e.stack ?? e.message : String(e);
      process.stderr.write(`conformance report: ${text}\n`);
      exitCode = EXIT_HARNESS_ERROR;
    }
    if (this.options.setExitCode ?? true) {
      // Playwright maps its status to 0 or 1 itself; 2 (and 0 despite non-strict or
      // expected failures) only survive by setting the code as the process exits.
      process.once('exit', () => {
        process.exitCode = exitCode;
      });
    }
    return { status: exitCode === 0 ? 'passed' : 'failed' };
  }

  /** Builds, validates and writes the report; returns the exit code. */
  private finish(result: FullResult): 0 | 1 | 2 {
    const outDir = this.fromOption(this.options.outDir, join(REPO_ROOT, 'reports', 'out'));
    const cataloguePath = this.cataloguePath();
    const baselinePath = this.options.baseline !== undefined ? this.fromOption(this.options.baseline, '') : undefined;
    const strict = this.options.strict ?? false;

    const catalogue: Catalogue = this.catalogueAt(cataloguePath);
    const baseline: Baseline | null = baselinePath ? loadBaseline(baselinePath) : null;
    const targetInput = this.options.target;
    const target: Target = targetOf(targetInput);

    const maxFailures = this.options.maxFailures ?? (this.config?.maxFailures || null);
    const rootDir = this.config?.rootDir ?? process.cwd();
    const tests = (this.suite?.allTests() ?? []).map((t) => testRecordOf(t, this.attempts.get(t) ?? [], rootDir));
    const annotations = [...this.attempts.values()].flat().flatMap((a) => a.annotations);
    const seedAnnotation = annotations.find((a) => a.type === 'seed')?.description;
    const harnessStopped = annotations.find((a) => a.type === RUN_STOPPED)?.description ?? null;
    const stoppedOn = annotations.find((a) => a.type === RUN_STOPPED_ON)?.description?.split(', ') ?? [];
    const seed = this.options.seed ?? seedAnnotation ?? null;

    const report: Report = buildReport({
      catalogue,
      catalogueName: relativeName(cataloguePath),
      tests,
      target,
      strict,
      harness: harnessInfo(),
      seed: seed === null ? null : String(seed),
      startTime: result.startTime,
      durationMs: result.duration,
      playwrightStatus: result.status,
      // Playwright says when --max-failures ended the run; the report says it as run.stop instead
      errors: this.errors.filter((e) => !(maxFailures !== null && MAX_FAILURES_NOTICE.test(e))),
      shard: this.config?.shard ?? null,
      ...(this.config && { workers: this.config.workers }),
      filters: this.options.filters ?? [],
      maxFailures,
      // Global setup (the preflight) fails before any test is loaded: Playwright then begins
      // the report with an empty suite and hands over the error.
      setupFailed: (this.suite?.allTests().length ?? 0) === 0 && this.errors.length > 0,
      harnessStopped,
      harnessStoppedOn: stoppedOn,
    });

    const invalid = reportSchemaErrors(report);
    if (invalid.length) {
      // a bug in this reporter, not in the target: refuse to write a report that verify would reject
      throw new InputError(`the report does not match report.schema.json, nothing written:\n  ${invalid.join('\n  ')}`);
    }

    mkdirSync(outDir, { recursive: true });
    rmSync(join(outDir, 'report.json.sig'), { force: true }); // a signature of an older report
    writeFileSync(join(outDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(outDir, 'report.html'), renderHtml(report, { strict, baseline }));
    writeFileSync(join(outDir, 'junit.xml'), renderJunit(report));

    const gate = gateOf(report, { strict, baseline });
    const partial = report.run.partial ?? [];
    // An error Playwright handed over (the preflight's, a file that does not load) was printed by
    // the terminal reporter beside ours, in full: printed once, the report keeps it.
    const printed = new Set(this.othersPrintErrors ? this.errors : []);
    const lines = [
      ...report.run.errors.filter((e) => !printed.has(e)).map((e) => `harness error: ${e.split('\n').join('\n  ')}`),
      ...gate.errors.map((e) => `baseline error: ${e}`),
      // what to do next: the failed requirements, then what would reach the not-testable ones
      ...renderNextSteps(nextSteps(report, gate, baseline !== null)),
      ...(report.run.shard ? [`note: this report covers shard ${report.run.shard.current} of ${report.run.shard.total} only; merge the shards' blob reports for the certificate`] : []),
      ...(partial.length > 0 && report.verdict !== 'harness error' ? [`note: a partial run (${partial.join('; ')}): it is not a certificate`] : []),
      `report: ${join(outDir, 'report.html')}`,
      summaryLine(report, { strict, baseline }),
    ];
    process.stdout.write(`\n${lines.join('\n')}\n`);
    return gate.exitCode;
  }
}

/** Repository-relative name for files inside the repository, else the absolute path. */
function relativeName(p: string): string {
  const root = `${REPO_ROOT}/`;
  return p.startsWith(root) ? p.slice(root.length) : p;
}
