// buildReport: counts, run verdict, harness errors, and agreement with report.schema.json.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { CAPABILITIES } from '../../harness/config.ts';
import { reachedBy } from '../../harness/plan.ts';
import { buildReport, type BuildInput } from '../../reports/build.ts';
import { summaryLine } from '../../reports/gate.ts';
import { REPORT_SCHEMA_PATH, reportSchemaErrors } from '../../reports/schema.ts';
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

// Attribution (reports/attribution.ts): a test tagged with several requirements is judged for
// each by what its failed checks recorded (failedOn / harnessStop on the attempt), never by
// the wording of the failure.
type Judged = { failedOn?: string[]; harnessStop?: string; failedAfterChecks?: true };
const failingOn = (tags: string[], judged: Judged, outcome: 'failed' | 'flaky' = 'failed', message = 'Error: something broke'): TestRecord => {
  const record = rec(tags, outcome);
  const failed = record.attempts.find((a) => a.status === 'failed')!;
  const title = `${tags.join('+')} failing on ${JSON.stringify(judged)}`;
  return { ...record, title, attempts: record.attempts.map((a) => (a === failed ? { ...a, errors: [message], ...judged } : a)) };
};
const verdicts = (r: ReturnType<typeof buildReport>) => Object.fromEntries(r.requirements.map((x) => [x.id, x.verdict]));

test('a failure judged against one requirement fails it alone; the test\'s other tags are not run by it', () => {
  const r = buildReport(input([failingOn(['A-001', 'A-002'], { failedOn: ['A-001'] })]));
  expect(verdicts(r)).toMatchObject({ 'A-001': 'fail', 'A-002': 'not run' });
  const a002 = r.requirements.find((x) => x.id === 'A-002')!;
  expect(a002.reasons[0]).toMatch(/^stopped: ".*" failed on A-001 before it checked this requirement$/);
  expect(a002.tests[0]).toMatchObject({ outcome: 'stopped', failedOn: ['A-001'] });
  expect(reportSchemaErrors(r)).toEqual([]);
});

test('a failure found after the test\'s own checks ran to their end (the callback audit) fails what it judged, and its tags pass', () => {
  const r = buildReport(input([failingOn(['A-001'], { failedOn: ['A-101'], failedAfterChecks: true }, 'failed', 'CallbackAuditFailed: A-101: …')]));
  expect(verdicts(r)).toMatchObject({ 'A-001': 'pass', 'A-101': 'non-strict fail' });
  expect(r.requirements.find((x) => x.id === 'A-001')!.tests[0]).toMatchObject({ outcome: 'passed', failedOn: ['A-101'] });
  expect(reportSchemaErrors(r)).toEqual([]);
  // Without the mark the same failure stopped the test before its own requirement.
  expect(verdicts(buildReport(input([failingOn(['A-001'], { failedOn: ['A-101'] })])))).toMatchObject({ 'A-001': 'not run', 'A-101': 'non-strict fail' });
});

test('the wording of a failure decides nothing: a message naming A-002 judged against A-001 fails A-001', () => {
  const r = buildReport(input([failingOn(['A-001', 'A-002'], { failedOn: ['A-001'] }, 'failed', 'Error: A-002: quoted from a response body')]));
  expect(verdicts(r)).toMatchObject({ 'A-001': 'fail', 'A-002': 'not run' });
});

test('another tagged test that passed still certifies the requirement the failure did not judge', () => {
  const r = buildReport(input([failingOn(['A-001', 'A-002'], { failedOn: ['A-001'] }), rec(['A-002'], 'passed')]));
  const a002 = r.requirements.find((x) => x.id === 'A-002')!;
  expect(a002.verdict).toBe('not run');
  expect(a002.notes.join()).toContain('1 of 2 tagged tests passed');
});

test('a failure judged against a requirement the test is not tagged with fails that requirement', () => {
  const r = buildReport(input([failingOn(['A-001'], { failedOn: ['A-002'] }), rec(['A-002'], 'passed')]));
  expect(verdicts(r)).toMatchObject({ 'A-001': 'not run', 'A-002': 'fail' });
  expect(r.requirements.find((x) => x.id === 'A-002')!.tests).toHaveLength(2);
});

