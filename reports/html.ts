// The report a person reads: one self-contained HTML file (inline CSS and JS, no network),
// the verdict and counts per level on top, then the requirement matrix grouped by area with
// each requirement expandable to its tests and evidence. Works without JS; prints expanded.
import { snippetForReason } from '../harness/config-snippets.ts';
import { html, joined, slug, trusted, type Html } from './escape.ts';
import { checkableOf, gateOf, summaryLine, type GateOptions } from './gate.ts';
import { nextSteps } from './next-steps.ts';
import { timingOf } from './timing.ts';
import type { Attempt, Coverage, Exchange, Report, RequirementResult, TestRecord, Verdict } from './types.ts';
import { LEVELS, VERDICTS } from './types.ts';

const CSS = trusted(`
:root{--pass:#1a7f37;--fail:#cf222e;--nsf:#9a6700;--nt:#0969da;--nr:#6e7781;--line:#d0d7de;font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
body{margin:0 auto;max-width:72rem;padding:1.5rem;color:#1f2328;line-height:1.4}
h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.15rem;margin:1.6rem 0 .4rem;border-bottom:1px solid var(--line)}
.banner{padding:.8rem 1rem;border-radius:6px;color:#fff;font-weight:600;font-size:1.2rem}
.banner.conformant{background:var(--pass)}.banner.not-conformant{background:var(--fail)}.banner.harness-error{background:#8250df}.banner.partial{background:#9a6700}
.summary{font-family:ui-monospace,monospace;margin:.5rem 0;white-space:pre-wrap}
table{border-collapse:collapse;margin:.6rem 0}th,td{border:1px solid var(--line);padding:.25rem .6rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:.6rem 0}dl.meta dt{font-weight:600}dl.meta dd{margin:0;word-break:break-all}
.v{display:inline-block;min-width:7.5rem;padding:0 .4rem;border-radius:4px;color:#fff;font-size:.85rem;text-align:center}
.v-pass{background:var(--pass)}.v-fail{background:var(--fail)}.v-non-strict-fail{background:var(--nsf)}.v-not-testable-here{background:var(--nt)}.v-not-run{background:var(--nr)}
details.req{border:1px solid var(--line);border-radius:6px;margin:.3rem 0;padding:.2rem .6rem}
details.req>summary{cursor:pointer;list-style-position:outside}
.id{font-family:ui-monospace,monospace;font-weight:600}.lvl{color:#57606a;font-size:.85rem}
.test{border-left:3px solid var(--line);margin:.5rem 0;padding-left:.6rem}
.exchange{margin:.4rem 0 .8rem}.pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(20rem,1fr));gap:.5rem}.pair pre{margin:.1rem 0}
pre{background:#f6f8fa;padding:.5rem;overflow:auto;max-height:30rem;white-space:pre-wrap;word-break:break-all;font-size:.8rem}
.errors li{color:var(--fail)}.controls{margin:.8rem 0}.controls button{margin-right:.4rem}
.hidden{display:none}
@media print{
  .controls{display:none}
  body{max-width:none;padding:0}
  details.req{break-inside:avoid-page}
  details::details-content{content-visibility:visible;display:block}
  pre{max-height:none;overflow:visible}
  .banner,.v{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}`);

// Expand/collapse and a filter; printing opens every <details> (beforeprint) because older
// engines cannot show closed <details> content from CSS alone.
const JS = trusted(`
(function(){
  var all=function(){return document.querySelectorAll('details.req')};
  var opened=[];
  document.getElementById('expand').onclick=function(){all().forEach(function(d){d.open=true})};
  document.getElementById('collapse').onclick=function(){all().forEach(function(d){d.open=false})};
  document.getElementById('only-problems').onchange=function(e){
    var on=e.target.checked;
    all().forEach(function(d){d.classList.toggle('hidden',on&&d.dataset.verdict==='pass')});
  };
  window.addEventListener('beforeprint',function(){opened=[];all().forEach(function(d){if(!d.open){opened.push(d);d.open=true}})});
  window.addEventListener('afterprint',function(){opened.forEach(function(d){d.open=false})});
  if(location.hash){var t=document.getElementById(location.hash.slice(1));if(t&&t.tagName==='DETAILS')t.open=true}
})();`);

