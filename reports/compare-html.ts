// The side-by-side page: requirement × implementation, one verdict per cell, as Autobahn's
// index compares implementations. Pure: reports in, HTML out.
import { html, joined, slug, trusted, type Html } from './escape.ts';
import type { Report, Verdict } from './types.ts';
import { LEVELS } from './types.ts';

export interface NamedReport {
  /** Column heading: the target label, made unique by the caller. */
  name: string;
  report: Report;
}

const CSS = trusted(`
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#1f2328}
table{border-collapse:collapse}th,td{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa;position:sticky;top:0}td.stmt{max-width:32rem;font-size:.85rem}
td.v{text-align:center;color:#fff;font-size:.85rem;white-space:nowrap}
.v-pass{background:#1a7f37}.v-fail{background:#cf222e}.v-non-strict-fail{background:#9a6700}.v-not-testable-here{background:#0969da}.v-not-run{background:#6e7781}.v-absent{background:#fff;color:#6e7781}
tr.area th{background:#eaeef2;text-align:left}.id{font-family:ui-monospace,monospace;white-space:nowrap}
.warn{color:#9a6700;font-weight:600}
@media print{th{position:static}td.v{-webkit-print-color-adjust:exact;print-color-adjust:exact}}`);

const cls = (v: Verdict | 'absent'): string => `v v-${v.replace(/ /g, '-')}`;

export function renderCompare(reports: readonly NamedReport[]): string {
  const versions = [...new Set(reports.map((r) => r.report.interface.version))];
  // rows: every requirement any report lists, in the order the first report that has it lists it
  const rows = new Map<string, { area: string; level: string; statement: string }>();
  const areaTitles = new Map<string, string>();
  for (const { report } of reports) {
    for (const a of report.areas) if (!areaTitles.has(a.id)) areaTitles.set(a.id, a.title);
    for (const r of report.requirements) if (!rows.has(r.id)) rows.set(r.id, { area: r.area, level: r.level, statement: r.statement });
  }
  const verdicts = reports.map(({ report }) => new Map(report.requirements.map((r) => [r.id, r])));

  const head = html`<tr><th>Requirement</th><th>Level</th><th>Statement</th>${reports.map((r) => html`<th>${r.name}</th>`)}</tr>`;
  const overall = html`<tr><th colspan="3">Run verdict</th>${reports.map((r) => html`<td>${r.report.verdict}</td>`)}</tr>${LEVELS.map(
    (l) => html`<tr><th colspan="3">${l}: pass / checked</th>${reports.map((r) => {
      const c = r.report.counts[l];
      return html`<td>${c.pass} / ${c.pass + c.fail + c.nonStrictFail}</td>`;
    })}</tr>`,
  )}<tr><th colspan="3">Interface · harness · started</th>${reports.map((r) => html`<td>${`${r.report.interface.version} · ${r.report.harness.version} · ${r.report.run.startTime}`}</td>`)}</tr>`;

  const body: Html[] = [];
  let area = '';
  for (const [id, row] of rows) {
    if (row.area !== area) {
      area = row.area;
      body.push(html`<tr class="area"><th colspan="${3 + reports.length}">${areaTitles.get(area) ?? area}</th></tr>`);
    }
    const cells = verdicts.map((m) => {
      const r = m.get(id);
      if (!r) return html`<td class="${cls('absent')}">absent</td>`;
      const why = [...r.reasons, ...r.notes].join('\n');
      return html`<td class="${cls(r.verdict)}" title="${why}">${r.verdict}</td>`;
    });
    body.push(html`<tr id="${slug(id)}"><td class="id">${id}</td><td>${row.level}</td><td class="stmt">${row.statement}</td>${cells}</tr>`);
  }
  const warn = versions.length > 1 && html`<p class="warn">These reports certify different interface versions (${versions.join(', ')}); rows may not mean the same thing.</p>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Conformance comparison</title><style>${CSS}</style></head>
<body><h1>Conformance comparison: interface ${versions.join(', ')}</h1>${warn}
<p>One column per implementation; hover a cell for the reasons. Verdicts are defined in INTERPRETING.md.</p>
<table><thead>${head}</thead><tbody>${overall}${joined(body, '\n')}</tbody></table>
</body></html>
`.text;
}
