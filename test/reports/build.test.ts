// buildReport: counts, run verdict, harness errors, and agreement with report.schema.json.
import { expect, test } from '@playwright/test';
import { buildReport, type BuildInput } from '../../reports/build.ts';
import { reportSchemaErrors } from '../../reports/schema.ts';
import type { TestRecord } from '../../reports/types.ts';
import { catalogue, rec, req } from './records.ts';

const cat = catalogue([
  req('A-001', 'document'),
  req('A-002', 'document'),
  req('A-003', 'document', { check: 'client-side', reason: 'a rule for clients' }),
  req('A-004', 'document', { withdrawn: true }),
  req('A-101', 'standard'),
  req('A-201', 'profile'),
]);

function input(tests: TestRecord[], extra: Partial<BuildInput> = {}): BuildInput {
  return {
    catalogue: cat,
    catalogueName: 'spec/requirements.yaml',
    tests,
    target: { label: 'unit', baseUrl: 'http://x.invalid', profile: 'reference' },
    strict: false,
    harness: { name: 'h', version: '1.0.0', gitRevision: null, gitDirty: null },
    seed: '42',
    startTime: new Date('2026-01-01T00:00:00Z'),
    durationMs: 1234.5,
    playwrightStatus: 'failed',
    errors: [],
    ...extra,
  };
}

const goodTests = [rec(['A-001'], 'passed'), rec(['A-002'], 'passed'), rec(['A-101'], 'failed'), rec(['A-201'], 'passed')];

test('counts per level and the run verdict: a non-strict fail alone is still conformant', () => {
  const r = buildReport(input(goodTests));
  expect(r.verdict).toBe('conformant');
  expect(r.counts.document).toEqual({ total: 3, pass: 2, fail: 0, nonStrictFail: 0, notTestable: 0, notRun: 1 });
  expect(r.counts.standard).toEqual({ total: 1, pass: 0, fail: 0, nonStrictFail: 1, notTestable: 0, notRun: 0 });
  expect(r.requirements.map((x) => x.id)).not.toContain('A-004'); // withdrawn
  expect(reportSchemaErrors(r)).toEqual([]);
});

test('any fail makes the run not conformant; strict turns the standard failure into one', () => {
  expect(buildReport(input([...goodTests, rec(['A-002'], 'failed')])).verdict).toBe('not conformant');
  expect(buildReport(input(goodTests, { strict: true })).verdict).toBe('not conformant');
});

test('a test tagged with an unknown, withdrawn or client-side requirement is a harness error', () => {
  for (const id of ['NOPE-001', 'A-004', 'A-003']) {
    const r = buildReport(input([...goodTests, rec([id], 'passed')]));
    expect(r.verdict).toBe('harness error');
    expect(r.run.errors.join()).toContain(`@${id}`);
  }
});

test('an untagged test, an interrupted run, no test at all: harness errors', () => {
  expect(buildReport(input([...goodTests, rec([], 'passed')])).run.errors.join()).toContain('carries no requirement tag');
  expect(buildReport(input(goodTests, { playwrightStatus: 'interrupted' })).run.errors.join()).toContain('interrupted');
  expect(buildReport(input([])).run.errors).toEqual(['no test ran']);
});

test('every verdict, outcome and evidence shape the builder produces validates against the schema', () => {
  const evidence = [{ request: { method: 'GET', url: 'http://x.invalid/a', headers: {} }, response: { status: 200, headers: {}, body: { a: 1 }, durationMs: 2 }, violations: [] }];
  const tests = [
    ...goodTests,
    rec(['A-002'], 'flaky'),
    rec(['A-002'], 'not-testable', { reason: 'needs hook' }),
    rec(['A-001'], 'skipped', { reason: 'fixme' }),
    rec(['A-001'], 'did-not-run'),
    rec(['A-201'], 'passed', { attempts: [{ retry: 0, status: 'passed', durationMs: 1, errors: [], evidence, evidenceOmitted: 3 }] }),
  ];
  const r = buildReport(input(tests, { playwrightStatus: 'interrupted', errors: ['Error: boom'] }));
  expect(new Set(r.requirements.map((x) => x.verdict)).size).toBeGreaterThanOrEqual(3);
  expect(reportSchemaErrors(r)).toEqual([]);
});

test('the schema rejects what the report must never contain', () => {
  const r = buildReport(input(goodTests));
  const broken = (mutate: (x: Record<string, unknown>) => void): string[] => {
    const copy = structuredClone(r) as unknown as Record<string, unknown>;
    mutate(copy);
    return reportSchemaErrors(copy);
  };
  expect(broken((x) => { (x.requirements as { verdict: string }[])[0]!.verdict = 'maybe'; })).not.toEqual([]);
  // a failing requirement without a reason
  expect(broken((x) => { const q = (x.requirements as { id: string; reasons: string[] }[]).find((q) => q.id === 'A-101')!; q.reasons = []; })).not.toEqual([]);
  expect(broken((x) => { delete x.interface; })).not.toEqual([]);
  expect(broken((x) => { x.extra = 1; })).not.toEqual([]);
  expect(broken((x) => { (x.run as { startTime: string }).startTime = 'yesterday'; })).not.toEqual([]);
});
