// npm run sensitivity [-- --only NAME,NAME] [--parallel N] [--full]
//
// The kill matrix: for each fault of the reference's fault catalogue, start the reference
// with that fault, run the suites tagged with the requirements it breaks, and record whether
// the harness caught it on the right requirement, caught it elsewhere, or missed it. The
// clean reference must pass first. Exit 0 only when every fault is caught on its requirement
// by that requirement's own tests (with --full, by any test of the whole suite).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from './free-port.ts';
import { inTurns } from './pool.ts';
import { FAULTS, type FaultName } from '../faults/index.ts';
import { encodeSettings, REPO_ROOT, referenceSettings, SETTINGS_ENV, userDirectory } from '../harness/settings.ts';
import { PLAYWRIGHT_NODE_ARGS } from './playwright-cli.ts';
import { startReference, stopReference } from '../harness/embedded-reference.ts';

const USAGE = `Usage: npm run sensitivity -- [--only a,b] [--parallel N] [--full] [--out FILE]

  --only a,b     run these faults only (names in faults/README.md; defined in faults/)
  --parallel N   faults run at once (default 2)
  --full         run every suite for each fault, not only the tests tagged with what it breaks
  --out FILE     also write the matrix as JSON (default reports/out/sensitivity.json)`;

/**
 * caught: its requirement's own tests failed it (the whole suite's, with --full). caught by other
 * tests: only the whole suite failed its requirement (a check of another requirement's test saw
 * it): a gap in its requirement's tests, counted as not caught. caught elsewhere: the whole suite
 * failed other requirements only. missed: nothing failed.
 */
type Outcome = 'caught' | 'caught by other tests' | 'caught elsewhere' | 'missed' | 'harness error';
interface Row {
  fault: string;
  breaks: string[];
  outcome: Outcome;
  failing: string[];
  seconds: number;
  note?: string;
}