const verdictClass = (v: Verdict): string => `v v-${v.replace(/ /g, '-')}`;
const json = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/** Headers and body as an HTTP message reads: one header per line, a blank line, the body (text: the tag escapes it where it goes). */
function message(headers: Record<string, unknown> | undefined, body: unknown, firstLine?: string): string {
  const lines = Object.entries(headers ?? {}).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : String(v)}`);
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body, null, 2);
  return [...(firstLine ? [firstLine] : []), ...lines, ...(text ? ['', text] : [])].join('\n');
}

function exchangeHtml(e: Exchange, i: number): Html {
  const took = e.response && typeof e.response.durationMs === 'number' ? ` (${Math.round(e.response.durationMs)} ms)` : '';
  const status = e.response && html` → <strong>${e.response.status}</strong>`;
  const response = e.response && html`<div><div class="lvl">Response${took}</div><pre>${message(e.response.headers, e.response.body, `status ${e.response.status}`)}</pre></div>`;
  const violations = Boolean(e.violations?.length) && html`<div>Schema violations</div><pre>${json(e.violations)}</pre>`;
  const error = e.error !== undefined && html`<div>Transport error</div><pre>${json(e.error)}</pre>`;
  return html`<div class="exchange"><div class="xhead"><strong>Exchange ${i + 1}</strong>: <code>${e.request.method} ${e.request.url}</code>${status}</div><div class="pair"><div><div class="lvl">Request</div><pre>${message(e.request.headers, e.request.body)}</pre></div>${response}</div>${violations}${error}</div>`;
}

function attemptHtml(a: Attempt, many: boolean): Html {
  const head = many && html`<div>Attempt ${a.retry + 1}: ${a.status}, ${a.durationMs} ms</div>`;
  const errors = a.errors.map((e) => html`<pre class="error">${e}</pre>`);
  const evidence = a.evidence.length ? a.evidence.map(exchangeHtml) : html`<div class="lvl">No evidence attached.</div>`;
  const omitted = Boolean(a.evidenceOmitted) && html`<div class="lvl">${a.evidenceOmitted} further exchanges of this attempt were left out (the first and last are kept).</div>`;
  return html`${head}${errors}${evidence}${omitted}`;
}

function testHtml(t: TestRecord): Html {
  const where = `${t.file}:${t.line}${t.project ? ` [${t.project}]` : ''}`;
  const failedOn = t.failedOn ? ` — failed on ${t.failedOn.join(', ')}` : '';
  const reason = t.reason ? ` — ${t.reason}` : failedOn;
  const attempts = t.attempts.map((a) => attemptHtml(a, t.attempts.length > 1));
  return html`<div class="test"><div><strong>${t.titlePath.join(' › ') || t.title}</strong> <span class="lvl">${where}</span></div><div>Outcome: ${t.outcome}${reason}</div>${attempts}</div>`;
}

/** For a requirement not testable here: the config snippet that would reach it, for each reason a config field gives. */
function reachHtml(r: RequirementResult): Html[] {
  if (r.verdict !== 'not testable here') return [];
  const snippets = [...new Set(r.reasons.map(snippetForReason).filter((x): x is string[] => x !== undefined).map((x) => x.join('\n')))];
  return snippets.map((text) => html`<div>To reach it, in the target config:</div><pre class="snippet">${text}</pre>`);
}

function requirementHtml(r: RequirementResult, coverage: Coverage['requirements']): Html {
  const list = (title: string, xs: string[]) => xs.length > 0 && html`<div>${title}</div><ul>${xs.map((x) => html`<li>${x}</li>`)}</ul>`;
  const judgedOn = coverage.find((c) => c.id === r.id)?.operations.map((o) => `${o.operation} ${o.statuses.join(', ')}`) ?? [];
  const reachedBy = r.reachedBy && html`<dt>Reached by</dt><dd>${r.reachedBy.join(', ')}</dd>`;
  const judged = judgedOn.length > 0 && html`<dt>Judged on</dt><dd>${judgedOn.join('; ')}</dd>`;
  const tests = r.tests.length ? html`<div>Tests (${r.tests.length})</div>${r.tests.map(testHtml)}` : html`<div class="lvl">No test in this run.</div>`;
  return html`<details class="req" id="${slug(r.id)}" data-verdict="${r.verdict}">`
    .concat(html`<summary><span class="${verdictClass(r.verdict)}">${r.verdict}</span> <span class="id">${r.id}</span> <span class="lvl">${r.level}</span> ${r.statement}</summary>`)
    .concat(html`<dl class="meta"><dt>Source</dt><dd>${r.source}</dd><dt>Check</dt><dd>${r.check}</dd>${reachedBy}${judged}</dl>`)
    .concat(html`${list('Reasons', r.reasons)}${reachHtml(r)}${list('Notes', r.notes)}${tests}</details>`);
}

/** Per operation, the statuses the run saw and the requirements whose tests saw them. */
function coverageTable(coverage: Coverage | undefined): Html | '' {
  if (!coverage || coverage.operations.length === 0) return '';
  const rows = coverage.operations.flatMap((o) =>
    o.statuses.map((s, i) => html`<tr>${i === 0 && html`<th rowspan="${o.statuses.length}">${o.operation}</th>`}<td class="n">${s.status}</td><td class="n">${s.exchanges}</td><td>${joined(s.requirements.map((id) => html`<a href="#${slug(id)}">${id}</a>`), ' ')}</td></tr>`),
  );
  return html`<details class="coverage" id="coverage"><summary>What the run exercised: ${coverage.operations.length} operations, ${coverage.operations.reduce((n, o) => n + o.statuses.length, 0)} response statuses</summary><table class="counts"><tr><th>Operation</th><th>Status</th><th>Exchanges</th><th>Requirements judged on it</th></tr>${rows}</table></details>`;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * Where the tests' time went (reports/timing.ts): per area, then the slowest tests. Time beyond
 * the HTTP answers is waiting for callbacks, quiet periods and the harness's own work.
 */
function timingTable(report: Report): Html | '' {
  const timing = timingOf(report);
  if (timing.all.tests === 0) return '';
  const cells = (testMs: number, httpMs: number) => html`<td class="n">${seconds(testMs)}</td><td class="n">${seconds(httpMs)}</td>`;
  const areas = timing.areas.map((a) => html`<tr><th>${a.area}</th><td class="n">${a.tests}</td>${cells(a.testMs, a.httpMs)}</tr>`);
  const slowest = timing.slowest.map((t) => html`<tr><td><a href="#${slug(t.requirement)}">${t.requirement}</a> ${t.file} › ${t.title}</td>${cells(t.testMs, t.httpMs)}</tr>`);
  const omitted = timing.omittedExchanges > 0 ? ` ${timing.omittedExchanges} exchanges left out of long attempts' evidence are not counted.` : '';
  return html`<details class="coverage" id="timing"><summary>Where the time went: ${seconds(timing.all.testMs)} in ${timing.all.tests} tests; their HTTP answers took ${seconds(timing.all.httpMs)}, summed</summary>`
    .concat(html`<p class="lvl">HTTP sums the response times of every request, so a test that sends concurrently can show more than its own time; the rest of a test's time is waiting for callbacks, quiet periods and the harness's own work.${omitted}</p>`)
    .concat(html`<table class="counts"><tr><th>Area</th><th>Tests</th><th>Time</th><th>HTTP</th></tr>${areas}<tr><th>all</th><td class="n">${timing.all.tests}</td>${cells(timing.all.testMs, timing.all.httpMs)}</tr></table>`)
    .concat(html`<table class="counts"><tr><th>Slowest tests</th><th>Time</th><th>HTTP</th></tr>${slowest}</table></details>`);
}

