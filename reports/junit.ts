// JUnit XML for CI systems: one <testcase> per requirement, grouped in one <testsuite> per
// area. Playwright's built-in junit reporter gives one testcase per *test* and knows nothing
// of levels, so it cannot say "SEND-004 failed" or tell a non-strict fail from a fail; this
// writer reports the requirement verdicts of the certificate instead.
//   fail             → <failure>
//   non-strict fail  → <skipped> (the gate does not fail on it unless strict, where it is a fail)
//   not testable / not run → <skipped> with the reason
// Harness errors become an <error> in a "harness" suite so a CI view shows them too.
import { escXml } from './escape.ts';
import type { Report, RequirementResult } from './types.ts';

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

function durationOf(r: RequirementResult): number {
  return r.tests.reduce((sum, t) => sum + t.attempts.reduce((s, a) => s + a.durationMs, 0), 0);
}

function testcase(r: RequirementResult): string {
  const props = `<properties><property name="level" value="${escXml(r.level)}"/><property name="verdict" value="${escXml(r.verdict)}"/><property name="source" value="${escXml(r.source)}"/></properties>`;
  const detail = [...r.reasons, ...r.notes].join('\n');
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
