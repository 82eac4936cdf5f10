// The requirement a failed check judged reaches the report as data: recorded by the check
// (harness/judgement.ts), written on the attempt, read by reports/attribution.ts.
import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { judge, recordLabel, requirementsOfLabel, startRecording } from '../../harness/judgement.ts';
import { SendGuardError } from '../../harness/send-guard.ts';
import { CallbackAuditFailed } from '../../harness/callback-audit.ts';
import { ROOT, runNode, tempDir, verdicts } from '../reports/run-fixture.ts';
import { existsSync, readFileSync } from 'node:fs';
import type { Report } from '../../reports/types.ts';

test('a label names its requirements at its start, nowhere else', () => {
  expect(requirementsOfLabel('SEND-001: a missing key')).toEqual(['SEND-001']);
  expect(requirementsOfLabel('IDEM-001, SEND-008 answer as the model says')).toEqual(['IDEM-001', 'SEND-008']);
  expect(requirementsOfLabel('the answer, see SEND-001')).toEqual([]);
  expect(requirementsOfLabel(undefined)).toEqual([]);
});

test('only the checks whose failure ended the test are judged', () => {
  startRecording();
  const stop = new SendGuardError('send cap reached (5 sends for this worker; raise sendCap in the target config)', true);
  new SendGuardError('refused, then caught by the test', false); // recorded, but never among the test's errors
  recordLabel('SEND-004: sendFrom not owned');
  recordLabel('SEND-004: sendFrom not owned, again');
  recordLabel('no requirement here');
  expect(
    judge([
      { message: `SendGuardError: ${stop.message}` },
      { message: 'Error: SEND-004: sendFrom not owned, again\n\nExpected: 403\nReceived: 202' },
      { message: 'Error: no requirement here\n\nExpected: 1' },
      { message: 'TimeoutError: waited too long' },
    ]).annotations,
  ).toEqual([
    { type: 'harness-stop', description: 'SendGuardError: send cap reached (5 sends for this worker; raise sendCap in the target config)' },
    { type: 'failed-on', description: 'SEND-004' },
  ]);
  startRecording();
  expect(judge([{ message: `SendGuardError: ${stop.message}` }]).annotations).toEqual([]);
});

test("a failure found after the test's own checks (the callback audit) is marked so, alone; beside any other failure it is not", () => {
  startRecording();
  const audit = new CallbackAuditFailed([{ id: 'WH-102', what: 'carries webhook-timestamp in Unix seconds', problems: ['a fractional timestamp'] }]);
  expect(judge([{ message: `CallbackAuditFailed: ${audit.message}` }]).annotations).toEqual([
    { type: 'failed-on', description: 'WH-102' },
    { type: 'failed-after-checks', description: 'true' },
  ]);
  recordLabel('SEND-004: sendFrom not owned');
  expect(judge([{ message: `CallbackAuditFailed: ${audit.message}` }, { message: 'Error: SEND-004: sendFrom not owned' }]).annotations.map((a) => a.type)).toEqual(['failed-on', 'failed-on']);
  expect(judge([{ message: `CallbackAuditFailed: ${audit.message}` }, { message: 'TimeoutError: waited too long' }]).annotations.map((a) => a.type)).toEqual(['failed-on']);
});

test('in a real run, each failure counts against what its check judged', async () => {
  test.setTimeout(240_000); // a child run: slow on a loaded machine
  const out = tempDir();
  const result = await runNode([join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', join(ROOT, 'test/harness/judged-suite/playwright.config.ts')], { FIXTURE_OUT: out });
  const file = join(out, 'report.json');
  expect(existsSync(file), result.stdout + result.stderr).toBe(true);
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  expect(verdicts(report)).toMatchObject({
    'FIX-002': 'fail',
    'FIX-001': 'not run', // stopped by FIX-002's failure
    'FIX-006': 'fail',
    'FIX-008': 'fail',
    'FIX-101': 'not run', // the property run for FIX-101 failed on the check that names FIX-102
    'FIX-102': 'non-strict fail', // standard level
    'FIX-201': 'not run', // the send cap stopped it: a harness error, not a failure
    'FIX-202': 'fail',
    'FIX-003': 'fail', // an error no check recorded counts against every tag
  });
  const fix001 = report.requirements.find((r) => r.id === 'FIX-001')!;
  expect(fix001.tests[0]).toMatchObject({ outcome: 'stopped', failedOn: ['FIX-002'] });
  expect(fix001.tests[0]?.attempts[0]?.failedOn).toEqual(['FIX-002']);
  // The cap stopped the run after requirements had failed: the failures stand (not conformant, and partial), and the stop is recorded.
  expect(report.verdict).toBe('not conformant');
  expect(report.run.errors.join('\n')).toContain('was stopped by the harness: SendGuardError: send cap reached (5 sends');
  // the cap stopped the run: the test after it never started, and the summary says why
  expect(report.run.stop).toEqual({ by: 'harness', reason: 'SendGuardError: send cap reached (5 sends; raise sendCap in the target config)' });
  const after = report.requirements.find((r) => r.id === 'FIX-102')!.tests.find((t) => t.title.startsWith('a test after'));
  expect(after).toMatchObject({ outcome: 'did-not-run', reason: 'SendGuardError: send cap reached (5 sends; raise sendCap in the target config)' });
  expect(result.stdout.trimEnd().split('\n').at(-1)).toMatch(/^NOT CONFORMANT \(partial: SendGuardError: send cap reached \(5 sends; raise sendCap in the target config\);/);
  expect(result.code).toBe(1);
});