let values: { only?: string; parallel: string; full: boolean; out: string; help: boolean };
try {
  values = parseArgs({
    options: {
      only: { type: 'string' },
      parallel: { type: 'string', default: '2' },
      full: { type: 'boolean', default: false },
      out: { type: 'string', default: join(REPO_ROOT, 'reports/out/sensitivity.json') },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values as typeof values;
} catch (e) {
  process.stderr.write(`sensitivity: ${(e as Error).message}\n\n${USAGE}\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const parallel = Number(values.parallel);
if (!Number.isInteger(parallel) || parallel < 1) {
  process.stderr.write(`sensitivity: --parallel takes a positive whole number (got ${values.parallel})\n`);
  process.exit(2);
}
const names = (values.only ? values.only.split(',').map((s) => s.trim()) : Object.keys(FAULTS)) as FaultName[];
const unknown = names.filter((n) => !(n in FAULTS));
if (unknown.length) {
  process.stderr.write(`sensitivity: unknown fault(s) ${unknown.join(', ')}; known: ${Object.keys(FAULTS).join(', ')}\n`);
  process.exit(2);
}

interface RunResult {
  failing: string[];
  error?: string;
}

/**
 * How one certification of a fault is narrowed: the tests tagged with what it breaks (`grep`), the
 * files that hold them (so Playwright loads those only), and whether it stops at the first failed
 * test. None of them, the whole suite.
 */
interface Narrowing {
  grep?: string;
  files?: string[];
  firstFailure?: boolean;
}

/** One certification of the reference with the given faults; returns the failing requirement IDs. */
async function certify(faults: string[], narrowing: Narrowing = {}): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sensitivity-'));
  // The faulty server is the reference started by faults/main.ts, which hands it the faults as its extension.
  const entry = faults.length > 0 ? { path: 'faults/main.ts', args: ['--faults', faults.join(',')] } : undefined;
  const base = referenceSettings({ port: await freePort(), dir, ...(entry && { entry }), outDir: join(dir, 'out'), label: `reference with ${faults.join(',') || 'no fault'}`, startedBy: 'certify' });
  const selection = { ...base.selection, grep: narrowing.grep ?? null, maxFailures: narrowing.firstFailure ? 1 : null };
  // The bundled reference on loopback reaches the receiver by construction: the preflight's
  // round trip (one send and its callback) would prove nothing here, once per fault.
  const settings = { ...base, output: { ...base.output, quiet: true }, selection, expectsCallbacks: false };
  const env = { ...process.env, [SETTINGS_ENV]: encodeSettings(settings) };
  const args = [...PLAYWRIGHT_NODE_ARGS, 'test', '-c', 'playwright.config.ts', ...(narrowing.files ?? [])];
  let output = '';
  // Playwright first, then the (faulty) reference beside its start, compiled once per matrix, as
  // certify starts it (harness/embedded-reference.ts): the global setup waits for it. A fault's
  // run then costs about as much as its tests, not a start from the sources after Playwright's.
  const playwright = spawn(process.execPath, args, { env, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const source = settings.target.source as Extract<typeof settings.target.source, { kind: 'reference' }>;
  const reference = startReference(source);
  for (const stream of [playwright.stdout, playwright.stderr, reference.stderr!]) stream.on('data', (c) => (output += c));
  // A reference that ends before the run does leaves the run waiting for it: Playwright stops.
  reference.once('exit', () => playwright.exitCode === null && playwright.kill('SIGTERM'));
  await new Promise<void>((done) => playwright.once('close', () => done()));
  await stopReference(reference);
  let report: { verdict?: string; run?: { errors?: string[] }; requirements: Array<{ id: string; verdict: string }> };
  try {
    report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8')) as typeof report;
  } catch {
    return { failing: [], error: `no report: ${output.trim().split('\n').slice(-5).join(' | ')}` };
  }
  const failing = report.requirements.filter((r) => r.verdict === 'fail' || r.verdict === 'non-strict fail').map((r) => r.id);
  // A run that ended in a harness error judged nothing: it neither caught nor missed the fault.
  if (report.verdict === 'harness error' && failing.length === 0) return { failing, error: `harness error: ${(report.run?.errors ?? []).join(' | ').slice(0, 300) || output.trim().split('\n').slice(-3).join(' | ')}` };
  return { failing };
}

/** certify, once more when the run itself failed (a port taken meanwhile, a start too slow on a loaded machine). */
async function certifyJudged(faults: string[], narrowing?: Narrowing): Promise<RunResult> {
  const first = await certify(faults, narrowing);
  return first.error ? certify(faults, narrowing) : first;
}

/**
 * Which spec files hold the tests tagged with each requirement, from Playwright's own list of the
 * suites (its JSON reporter gives each test's file and tags), so that a fault's run loads those
 * files only. Read once, before the faults run.
 */
async function filesByRequirement(): Promise<Map<string, Set<string>>> {
  const text = await new Promise<string>((done, fail) => {
    const child = spawn(process.execPath, [...PLAYWRIGHT_NODE_ARGS, 'test', '-c', 'playwright.config.ts', '--list', '--reporter=json'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('close', (code) => (code === 0 ? done(out) : fail(new Error(`listing the suites exited ${code}`))));
  });
  interface Suite { specs?: Array<{ file: string; tags?: string[] }>; suites?: Suite[] }
  const map = new Map<string, Set<string>>();
  const walk = (suite: Suite): void => {
    for (const spec of suite.specs ?? []) for (const tag of spec.tags ?? []) map.set(tag, (map.get(tag) ?? new Set()).add(spec.file));
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of (JSON.parse(text) as { suites: Suite[] }).suites) walk(suite);
  return map;
}

async function runFault(name: FaultName): Promise<Row> {
  const started = Date.now();
  const { breaks } = FAULTS[name];
  const grep = breaks.map((id) => `@${id}\\b`).join('|');
  const files = [...new Set(breaks.flatMap((id) => [...(tagged.get(id) ?? [])]))].map((file) => `suites/${file}`);
  const seconds = () => Math.round((Date.now() - started) / 100) / 10;
  // First its own tests, stopping at the first failed one: a fault caught there needs no more
  // (most are, and a run of webhook tests saves their waits). A first failure on another
  // requirement runs them all; a fault they miss runs the whole suite. A narrowed run settles
  // the fault when it caught it or ended in a harness error.
  const settled = (result: RunResult): Row | undefined =>
    result.error ? { fault: name, breaks, outcome: 'harness error', failing: [], seconds: seconds(), note: result.error }
    : result.failing.some((id) => breaks.includes(id)) ? { fault: name, breaks, outcome: 'caught', failing: result.failing, seconds: seconds() }
    : undefined;
  if (!values.full && files.length > 0) {
    const first = await certifyJudged([name], { grep, files, firstFailure: true });
    const row = settled(first) ?? (first.failing.length > 0 ? settled(await certifyJudged([name], { grep, files })) : undefined);
    if (row) return row;
  }
  // Not caught by its own tests: does any other test notice? Either way its requirement's tests
  // miss a case (and the whole suite costs every fault that needs it a full certification).
  const result = await certifyJudged([name]);
  const onRequirement: Outcome = values.full || files.length === 0 ? 'caught' : 'caught by other tests';
  const outcome: Outcome = result.error ? 'harness error' : result.failing.some((id) => breaks.includes(id)) ? onRequirement : result.failing.length ? 'caught elsewhere' : 'missed';
  return { fault: name, breaks, outcome, failing: result.failing, seconds: seconds(), ...(result.error && { note: result.error }) };
}

const tagged = values.full ? new Map<string, Set<string>>() : await filesByRequirement();
const clean = await certify([]);
if (clean.error || clean.failing.length) {
  process.stderr.write(`sensitivity: the clean reference does not pass (${clean.error ?? clean.failing.join(', ')}); fix that first\n`);
  process.exit(1);
}
process.stdout.write(`clean reference: conformant. Running ${names.length} faults, ${parallel} at a time…\n`);

const rows = await inTurns(names, parallel, runFault, (row) => {
  process.stdout.write(`  ${row.outcome.padEnd(21)} ${row.fault} (${row.breaks.join(', ')}) ${row.seconds}s\n`);
});
rows.sort((a, b) => a.fault.localeCompare(b.fault));

const caught = rows.filter((r) => r.outcome === 'caught').length;
const width = Math.max(...rows.map((r) => r.fault.length));
process.stdout.write(`\n${'fault'.padEnd(width)}  ${'breaks'.padEnd(22)}  outcome                failing requirements\n`);
for (const r of rows) {
  process.stdout.write(`${r.fault.padEnd(width)}  ${r.breaks.join(',').padEnd(22)}  ${r.outcome.padEnd(21)}  ${r.failing.join(', ') || r.note || ''}\n`);
}
const score = `${caught}/${rows.length} faults caught on their requirement (${Math.round((caught / rows.length) * 100)}%)`;
process.stdout.write(`\nsensitivity: ${score}\n`);
const out = resolve(userDirectory(), values.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ score, caught, total: rows.length, rows }, null, 2));
process.exit(caught === rows.length ? 0 : 1);