function countsTable(report: Report): Html {
  const head = html`<tr><th>Level</th><th>Total</th><th>checkable</th><th>pass</th><th>fail</th><th>non-strict fail</th><th>not testable here</th><th>not run</th></tr>`;
  const rows = LEVELS.map((l) => {
    const c = report.counts[l];
    return html`<tr><th>${l}</th>${[c.total, checkableOf(report, l), c.pass, c.fail, c.nonStrictFail, c.notTestable, c.notRun].map((n) => html`<td class="n">${n}</td>`)}</tr>`;
  });
  return html`<table class="counts">${head}${rows}</table>`;
}

export function renderHtml(report: Report, gate: GateOptions = {}): string {
  const t = report.target;
  const title = `Conformance report: ${t.label}, interface ${report.interface.version}`;
  const meta: [string, string][] = [
    ['Target', `${t.label}${t.baseUrl ? ` (${t.baseUrl})` : ''}`],
    ['Declared profile', t.profile ?? 'none'],
    ['Interface version', `${report.interface.version} (${report.interface.catalogue})`],
    ['Harness', `${report.harness.name} ${report.harness.version}, revision ${report.harness.gitRevision ?? 'unknown'}${report.harness.gitDirty ? ' (uncommitted changes)' : ''}`],
    ['Started', report.run.startTime],
    ['Duration', seconds(report.run.durationMs)],
    ['Seed', report.run.seed ?? 'none recorded'],
    ['Strict', report.run.strict ? 'yes: standard-level failures are failures' : 'no: standard-level failures are non-strict fails'],
  ];
  const errors = report.run.errors.length > 0 && html`<h2>Harness errors</h2><p>This run cannot certify anything until these are fixed.</p><ul class="errors">${report.run.errors.map((e) => html`<li>${e}</li>`)}</ul>`;
  // What to do next comes first: the failed requirements, then the not-testable ones with what
  // would reach them; every other requirement follows, by area. Each requirement is shown once.
  const steps = nextSteps(report, gateOf(report, gate), (gate.baseline ?? null) !== null);
  const coverage = report.coverage?.requirements ?? [];
  const shownAbove = new Set([...steps.failed.map((f) => f.requirement.id), ...steps.notTestable.map((r) => r.id)]);
  const firsts = [
    steps.failed.length > 0 && html`<section class="next" id="failed"><h2>Failed (${steps.failed.length})</h2>${steps.failed.map((f) => requirementHtml(f.requirement, coverage))}</section>`,
    steps.notTestable.length > 0 && html`<section class="next" id="not-testable"><h2>Not testable here (${steps.notTestable.length}), each with what would reach it</h2>${steps.notTestable.map((r) => requirementHtml(r, coverage))}</section>`,
  ].filter((x): x is Html => x !== false);
  const areas = report.areas.flatMap((a) => {
    const reqs = report.requirements.filter((r) => r.area === a.id);
    if (reqs.length === 0) return [];
    const tally = VERDICTS.map((v) => [v, reqs.filter((r) => r.verdict === v).length] as const).filter(([, n]) => n > 0).map(([v, n]) => `${n} ${v}`).join(', ');
    const above = reqs.filter((r) => shownAbove.has(r.id));
    const aboveLine = above.length > 0 && html`<div class="lvl">Shown above: ${joined(above.map((r) => html`<a href="#${slug(r.id)}">${r.id}</a> ${r.verdict}`), ', ')}</div>`;
    return [html`<section class="area" id="area-${slug(a.id)}"><h2>${a.title}${a.sections && html` <span class="lvl">(sections ${a.sections})</span>`}</h2><div class="lvl">${tally}</div>${aboveLine}${reqs.filter((r) => !shownAbove.has(r.id)).map((r) => requirementHtml(r, coverage))}</section>`];
  });
  const partial = report.run.partial ?? [];
  const partialLine = partial.length > 0 && html`<p class="partial"><strong>Partial run, not a certificate:</strong> ${partial.join('; ')}.${report.run.shard ? ' The certificate is the report merged from every shard.' : ''}</p>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${CSS}</style></head>
<body>
<header>
<h1>${title}</h1>
<div class="banner ${report.verdict.replace(/ /g, '-')}" id="verdict">${report.verdict.toUpperCase()}</div>
${partialLine}
<div class="summary" id="summary">${summaryLine(report, gate)}</div>
${countsTable(report)}
${coverageTable(report.coverage)}
${timingTable(report)}
<dl class="meta">${meta.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
${errors}
</header>
<div class="controls"><button type="button" id="expand">Expand all</button><button type="button" id="collapse">Collapse all</button>
<label><input type="checkbox" id="only-problems"> Hide passing requirements</label></div>
<main>${joined(firsts, '\n')}${shownAbove.size > 0 && html`
<h2 id="by-area">Every other requirement, by area</h2>`}
${joined(areas, '\n')}</main>
<footer class="lvl"><p>Verdicts are defined in INTERPRETING.md of the harness. Evidence is redacted: credentials appear as [redacted].</p></footer>
<script>${JS}</script>
</body></html>
`.text;
}
