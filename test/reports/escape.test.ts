import { expect, test } from '@playwright/test';
import { html, joined, trusted, Html } from '../../reports/escape.ts';
import { renderHtml } from '../../reports/html.ts';
import { renderCompare } from '../../reports/compare-html.ts';
import { sampleReport } from './sample-report.ts';

// The report pages are written with the `html` tag: a value is escaped unless it is markup the
// tag made, so a target's body cannot add markup to a report by construction.

test('the html tag escapes every value it interpolates, keeps its own markup, and leaves out null, undefined and false', () => {
  const hostile = `<script>alert("x")</script>&'`;
  expect(html`<td>${hostile}</td>`.text).toBe('<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</td>');
  expect(html`<tr>${html`<td>${'a<b'}</td>`}</tr>`.text).toBe('<tr><td>a&lt;b</td></tr>');
  expect(html`<ul>${['<1>', html`<li>2</li>`]}</ul>`.text).toBe('<ul>&lt;1&gt;<li>2</li></ul>');
  expect(html`${null}${undefined}${false}${0}${''}`.text).toBe('0');
  expect(joined([html`<a>1</a>`, html`<a>2</a>`], ' & ').text).toBe('<a>1</a> &amp; <a>2</a>');
  expect(trusted('<style>b{}</style>')).toBeInstanceOf(Html);
  // a plain string that looks like markup is still text
  expect(html`${'<b>bold</b>'}`.text).toBe('&lt;b&gt;bold&lt;/b&gt;');
});

test('a response body, a header, a target label and a reason with markup in them reach both pages as text', () => {
  const marker = '<img src=x onerror=alert(1)>';
  const report = sampleReport(`label ${marker}`, ['A-001']);
  const requirement = report.requirements.find((r) => r.id === 'A-001')!;
  requirement.reasons = [`reason ${marker}`];
  const attempt = requirement.tests[0]!.attempts[0]!;
  attempt.errors = [`error ${marker}`];
  attempt.evidence = [{ operation: 'send', request: { method: 'POST', url: '/x', headers: { 'x-h': marker } }, response: { status: 400, headers: {}, body: { message: marker } } }];
  for (const page of [renderHtml(report), renderCompare([{ name: `col ${marker}`, report }])]) {
    expect(page).not.toContain(marker);
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
  }
});
