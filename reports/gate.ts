// What a CI system acts on: the exit code and one summary line, from a finished report plus
// the gate's own settings (strict, baseline). Pure.
import type { Baseline } from './baseline.ts';
import type { Level, Report, RequirementResult } from './types.ts';
import { LEVELS } from './types.ts';
import { isCheckableHere } from './verdict.ts';

export const EXIT_CONFORMANT = 0;
export const EXIT_NOT_CONFORMANT = 1;
export const EXIT_HARNESS_ERROR = 2;

export interface GateOptions {
  strict?: boolean;
  baseline?: Baseline | null;
}

export interface Gate {
  exitCode: 0 | 1 | 2;
  strict: boolean;
  /** Failing requirements the baseline lists. */
  expected: string[];
  /** Failing requirements the baseline does not list: what fails the gate. */
  regressions: string[];
  /** Listed requirements that now pass: remove them from the baseline. */
  fixed: string[];
  /** Problems with the gate's input (baseline IDs unknown to the report). */
  errors: string[];
}

function isFailing(r: RequirementResult, strict: boolean): boolean {
  return r.verdict === 'fail' || (strict && r.verdict === 'non-strict fail');
}

export function gateOf(report: Report, options: GateOptions = {}): Gate {
  const strict = options.strict ?? report.run.strict;
  const listed = new Set(options.baseline?.expectedFailures.map((e) => e.id) ?? []);
  const known = new Set(report.requirements.map((r) => r.id));
  const failing = report.requirements.filter((r) => isFailing(r, strict)).map((r) => r.id);
  const errors = [...listed]
    .filter((id) => !known.has(id))
    .map((id) => `baseline ${options.baseline?.file ?? ''} lists ${id}, which is not a requirement of interface ${report.interface.version}`);
  const gate: Gate = {
    exitCode: EXIT_CONFORMANT,
    strict,
    expected: failing.filter((id) => listed.has(id)),
    regressions: failing.filter((id) => !listed.has(id)),
    fixed: report.requirements.filter((r) => listed.has(r.id) && r.verdict === 'pass').map((r) => r.id),
    errors,
  };
  if (report.verdict === 'harness error' || errors.length > 0) gate.exitCode = EXIT_HARNESS_ERROR;
  else if (gate.regressions.length > 0) gate.exitCode = EXIT_NOT_CONFORMANT;
  return gate;
}

export function exitCodeFor(report: Report, options: GateOptions = {}): 0 | 1 | 2 {
  return gateOf(report, options).exitCode;
}

/**
 * How a run reads in one phrase: `CONFORMANT`, `NOT CONFORMANT (strict)`, `PARTIAL (grep
 * @SEND-004)`, `NOT CONFORMANT (partial: shard 1/2)`, `HARNESS ERROR (stopped: …)`. Never
 * `CONFORMANT` unless the gate's exit code is 0, and never without "partial" when the run did
 * not cover the whole suite.
 */
export function headOf(report: Report, gate: Gate): string {
  const partial = report.run.partial ?? [];
  const stop = report.run.stop ?? null;
  const strict = gate.strict ? ['strict'] : [];
  const head = (word: string, qualifiers: string[]) => (qualifiers.length > 0 ? `${word} (${qualifiers.join('; ')})` : word);
  if (report.verdict === 'harness error' || gate.exitCode === EXIT_HARNESS_ERROR) return head('HARNESS ERROR', [...strict, ...(stop ? [`stopped: ${stop.reason}`] : [])]);
  const failed = gate.expected.length + gate.regressions.length > 0;
  if (failed) return head('NOT CONFORMANT', [...strict, ...(partial.length > 0 ? [`partial: ${partial.join('; ')}`] : [])]);
  if (report.verdict === 'partial' || partial.length > 0) return head('PARTIAL', [...strict, ...partial]);
  return head('CONFORMANT', strict);
}

/**
 * Requirements of `level` the harness can check on this target (verdict.ts isCheckableHere): not
 * marked client-side or not-checkable, and of a profile the target declares. Those it checked on
 * this run are counted against them, so the ones not testable here or not run show as the difference.
 */
export function checkableOf(report: Report, level: Level): number {
  return report.requirements.filter((r) => r.level === level && isCheckableHere(r)).length;
}

/** e.g. `CONFORMANT  document 61/61 of 64 checkable  standard 20/22 of 22 checkable (2 non-strict)  profile 30/30 of 30 checkable  not testable 3  not run 2` */
export function summaryLine(report: Report, options: GateOptions = {}): string {
  const gate = gateOf(report, options);
  const parts = [headOf(report, gate)];
  let notTestable = 0;
  let notRun = 0;
  for (const level of LEVELS) {
    const c = report.counts[level];
    // with --strict a non-strict fail is a fail; the report may have been built without it
    const fail = c.fail + (gate.strict ? c.nonStrictFail : 0);
    const nonStrict = gate.strict ? 0 : c.nonStrictFail;
    const extra = [fail ? `${fail} fail` : '', nonStrict ? `${nonStrict} non-strict` : ''].filter(Boolean).join(', ');
    parts.push(`${level} ${c.pass}/${c.pass + c.fail + c.nonStrictFail} of ${checkableOf(report, level)} checkable${extra ? ` (${extra})` : ''}`);
    notTestable += c.notTestable;
    notRun += c.notRun;
  }
  parts.push(`not testable ${notTestable}`, `not run ${notRun}`);
  const operations = report.coverage?.operations ?? [];
  const statuses = operations.reduce((n, o) => n + o.statuses.length, 0);
  if (operations.length > 0) parts.push(`exercised: ${operations.length} operation${operations.length === 1 ? '' : 's'}, ${statuses} status${statuses === 1 ? '' : 'es'}`);
  const limited = report.run.rateLimited;
  if (limited) parts.push(`rate-limited: ${limited.retries} ${limited.retries === 1 ? 'retry' : 'retries'}, ${(limited.waitedMs / 1000).toFixed(1)} s waited`);
  if (options.baseline) {
    const b = [`${gate.expected.length} expected`, `${gate.regressions.length} new${gate.regressions.length ? ` (${gate.regressions.join(', ')})` : ''}`];
    if (gate.fixed.length) b.push(`${gate.fixed.length} fixed (${gate.fixed.join(', ')}: remove from the baseline)`);
    parts.push(`baseline: ${b.join(', ')}`);
  }
  return parts.join('  ');
}
