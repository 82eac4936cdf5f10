// npx tsx bench/certify-time.ts [--report FILE] [-- certify flags…]
//
// Where a certification run's time goes. Runs `certify` (with any flags after `--`; none: the
// bundled reference) into a temporary report directory, or reads an existing report.json
// (--report), and prints: the wall time and the CPU time of every process of the run (Linux);
// the part spent before and after the tests (starting the reference, preflight, writing the
// report); the tests' own time split into time waiting on the
// target's HTTP answers and everything else (waiting for webhooks, sleeps, the harness's own
// CPU); the same per area; and the slowest tests. Targets (issue 15.6) are judged on these
// figures, not by timed tests.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface Exchange { response?: { durationMs?: number } }
interface Attempt { durationMs: number; evidence: Exchange[]; evidenceOmitted?: number }
interface Test { title: string; file: string; attempts: Attempt[] }
interface Report { run: { durationMs: number }; requirements: Array<{ area: string; tests: Test[] }> }

const { values, positionals } = parseArgs({ options: { report: { type: 'string' }, top: { type: 'string', default: '15' } }, allowPositionals: true });

/**
 * CPU seconds (user + system) of this process's children that have been waited for, from
 * /proc/self/stat (cutime, cstime): certify waits for Playwright and the reference, Playwright for
 * its workers, so the difference across the run is every process of it. Null off Linux. Less
 * noisy than wall time on a shared machine: compare changes by it.
 */
function childrenCpuSeconds(): number | null {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
    const ticks = Number(fields[13]) + Number(fields[14]);
    return Number.isFinite(ticks) ? ticks / CLOCK_TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}
/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

let wallMs: number | null = null;
let cpuSeconds: number | null = null;
let reportFile = values.report;
if (reportFile === undefined) {
  const out = mkdtempSync(join(tmpdir(), 'bench-certify-'));
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'cli/certify.ts', '--out', out, ...positionals], { stdio: ['ignore', 'ignore', 'inherit'] });
  wallMs = performance.now() - started;
  const cpuAfter = childrenCpuSeconds();
  if (cpuBefore !== null && cpuAfter !== null) cpuSeconds = cpuAfter - cpuBefore;
  if (run.status !== 0) console.error(`certify exited with ${run.status}; the figures below are of that run`);
  reportFile = join(out, 'report.json');
}
const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;

// A test tagged with several requirements appears under each: count it once, under its file's area.
const tests = new Map<string, { test: Test; area: string }>();
for (const requirement of report.requirements) {
  for (const test of requirement.tests) tests.set(`${test.file}\u0000${test.title}`, { test, area: test.file.split('/')[0] ?? requirement.area });
}

interface Split { tests: number; totalMs: number; httpMs: number }
const split = (): Split => ({ tests: 0, totalMs: 0, httpMs: 0 });
const all = split();
const areas = new Map<string, Split>();
const rows: Array<{ title: string; totalMs: number; httpMs: number }> = [];
let omitted = 0;
for (const { test, area } of tests.values()) {
  const totalMs = test.attempts.reduce((sum, a) => sum + a.durationMs, 0);
  const httpMs = test.attempts.reduce((sum, a) => sum + a.evidence.reduce((s, e) => s + (e.response?.durationMs ?? 0), 0), 0);
  omitted += test.attempts.reduce((sum, a) => sum + (a.evidenceOmitted ?? 0), 0);
  for (const s of [all, areas.get(area) ?? areas.set(area, split()).get(area)!]) {
    s.tests += 1;
    s.totalMs += totalMs;
    s.httpMs += httpMs;
  }
  rows.push({ title: `${test.file} › ${test.title}`, totalMs, httpMs });
}

const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const line = (name: string, s: Split) => `${name.padEnd(16)}${String(s.tests).padStart(6)}${sec(s.totalMs).padStart(10)}${sec(s.httpMs).padStart(10)}${sec(s.totalMs - s.httpMs).padStart(10)}`;
if (wallMs !== null) console.log(`wall                ${sec(wallMs)}`);
if (cpuSeconds !== null) console.log(`cpu                 ${cpuSeconds.toFixed(1)} s  (user + system, every process of the run: certify, Playwright, workers, the reference)`);
console.log(`playwright run      ${sec(report.run.durationMs)}${wallMs !== null ? `  (before and after it: ${sec(wallMs - report.run.durationMs)})` : ''}`);
console.log(`inside tests        ${sec(all.totalMs)}  (one worker: the rest of the run is fixtures, hooks and the reporter)`);
console.log('');
console.log(`${'area'.padEnd(16)}${'tests'.padStart(6)}${'total'.padStart(10)}${'HTTP'.padStart(10)}${'other'.padStart(10)}`);
for (const [name, s] of [...areas].sort((a, b) => b[1].totalMs - a[1].totalMs)) console.log(line(name, s));
console.log(line('all', all));
console.log('(HTTP sums every exchange, so a test that sends concurrently can show more HTTP than total time)');
if (omitted > 0) console.log(`(HTTP time excludes ${omitted} exchanges the report left out of long attempts)`);
console.log('');
console.log(`slowest ${values.top} tests (total / HTTP / other):`);
for (const r of rows.sort((a, b) => b.totalMs - a.totalMs).slice(0, Number(values.top))) {
  console.log(`${sec(r.totalMs).padStart(8)}${sec(r.httpMs).padStart(8)}${sec(r.totalMs - r.httpMs).padStart(8)}  ${r.title.slice(0, 110)}`);
}
