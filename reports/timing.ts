// Where a run's time went, read from a report: each test's time (its attempts), and of it the
// time its requests waited for the target's answers (the exchanges its evidence kept), per area
// and for the slowest tests. What is left of a test's time beyond its HTTP answers is waiting
// for callbacks, quiet periods and the harness's own work. A vendor reads it in the HTML report
// ("Where the time went"); bench/certify-time.ts prints it beside the run's wall and CPU time.
import type { Report, TestRecord } from './types.ts';

export interface TimingRow {
  tests: number;
  /** Sum of the tests' attempt durations. */
  testMs: number;
  /** Sum of the response times of the exchanges kept as evidence: concurrent requests overlap, so this can exceed testMs. */
  httpMs: number;
}

export interface SlowTest {
  title: string;
  file: string;
  /** The requirement the test is first listed under, for a link into the report. */
  requirement: string;
  testMs: number;
  httpMs: number;
}

export interface Timing {
  all: TimingRow;
  /** Per area of the suites (the test file's folder), slowest first. */
  areas: Array<TimingRow & { area: string }>;
  slowest: SlowTest[];
  /** Exchanges left out of long attempts' evidence: their HTTP time is not counted. */
  omittedExchanges: number;
}

const row = (): TimingRow => ({ tests: 0, testMs: 0, httpMs: 0 });

/**
 * The run's timing. A test listed under several requirements is counted once, in the area of
 * its file (suites/<area>/...), else of the requirement it is first listed under.
 */
export function timingOf(report: Pick<Report, 'requirements'>, slowest = 10): Timing {
  const tests = new Map<string, { test: TestRecord; requirement: string; area: string }>();
  for (const requirement of report.requirements) {
    for (const test of requirement.tests) {
      const key = `${test.file}\u0000${test.line}\u0000${test.title}`;
      if (!tests.has(key)) tests.set(key, { test, requirement: requirement.id, area: test.file.split('/')[0] || requirement.area });
    }
  }
  const all = row();
  const areas = new Map<string, TimingRow>();
  const rows: SlowTest[] = [];
  let omittedExchanges = 0;
  for (const { test, requirement, area } of tests.values()) {
    const testMs = test.attempts.reduce((sum, a) => sum + a.durationMs, 0);
    const httpMs = test.attempts.reduce((sum, a) => sum + a.evidence.reduce((s, e) => s + (typeof e.response?.durationMs === 'number' ? e.response.durationMs : 0), 0), 0);
    omittedExchanges += test.attempts.reduce((sum, a) => sum + (a.evidenceOmitted ?? 0), 0);
    for (const r of [all, areas.get(area) ?? areas.set(area, row()).get(area)!]) {
      r.tests += 1;
      r.testMs += testMs;
      r.httpMs += httpMs;
    }
    rows.push({ title: test.title, file: test.file, requirement, testMs, httpMs });
  }
  return {
    all,
    areas: [...areas].map(([area, r]) => ({ area, ...r })).sort((a, b) => b.testMs - a.testMs),
    slowest: rows.sort((a, b) => b.testMs - a.testMs).slice(0, slowest),
    omittedExchanges,
  };
}
