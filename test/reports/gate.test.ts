// Exit codes, the summary line and the baseline file, on reports built in memory.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { loadBaseline, type Baseline } from '../../reports/baseline.ts';
import { buildReport, type BuildInput } from '../../reports/build.ts';
import { InputError } from '../../reports/errors.ts';
import { exitCodeFor, gateOf, summaryLine } from '../../reports/gate.ts';
import type { Report, TestRecord } from '../../reports/types.ts';
import { reportSchemaErrors } from '../../reports/schema.ts';
import { catalogue, rec, req } from './records.ts';
import { tempDir } from './run-fixture.ts';

function report(tests: TestRecord[], strict = false): Report {
  return buildReport(buildInput(tests, strict));
}

function buildInput(tests: TestRecord[], strict = false): BuildInput {
  return {
    catalogue: catalogue([req('A-001', 'document'), req('A-002', 'document'), req('A-003', 'document', { check: 'hook' }), req('A-101', 'standard'), req('A-201', 'profile')]),
    catalogueName: 'c.yaml',
    tests,
    target: { label: 't', baseUrl: null, profile: 'reference' },
    strict,
    harness: { name: 'h', version: '1', gitRevision: null, gitDirty: null },
    seed: null,
    startTime: new Date(),
    durationMs: 1,
    playwrightStatus: 'failed',
    errors: [],
  };
}

const baseline = (...ids: string[]): Baseline => ({ file: 'b.yaml', expectedFailures: ids.map((id) => ({ id, reason: 'known' })) });

const allGood = [rec(['A-001'], 'passed'), rec(['A-002'], 'passed'), rec(['A-003'], 'not-testable', { reason: 'no hook' }), rec(['A-101'], 'passed'), rec(['A-201'], 'passed')];
const twoFail = [rec(['A-001'], 'failed'), rec(['A-002'], 'passed'), rec(['A-101'], 'failed'), rec(['A-201'], 'failed')];

test('the summary line: verdict, counts per level, not testable, not run', () => {
  expect(summaryLine(report(allGood))).toBe('CONFORMANT  document 2/2 of 3 checkable  standard 1/1 of 1 checkable  profile 1/1 of 1 checkable  not testable 1  not run 0');
  // twoFail has no test of A-003: the run did not cover the suite, and says so
  expect(summaryLine(report(twoFail))).toBe('NOT CONFORMANT (partial: 1 requirement that applies had no test in this run)  document 1/2 of 3 checkable (1 fail)  standard 0/1 of 1 checkable (1 non-strict)  profile 0/1 of 1 checkable (1 fail)  not testable 0  not run 1');
});

test('each level counts what it checked against what it could check here: not rules for clients or unobservable ones, nor a profile the target does not declare', () => {
  const input = buildInput([rec(['A-001'], 'passed'), rec(['A-002'], 'passed'), rec(['A-003'], 'not-testable', { reason: 'no hook' }), rec(['A-101'], 'passed'), rec(['A-201'], 'passed')]);
  input.catalogue.requirements.push(req('A-004', 'document', { check: 'client-side', reason: 'a rule for clients' }), req('A-005', 'document', { check: 'not-checkable', reason: 'unobservable' }));
  expect(summaryLine(buildReport(input))).toMatch(/^CONFORMANT  document 2\/2 of 3 checkable  standard 1\/1 of 1 checkable  profile 1\/1 of 1 checkable  not testable 1  not run 2$/);
  const plain = buildReport({ ...input, target: { label: 't', baseUrl: null, profile: 'none' } });
  expect(summaryLine(plain)).toMatch(/  profile 0\/0 of 0 checkable  not testable 1  not run 3$/);
});

test('exit 0 when conformant, 1 when not, 2 on a harness error', () => {
  expect(exitCodeFor(report(allGood))).toBe(0);
  expect(exitCodeFor(report(twoFail))).toBe(1);
  expect(exitCodeFor(report([...allGood, rec(['NOPE-001'], 'passed')]))).toBe(2);
});

