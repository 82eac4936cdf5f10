// JUnit XML for CI systems: one <testcase> per requirement, grouped in one <testsuite> per
// area. Playwright's built-in junit reporter gives one testcase per *test* and knows nothing
// of levels, so it cannot say "SEND-004 failed" or tell a non-strict fail from a fail; this
// writer reports the requirement verdicts of the certificate instead.
//   fail             → <failure>: the reasons, and per failing test its message, the exchanges it
//                      made (the last ones) and the request to replay as a curl command
//   non-strict fail  → <skipped> (the gate does not fail on it unless strict, where it is a fail)
//   not testable / not run → <skipped> with the reason
// Harness errors become an <error> in a "harness" suite so a CI view shows them too.
import { asCurl } from '../harness/evidence.ts';
import { escXml } from './escape.ts';
import type { Attempt, Report, RequirementResult, TestRecord } from './types.ts';

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function durationOf(r: RequirementResult): number {
  return r.tests.reduce((sum, t) => sum + t.attempts.reduce((s, a) => s + a.durationMs, 0), 0);
}

/** How many exchanges a failure's evidence summary lists: the last ones, where a test stops. */
const EVIDENCE_SHOWN = 5;

/**
 * What a CI reader needs to act on a failing test without opening the HTML: the failure's
 * message (requirement, expected, actual), the exchanges it made, and the last request as a
 * command to replay (credentials redacted: put your own in).
 */
function failureDetail(t: TestRecord): string {
  const attempt: Attempt | undefined = [...t.attempts].reverse().find((a) => a.errors.length > 0) ?? t.attempts.at(-1);
  if (!attempt) return '';
  const lines = [`test: ${t.titlePath.join(' › ') || t.title} (${t.file}:${t.line})`, ...attempt.errors.map((e) => e.trimEnd())];
  const shown = attempt.evidence.slice(-EVIDENCE_SHOWN);
  if (shown.length > 0) {
    const left = attempt.evidence.length - shown.length + (attempt.evidenceOmitted ?? 0);
    lines.push(`evidence (${attempt.evidence.length + (attempt.evidenceOmitted ?? 0)} exchanges${left > 0 ? `, the last ${shown.length}` : ''}):`);
    for (const e of shown) {
      const body = e.response?.body === undefined ? '' : ` ${(typeof e.response.body === 'string' ? e.response.body : JSON.stringify(e.response.body)).slice(0, 300)}`;
      lines.push(`  ${e.request.method} ${e.request.url} → ${e.response ? `${e.response.status}${body}` : `no answer${e.error ? ` (${e.error})` : ''}`}${e.violations?.length ? ` [${e.violations.length} schema violation${e.violations.length === 1 ? '' : 's'}]` : ''}`);
    }
    // a matcher's message carries its own replay; else the last request is the one to replay
    if (!attempt.errors.some((e) => e.includes('replay:'))) lines.push('replay (the last request):', asCurl(shown.at(-1)!.request));
  }
  return lines.join('\n');
}

function testcase(r: RequirementResult): string {
  const props = `<properties><property name="level" value="${escXml(r.level)}"/><property name="verdict" value="${escXml(r.verdict)}"/><property name="source" value="${escXml(r.source)}"/></properties>`;
  const failing = r.verdict === 'fail' ? r.tests.filter((t) => t.outcome === 'failed' || t.outcome === 'flaky') : [];
  const detail = [...r.reasons, ...r.notes, ...failing.map((t) => `\n${failureDetail(t)}`)].join('\n');
  const message = `${r.verdict}: ${r.reasons[0] ?? ''}`;
  let body = '';
  if (r.verdict === 'fail') body = `<failure message="${escXml(message)}" type="${escXml(r.level)}">${escXml(detail)}</failure>`;
  else if (r.verdict !== 'pass') body = `<skipped message="${escXml(message)}"/>`;
  const name = `${r.id} ${r.statement}`;
  return `    <testcase classname="${escXml(r.area)}" name="${escXml(name)}" time="${seconds(durationOf(r))}">${props}${body}</testcase>`;
}

export function renderJunit(report: Report): string {
  const suites: string[] = [];
  for (const a of report.areas) {
    const reqs = report.requirements.filter((r) => r.area === a.id);
    if (reqs.length === 0) continue;
    const failures = reqs.filter((r) => r.verdict === 'fail').length;
    const skipped = reqs.filter((r) => r.verdict !== 'pass' && r.verdict !== 'fail').length;
    const time = reqs.reduce((s, r) => s + durationOf(r), 0);
    suites.push(`  <testsuite name="${escXml(`${a.id}: ${a.title}`)}" tests="${reqs.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(time)}">\n${reqs.map(testcase).join('\n')}\n  </testsuite>`);
  }
  if (report.run.errors.length) {
    const cases = report.run.errors.map((e, i) => `    <testcase classname="harness" name="harness error ${i + 1}"><error message="${escXml(e)}"/></testcase>`);
    suites.push(`  <testsuite name="harness" tests="${cases.length}" failures="0" errors="${cases.length}" skipped="0">\n${cases.join('\n')}\n  </testsuite>`);
  }
  const total = report.requirements.length + report.run.errors.length;
  const failures = report.requirements.filter((r) => r.verdict === 'fail').length;
  const skipped = report.requirements.filter((r) => r.verdict !== 'pass' && r.verdict !== 'fail').length;
  const name = `conformance of ${report.target.label} to interface ${report.interface.version}`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${escXml(name)}" tests="${total}" failures="${failures}" errors="${report.run.errors.length}" skipped="${skipped}" time="${seconds(report.run.durationMs)}">\n${suites.join('\n')}\n</testsuites>\n`;
}