test('a failure judged against several requirements fails each one', () => {
  expect(verdicts(buildReport(input([failingOn(['A-001', 'A-002'], { failedOn: ['A-001', 'A-002'] })])))).toMatchObject({ 'A-001': 'fail', 'A-002': 'fail' });
});

test('a failure that judged nothing, or an unknown requirement, counts against every tag', () => {
  for (const judged of [{}, { failedOn: ['NOPE-001'] }]) {
    expect(verdicts(buildReport(input([failingOn(['A-001', 'A-002'], judged)])))).toMatchObject({ 'A-001': 'fail', 'A-002': 'fail' });
  }
});

test('a flaky test fails the requirement its failure judged; the retry that passed checked the others', () => {
  const r = buildReport(input([failingOn(['A-001', 'A-002'], { failedOn: ['A-001'] }, 'flaky')]));
  expect(verdicts(r)).toMatchObject({ 'A-001': 'fail', 'A-002': 'pass' });
});

test('a test the harness stopped (send guard, configuration) checked nothing: not run, and a harness error', () => {
  const stop = 'SendGuardError: send cap reached (2000 sends for this worker; raise sendCap in the target config)';
  const r = buildReport(input([failingOn(['A-001'], { harnessStop: stop }), rec(['A-002'], 'passed')]));
  expect(verdicts(r)).toMatchObject({ 'A-001': 'not run' });
  expect(r.requirements.find((x) => x.id === 'A-001')!.reasons[0]).toContain('the harness stopped');
  expect(r.verdict).toBe('harness error');
  expect(r.run.errors.join()).toContain('was stopped by the harness: SendGuardError:');
  expect(reportSchemaErrors(r)).toEqual([]);
});