test('a non-strict fail passes the gate unless strict, in the report or at the gate', () => {
  const nonStrict = [rec(['A-001'], 'passed'), rec(['A-101'], 'failed')];
  expect(exitCodeFor(report(nonStrict))).toBe(0);
  expect(exitCodeFor(report(nonStrict), { strict: true })).toBe(1);
  expect(exitCodeFor(report(nonStrict, true))).toBe(1);
  expect(summaryLine(report(nonStrict), { strict: true })).toMatch(/^NOT CONFORMANT \(strict; partial: [^)]*\)  document 1\/1 of 3 checkable  standard 0\/1 of 1 checkable \(1 fail\)/);
});

test('a baseline turns listed failures into expected ones; an unlisted one is a regression', () => {
  const r = report(twoFail);
  expect(exitCodeFor(r, { baseline: baseline('A-001', 'A-201') })).toBe(0);
  expect(gateOf(r, { baseline: baseline('A-001') })).toMatchObject({ exitCode: 1, expected: ['A-001'], regressions: ['A-201'] });
  expect(summaryLine(r, { baseline: baseline('A-001') })).toMatch(/baseline: 1 expected, 1 new \(A-201\)$/);
});

test('a listed requirement that now passes is reported as fixed; an unknown ID is a gate error', () => {
  const r = report(twoFail);
  const gate = gateOf(r, { baseline: baseline('A-001', 'A-201', 'A-002') });
  expect(gate).toMatchObject({ exitCode: 0, fixed: ['A-002'] });
  expect(summaryLine(r, { baseline: baseline('A-001', 'A-201', 'A-002') })).toContain('1 fixed (A-002: remove from the baseline)');
  const unknown = gateOf(r, { baseline: baseline('A-001', 'A-201', 'ZZZ-999') });
  expect(unknown.exitCode).toBe(2);
  expect(unknown.errors[0]).toContain('ZZZ-999');
  // the summary never begins with CONFORMANT unless the exit code is 0
  expect(summaryLine(report(allGood), { baseline: baseline('ZZZ-999') })).toMatch(/^HARNESS ERROR  /);
});

test('partial and stopped runs: the head says so, and only a complete run without failure is CONFORMANT', () => {
  const filtered = buildReport({ ...buildInput(allGood), filters: ['grep @A-001'] });
  expect(filtered.verdict).toBe('partial');
  expect(exitCodeFor(filtered)).toBe(0);
  expect(summaryLine(filtered)).toMatch(/^PARTIAL \(grep @A-001\)  document 2\/2/);
  const failing = buildReport({ ...buildInput(twoFail), filters: ['shard 1/2'] });
  expect(failing.verdict).toBe('not conformant');
  expect(summaryLine(failing)).toMatch(/^NOT CONFORMANT \(partial: shard 1\/2\)  /);
  const stopped = buildReport({ ...buildInput([...allGood, rec(['A-002'], 'did-not-run')]), harnessStopped: 'send cap reached (500 sends; set sendCap to at least 1340)' });
  expect(stopped.verdict).toBe('harness error');
  expect(stopped.run.stop).toEqual({ by: 'harness', reason: 'send cap reached (500 sends; set sendCap to at least 1340)' });
  expect(exitCodeFor(stopped)).toBe(2);
  expect(summaryLine(stopped)).toMatch(/^HARNESS ERROR \(stopped: send cap reached \(500 sends; set sendCap to at least 1340\)\)  /);
  const maxed = buildReport({ ...buildInput([rec(['A-001'], 'failed'), rec(['A-002'], 'did-not-run'), rec(['A-003'], 'did-not-run'), rec(['A-101'], 'did-not-run'), rec(['A-201'], 'did-not-run')]), maxFailures: 1 });
  expect(maxed.run.stop).toEqual({ by: 'max-failures', reason: 'stopped after 1 failed tests (--max-failures 1)' });
  expect(maxed.verdict).toBe('not conformant');
  expect(summaryLine(maxed)).toMatch(/^NOT CONFORMANT \(partial: stopped after 1 failed tests \(--max-failures 1\)\)  /);
  const setup = buildReport({ ...buildInput([]), errors: ['PreflightError: nothing answers at http://127.0.0.1:9\n  answer: ECONNREFUSED'], setupFailed: true });
  expect(setup.run.stop).toEqual({ by: 'setup', reason: 'PreflightError: nothing answers at http://127.0.0.1:9' });
  expect(setup.run.errors).toEqual(['PreflightError: nothing answers at http://127.0.0.1:9\n  answer: ECONNREFUSED']);
  expect(summaryLine(setup)).toMatch(/^HARNESS ERROR \(stopped: PreflightError: nothing answers at http:\/\/127\.0\.0\.1:9\)  /);
  for (const r of [filtered, failing, stopped, maxed, setup]) expect(reportSchemaErrors(r)).toEqual([]);
});

