// npx tsx bench/certify-time.ts [--report FILE | --out DIR] [-- certify flags…]
//
// Where a certification run's time goes. Runs `certify` (with any flags after `--`; none: the
// bundled reference) into a temporary report directory (or --out), or reads an existing report.json
// (--report), and prints: the wall time and the CPU time of every process of the run (Linux);
// the part spent before and after the tests (starting the reference, preflight, writing the
// report); the tests' own time split into time waiting on the
// target's HTTP answers and everything else (waiting for webhooks, sleeps, the harness's own
// CPU); the same per area; and the slowest tests (reports/timing.ts, which the HTML report's
// "Where the time went" shows too). Targets (issue 15.6) are judged on these figures, not by
// timed tests.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { timingOf, type TimingRow } from '../reports/timing.ts';
import type { Report } from '../reports/types.ts';

const { values, positionals } = parseArgs({ options: { report: { type: 'string' }, out: { type: 'string' }, top: { type: 'string', default: '15' } }, allowPositionals: true });

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
  const out = values.out ?? mkdtempSync(join(tmpdir(), 'bench-certify-'));
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

const timing = timingOf(report, Number(values.top));

const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const line = (name: string, s: TimingRow) => `${name.padEnd(16)}${String(s.tests).padStart(6)}${sec(s.testMs).padStart(10)}${sec(s.httpMs).padStart(10)}${sec(s.testMs - s.httpMs).padStart(10)}`;
if (wallMs !== null) console.log(`wall                ${sec(wallMs)}`);
if (cpuSeconds !== null) console.log(`cpu                 ${cpuSeconds.toFixed(1)} s  (user + system, every process of the run: certify, Playwright, workers, the reference)`);
console.log(`playwright run      ${sec(report.run.durationMs)}${wallMs !== null ? `  (before and after it: ${sec(wallMs - report.run.durationMs)})` : ''}`);
console.log(`workers             ${report.run.workers ?? '?'}`);
console.log(`inside tests        ${sec(timing.all.testMs)}  (summed over the workers: the rest of the run is fixtures, hooks and the reporter)`);
console.log('');
console.log(`${'area'.padEnd(16)}${'tests'.padStart(6)}${'total'.padStart(10)}${'HTTP'.padStart(10)}${'other'.padStart(10)}`);
for (const area of timing.areas) console.log(line(area.area, area));
console.log(line('all', timing.all));
console.log('(HTTP sums every exchange, so a test that sends concurrently can show more HTTP than total time)');
if (timing.omittedExchanges > 0) console.log(`(HTTP time excludes ${timing.omittedExchanges} exchanges the report left out of long attempts)`);
console.log('');
console.log(`slowest ${values.top} tests (total / HTTP / other):`);
for (const t of timing.slowest) {
  console.log(`${sec(t.testMs).padStart(8)}${sec(t.httpMs).padStart(8)}${sec(t.testMs - t.httpMs).padStart(8)}  ${`${t.file} › ${t.title}`.slice(0, 110)}`);
}
