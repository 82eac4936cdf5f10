// What to do next, read from a finished report: the requirements that failed (what fails the
// gate first, then what the baseline expects, then the non-strict ones), each in one line with
// its anchor in report.html, and the ones not testable here, grouped by reason, each with the
// config snippet that would reach it (harness/config-snippets.ts). The console ends with it and
// the HTML opens with it. Pure.
import { outOfReach, type OutOfReach } from '../harness/config-snippets.ts';
import { slug } from './escape.ts';
import type { Gate } from './gate.ts';
import type { Report, RequirementResult } from './types.ts';

export interface FailedRequirement {
  requirement: RequirementResult;
  /** `fail`, `new failure` (a baseline does not list it), `expected failure` (it does), `non-strict fail`. */
  label: string;
}

export interface NextSteps {
  failed: FailedRequirement[];
  notTestable: RequirementResult[];
  /** The not-testable requirements by reason, each with its snippet. */
  outOfReach: OutOfReach[];
}

export function nextSteps(report: Report, gate: Gate, hasBaseline: boolean): NextSteps {
  const byId = new Map(report.requirements.map((r) => [r.id, r]));
  const of = (ids: readonly string[], label: string) => ids.flatMap((id) => (byId.has(id) ? [{ requirement: byId.get(id)!, label }] : []));
  const counted = new Set([...gate.regressions, ...gate.expected]);
  const failed = [
    ...of(gate.regressions, hasBaseline ? 'new failure' : 'fail'),
    ...of(gate.expected, 'expected failure'),
    ...report.requirements.filter((r) => (r.verdict === 'non-strict fail' || r.verdict === 'fail') && !counted.has(r.id)).map((requirement) => ({ requirement, label: requirement.verdict })),
  ];
  const notTestable = report.requirements.filter((r) => r.verdict === 'not testable here');
  return { failed, notTestable, outOfReach: outOfReach(notTestable) };
}

/** The anchor of a requirement in report.html. */
export function anchorOf(id: string): string {
  return `report.html#${slug(id)}`;
}

const MAX_LINE = 240;

/** A reason in one line: its first line, cut to a length a terminal shows. */
export function oneLine(text: string | undefined): string {
  const first = (text ?? '').split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return first.length > MAX_LINE ? `${first.slice(0, MAX_LINE - 1)}…` : first;
}

/**
 * What the first failing test of `r` expected and got, as its message says it: the harness's
 * matchers write `expected:` and `actual:` lines, Playwright's own `Expected:` and `Received:`.
 */
export function expectedAndActual(r: RequirementResult): string {
  const failed = r.tests.find((t) => t.outcome === 'failed' || t.outcome === 'flaky');
  const error = failed ? [...failed.attempts].reverse().find((a) => a.errors.length > 0)?.errors[0] : undefined;
  if (!error) return '';
  const line = (label: RegExp) => error.split('\n').map((l) => label.exec(l)?.[1]?.trim()).find((v) => v !== undefined && v !== '');
  const expected = line(/^\s*expected:\s*(.*)$/i);
  const actual = line(/^\s*(?:actual|received(?: string)?):\s*(.*)$/i);
  return expected !== undefined && actual !== undefined ? `expected ${expected}; got ${actual}` : '';
}

/** The console's lines: one per failed requirement, then the not-testable ones by reason with their snippets. */
export function renderNextSteps(steps: NextSteps): string[] {
  const lines = steps.failed.map(({ requirement: r, label }) => {
    const detail = expectedAndActual(r);
    const reason = oneLine(r.reasons[0]);
    return `${label}: ${r.id} ${detail && !reason.includes(detail) ? oneLine(`${reason} — ${detail}`) : reason}  [${anchorOf(r.id)}]`;
  });
  if (steps.notTestable.length > 0) {
    lines.push(`not testable here: ${steps.notTestable.length} requirement${steps.notTestable.length === 1 ? '' : 's'}, each with what would reach it:`);
    for (const g of steps.outOfReach) {
      lines.push(`  ${g.ids.join(', ')}: ${oneLine(g.reason)}`);
      if (g.snippet) lines.push('    in the target config:', ...g.snippet.map((l) => `      ${l}`));
    }
  }
  return lines;
}