test('a run the stop rule ended on a requirement failure seen again and again is not conformant and partial; on a cause no check judged, a harness error', () => {
  const reason = '10 tests in a row failed the same way (failed on A-001); every later test would too, so the run stopped: fix that cause and run again';
  // A-002's test failed on A-001, a requirement it is not tagged with: A-001 is judged by it and fails.
  const broken = [rec(['A-001'], 'failed'), rec(['A-002'], 'stopped', { failedOn: ['A-001'] }), rec(['A-101'], 'did-not-run'), rec(['A-201'], 'did-not-run')];
  const onFailure = buildReport({ ...buildInput(broken), harnessStopped: reason, harnessStoppedOn: ['A-001'] });
  expect(onFailure.verdict).toBe('not conformant');
  expect(onFailure.run.errors).toEqual([]);
  expect(exitCodeFor(onFailure)).toBe(1);
  expect(summaryLine(onFailure)).toMatch(/^NOT CONFORMANT \(partial: 10 tests in a row failed the same way \(failed on A-001\);/);
  // The same stop without requirements, or on a requirement that did not fail (a non-strict one):
  // the harness cannot place the stop, but the failure seen before it stands (not conformant, partial)...
  for (const on of [[], ['A-101']]) {
    const unjudged = buildReport({ ...buildInput(broken), harnessStopped: reason, harnessStoppedOn: on });
    expect(unjudged.verdict).toBe('not conformant');
    expect(exitCodeFor(unjudged)).toBe(1);
    expect(summaryLine(unjudged)).toMatch(/^NOT CONFORMANT \(partial: 10 tests in a row failed the same way/);
  }
  // ...and with no failure seen, the run is a harness error.
  const unplaced = [rec(['A-001'], 'stopped', { failedOn: ['A-101'] }), rec(['A-101'], 'did-not-run'), rec(['A-201'], 'did-not-run')];
  const nothingFailed = buildReport({ ...buildInput(unplaced), harnessStopped: reason, harnessStoppedOn: [] });
  expect(nothingFailed.verdict).toBe('harness error');
  expect(exitCodeFor(nothingFailed)).toBe(2);
  expect(reportSchemaErrors(onFailure)).toEqual([]);
});

test('baseline files: YAML and JSON load; bad ones fail with a message naming the problem', () => {
  const dir = tempDir();
  const write = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  expect(loadBaseline(write('ok.yaml', 'target: acme\nexpectedFailures:\n  - { id: SEND-004, reason: "ACME-1" }\n')).expectedFailures).toEqual([{ id: 'SEND-004', reason: 'ACME-1' }]);
  expect(loadBaseline(write('ok.json', '{"expectedFailures":[{"id":"SEND-004","reason":"x"}]}')).expectedFailures).toHaveLength(1);
  const cases: [string, string, RegExp][] = [
    ['nope.yaml', '', /cannot read|expected a mapping/],
    ['bad.yaml', 'expectedFailures: [\n', /not valid YAML or JSON/],
    ['list.yaml', '- SEND-004\n', /expected a mapping/],
    ['noreason.yaml', 'expectedFailures:\n  - { id: SEND-004 }\n', /SEND-004 needs a "reason"/],
    ['badid.yaml', 'expectedFailures:\n  - { id: send-4, reason: x }\n', /must be a requirement ID/],
    ['twice.yaml', 'expectedFailures:\n  - { id: SEND-004, reason: x }\n  - { id: SEND-004, reason: y }\n', /listed twice/],
    ['typo.yaml', 'expectedFailure:\n  - { id: SEND-004, reason: x }\n', /unknown key "expectedFailure"/],
  ];
  for (const [name, text, message] of cases) {
    const file = name === 'nope.yaml' ? join(dir, 'missing.yaml') : write(name, text);
    expect(() => loadBaseline(file), name).toThrow(InputError);
    expect(() => loadBaseline(file), name).toThrow(message);
  }
});
