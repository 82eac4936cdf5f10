// Where the time went (reports/timing.ts), as the HTML report and bench/certify-time.ts show it.
import { expect, test } from '@playwright/test';
import { buildReport } from '../../reports/build.ts';
import { renderHtml } from '../../reports/html.ts';
import { timingOf } from '../../reports/timing.ts';
import type { Attempt, Exchange } from '../../reports/types.ts';
import { catalogue, rec, req } from './records.ts';

const exchange = (durationMs: number): Exchange => ({ request: { method: 'POST', url: 'http://t.invalid/x', headers: {} }, response: { status: 200, headers: {}, durationMs } });
const attempt = (durationMs: number, http: number[], extra: Partial<Attempt> = {}): Attempt => ({ retry: 0, status: 'passed', durationMs, errors: [], evidence: http.map(exchange), ...extra });

function report() {
  return buildReport({
    ...reportInput(),
    catalogue: catalogue([req('A-001', 'document'), req('A-002', 'document'), req('A-003', 'document')]),
    tests: [
      // One test tagged with two requirements: listed under both, counted once.
      rec(['A-001', 'A-002'], 'passed', { title: 'waits for a callback', file: 'webhooks/w.spec.ts', line: 3, attempts: [attempt(300, [10])] }),
      rec(['A-002'], 'passed', { title: 'sends concurrently', file: 'send/s.spec.ts', line: 7, attempts: [attempt(40, [30, 30], { evidenceOmitted: 5 })] }),
      // A retried test: both attempts' time counts.
      rec(['A-003'], 'flaky', { title: 'flaky', file: 'send/s.spec.ts', line: 9, attempts: [attempt(20, [5], { status: 'failed' }), attempt(25, [5], { retry: 1 })] }),
    ],
  });
}

test('each test is counted once, in the area of its file, with every attempt and the HTTP time of its exchanges', () => {
  const timing = timingOf(report());
  expect(timing.all).toEqual({ tests: 3, testMs: 385, httpMs: 80 });
  expect(timing.areas).toEqual([
    { area: 'webhooks', tests: 1, testMs: 300, httpMs: 10 },
    { area: 'send', tests: 2, testMs: 85, httpMs: 70 },
  ]);
  expect(timing.omittedExchanges).toBe(5);
});

test('the slowest tests come first, each with the requirement it is first listed under', () => {
  const slowest = timingOf(report(), 2).slowest;
  expect(slowest.map((t) => [t.title, t.requirement, t.testMs, t.httpMs])).toEqual([
    ['waits for a callback', 'A-001', 300, 10],
    ['flaky', 'A-003', 45, 10],
  ]);
});

test('the HTML report says where the time went, per area and for the slowest tests, linked to their requirement', () => {
  const html = renderHtml(report());
  expect(html).toContain('<details class="coverage" id="timing"><summary>Where the time went: 0.4 s in 3 tests; their HTTP answers took 0.1 s, summed</summary>');
  expect(html).toContain('<tr><th>webhooks</th><td class="n">1</td><td class="n">0.3 s</td><td class="n">0.0 s</td></tr>');
  expect(html).toContain('<a href="#A-001">A-001</a> webhooks/w.spec.ts › waits for a callback');
  expect(html).toContain('5 exchanges left out of long attempts');
});

test('a report without tests has no timing section', () => {
  const empty = buildReport({ ...reportInput(), tests: [] });
  expect(renderHtml(empty)).not.toContain('id="timing"');
});

function reportInput() {
  return {
    catalogue: catalogue([req('A-001', 'document')]),
    catalogueName: 'spec/requirements.yaml',
    tests: [],
    target: { label: 'timing', baseUrl: null, profile: null },
    strict: false,
    harness: { name: 'messaging-conformance', version: '0.1.0', gitRevision: null, gitDirty: null },
    seed: null,
    startTime: new Date('2026-03-01T10:00:00Z'),
    durationMs: 1000,
    playwrightStatus: 'passed',
    errors: [],
  };
}
