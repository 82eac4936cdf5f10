// Small builders for requirements and test records, for the pure tests of the verdict rules.
import type { Catalogue, Level, Requirement, TestOutcome, TestRecord } from '../../reports/types.ts';

export function req(id: string, level: Level, extra: Partial<Requirement> = {}): Requirement {
  return { id, area: 'a', level, source: 's', statement: `statement of ${id}`, check: 'black-box', ...extra };
}

export function rec(ids: string[], outcome: TestOutcome, extra: Partial<TestRecord> = {}): TestRecord {
  const status = { passed: 'passed', failed: 'failed', flaky: 'passed', stopped: 'failed', 'harness-error': 'failed', 'not-testable': 'skipped', skipped: 'skipped', 'did-not-run': 'interrupted' }[outcome];
  const attempts =
    outcome === 'flaky'
      ? [{ retry: 0, status: 'failed', durationMs: 5, errors: ['Error: first try failed'], evidence: [] }, { retry: 1, status: 'passed', durationMs: 5, errors: [], evidence: [] }]
      : [{ retry: 0, status, durationMs: 5, errors: outcome === 'failed' ? [`Error: ${ids.join(',')} broke\n\nExpected: 403\nReceived: 200`] : [], evidence: [] }];
  return {
    title: `test of ${ids.join(',')} (${outcome})`,
    titlePath: [`test of ${ids.join(',')}`],
    file: 'x.spec.ts',
    line: 1,
    project: '',
    tags: ids.map((i) => `@${i}`),
    outcome,
    attempts,
    ...extra,
  };
}

export function catalogue(requirements: Requirement[]): Catalogue {
  return { interface: '0.2.0', profile: 'reference', areas: [{ id: 'a', title: 'Area A' }], requirements };
}