test('a failure seen before the harness stopped the run stands: not conformant, and partial, with the stop named', () => {
  const stop = 'SendGuardError: send cap reached (2000 sends for the run)';
  const r = buildReport(input([failingOn(['A-001'], { failedOn: ['A-001'] }), failingOn(['A-002'], { harnessStop: stop }), rec(['A-101'], 'passed')], { harnessStopped: stop }));
  expect(r.verdict).toBe('not conformant');
  expect((r.run.partial ?? []).join()).toContain('send cap reached');
  expect(summaryLine(r)).toMatch(/^NOT CONFORMANT \(partial: SendGuardError: send cap reached/);
  expect(reportSchemaErrors(r)).toEqual([]);
});

test('another client on the target voids what the run saw: a harness error, even beside failures', () => {
  const stop = 'InterferenceError: another client is using this target: 1 sign of another run\'s work appeared during this one';
  const r = buildReport(input([failingOn(['A-001'], { failedOn: ['A-001'] }), failingOn(['A-002'], { harnessStop: stop })], { harnessStopped: stop }));
  expect(r.verdict).toBe('harness error');
  expect(summaryLine(r)).toMatch(/^HARNESS ERROR/);
});

test('a target that stopped accepting connections voids what the run saw: a harness error, even beside failures (requests in flight failed with a reset)', () => {
  const stop = 'TargetGone: the target stopped accepting connections during the run: GET http://t.invalid/api/core/whoami was refused (connect ECONNREFUSED)';
  const r = buildReport(input([failingOn(['A-001'], { failedOn: ['A-001'] }), failingOn(['A-002'], { harnessStop: stop })], { harnessStopped: stop }));
  expect(r.verdict).toBe('harness error');
  expect(summaryLine(r)).toMatch(/^HARNESS ERROR/);
});

test('a requirement says how its tests reached it: the triggers they used, once each, and nothing when none was used', () => {
  const r = buildReport(
    input([
      rec(['A-001'], 'passed', { reachedBy: ['expireToken: wait'] }),
      rec(['A-001'], 'passed', { reachedBy: ['expireToken: wait', 'clientWebhooks: declared'] }),
      rec(['A-002'], 'passed'),
      rec(['A-101'], 'passed', { reachedBy: ['upstreamFailure: bogus kind!'] }),
    ]),
  );
  expect(r.reportFormat).toBe(4);
  expect(r.requirements.find((x) => x.id === 'A-001')?.reachedBy).toEqual(['clientWebhooks: declared', 'expireToken: wait']);
  expect(r.requirements.find((x) => x.id === 'A-002')).not.toHaveProperty('reachedBy');
  // the schema names the capabilities and the shape of a kind: a malformed entry is caught
  expect(reportSchemaErrors(r).join('\n')).toMatch(/reachedBy/);
});

test('429s a run waited out are summed into run.rateLimited and the summary line, and judge nothing', () => {
  const limited = (retries: number, waitedMs: number) => (t: TestRecord): TestRecord => ({ ...t, attempts: t.attempts.map((a) => ({ ...a, rateLimited: { retries, waitedMs } })) });
  const tests = [limited(2, 3000)(rec(['A-001'], 'passed')), limited(1, 500)(rec(['A-002'], 'passed')), rec(['A-101'], 'passed'), rec(['A-201'], 'passed')];
  const report = buildReport(input(tests));
  expect(report.run.rateLimited).toEqual({ retries: 3, waitedMs: 3500 });
  expect(report.verdict).toBe('conformant');
  expect(reportSchemaErrors(report)).toEqual([]);
  expect(summaryLine(report)).toBe('CONFORMANT  document 2/2 of 2 checkable  standard 1/1 of 1 checkable  profile 1/1 of 1 checkable  not testable 0  not run 1  rate-limited: 3 retries, 3.5 s waited');
  // a run the target never limited carries no such field, and its line says nothing of it
  const calm = buildReport(input(goodTests));
  expect(calm.run.rateLimited).toBeUndefined();
  expect(summaryLine(calm)).not.toContain('rate-limited');
});

test('coverage: per operation the statuses seen and the requirements judged on them, per requirement its operations and statuses', () => {
  const exchange = (operation: string, status: number) => ({ operation, request: { method: 'POST', url: `http://x.invalid/${operation}`, headers: {} }, response: { status, headers: {} } });
  const withEvidence = (t: TestRecord, evidence: ReturnType<typeof exchange>[]): TestRecord => ({ ...t, attempts: t.attempts.map((a) => ({ ...a, evidence })) });
  // one test judged on two requirements: its exchanges serve both, and are counted once
  const both = withEvidence(rec(['A-001', 'A-002'], 'passed'), [exchange('token', 200), exchange('send', 403)]);
  const send = withEvidence(rec(['A-101'], 'passed'), [exchange('send', 202), exchange('send', 403)]);
  const noOperation = withEvidence(rec(['A-201'], 'passed'), [{ request: { method: 'GET', url: 'http://x.invalid/', headers: {} }, response: { status: 200, headers: {} } } as ReturnType<typeof exchange>]);
  const report = buildReport(input([both, send, noOperation]));
  expect(report.coverage?.operations).toEqual([
    { operation: 'send', statuses: [{ status: 202, exchanges: 1, requirements: ['A-101'] }, { status: 403, exchanges: 2, requirements: ['A-001', 'A-002', 'A-101'] }] },
    { operation: 'token', statuses: [{ status: 200, exchanges: 1, requirements: ['A-001', 'A-002'] }] },
  ]);
  expect(report.coverage?.requirements).toEqual([
    { id: 'A-001', operations: [{ operation: 'send', statuses: [403] }, { operation: 'token', statuses: [200] }] },
    { id: 'A-002', operations: [{ operation: 'send', statuses: [403] }, { operation: 'token', statuses: [200] }] },
    { id: 'A-101', operations: [{ operation: 'send', statuses: [202, 403] }] },
  ]);
  expect(reportSchemaErrors(report)).toEqual([]);
  expect(summaryLine(report)).toContain('  exercised: 2 operations, 3 statuses');
});

// The report schema names the capabilities a requirement is reached by: each the config knows, in
// every kind a trigger may have, is one the report may carry.
test('report.schema.json takes every capability of the target config as reachedBy', () => {
  const schema = JSON.parse(readFileSync(REPORT_SCHEMA_PATH, 'utf8')) as { $defs: { reachedBy: { items: { pattern: string } } } };
  const pattern = new RegExp(schema.$defs.reachedBy.items.pattern);
  for (const capability of CAPABILITIES) for (const kind of ['request', 'control', 'wait', 'declared', 'loopback']) expect(reachedBy(capability, kind)).toMatch(pattern);
});
