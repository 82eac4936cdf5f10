// The verdict rules of INTERPRETING.md, one rule per test, on plain records (no Playwright run).
import { expect, test } from '@playwright/test';
import { verdictOf } from '../../reports/verdict.ts';
import { rec, req } from './records.ts';

const ctx = { strict: false, targetProfile: 'reference', catalogueProfile: 'reference' };

test('pass needs every tagged test to pass', () => {
  expect(verdictOf(req('A-001', 'document'), [rec(['A-001'], 'passed'), rec(['A-001'], 'passed')], ctx).verdict).toBe('pass');
});

test('a failed test makes a document-level requirement fail, with the failure as reason', () => {
  const v = verdictOf(req('A-001', 'document'), [rec(['A-001'], 'passed'), rec(['A-001'], 'failed')], ctx);
  expect(v.verdict).toBe('fail');
  expect(v.reasons).toEqual(['test of A-001 (failed): Error: A-001 broke']);
});

test('a standard-level failure is a non-strict fail, and a fail when strict', () => {
  const tests = [rec(['A-101'], 'failed')];
  expect(verdictOf(req('A-101', 'standard'), tests, ctx).verdict).toBe('non-strict fail');
  expect(verdictOf(req('A-101', 'standard'), tests, { ...ctx, strict: true }).verdict).toBe('fail');
});

test('a profile-level failure fails when the target declares the profile', () => {
  expect(verdictOf(req('A-201', 'profile'), [rec(['A-201'], 'failed')], ctx).verdict).toBe('fail');
});

test('a profile-level requirement is not run for a target without the profile, whatever its tests did', () => {
  for (const targetProfile of [null, 'acme']) {
    const v = verdictOf(req('A-201', 'profile'), [rec(['A-201'], 'failed')], { ...ctx, targetProfile });
    expect(v.verdict).toBe('not run');
    expect(v.reasons[0]).toContain('profile-level requirement of profile "reference"');
  }
});

test('a flaky test counts as a failure, with a note', () => {
  const v = verdictOf(req('A-001', 'document'), [rec(['A-001'], 'flaky')], ctx);
  expect(v.verdict).toBe('fail');
  expect(v.notes.join()).toContain('passed only on retry (flaky)');
});

test('not testable here when every tagged test was skipped as not-testable, with the reasons', () => {
  const v = verdictOf(req('A-001', 'document', { check: 'fixture' }), [rec(['A-001'], 'not-testable', { reason: 'needs secondClient' })], ctx);
  expect(v).toEqual({ verdict: 'not testable here', reasons: ['needs secondClient'], notes: [] });
});

test('a requirement only partly checked is not testable here, never pass', () => {
  const v = verdictOf(req('A-001', 'document'), [rec(['A-001'], 'passed'), rec(['A-001'], 'not-testable', { reason: 'needs hook inbound' })], ctx);
  expect(v.verdict).toBe('not testable here');
  expect(v.notes[0]).toContain('1 of 2 tagged tests passed');
});

test('not run when no tagged test ran', () => {
  const v = verdictOf(req('A-001', 'document'), [], ctx);
  expect(v.verdict).toBe('not run');
  expect(v.reasons[0]).toContain('no test tagged @A-001');
});

test('client-side and not-checkable requirements are not run and show their reason', () => {
  for (const check of ['client-side', 'not-checkable'] as const) {
    const v = verdictOf(req('A-001', 'document', { check, reason: 'why not' }), [], ctx);
    expect(v.verdict).toBe('not run');
    expect(v.reasons).toEqual(['why not']);
  }
});

test('plain skips and interrupted tests are not run, never pass', () => {
  const v = verdictOf(req('A-001', 'document'), [rec(['A-001'], 'skipped', { reason: 'test.fixme()' }), rec(['A-001'], 'did-not-run')], ctx);
  expect(v.verdict).toBe('not run');
  expect(v.reasons).toEqual(['skipped: test.fixme()', 'did not run: the run ended before it']);
});
