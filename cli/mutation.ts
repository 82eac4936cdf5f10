// npm run mutation [-- --sample N --seed S] [--chunk I/N] [--merge] [--filter TEXT] [--list]
//
// A mutation score of the certification suite, built on StrykerJS: it mutates the reference
// server's rule code (cli/mutation-files.ts), certifies the bundled reference against each mutant
// as `npm run certify -- --strict` does (cli/mutation-runner.ts), and counts a mutant killed when that run
// ends NOT CONFORMANT. Survivors judged equivalent are listed in mutation/triage.yaml; every other
// survivor is a check the suite is missing. Ends with one line:
//   mutation score: P% (K killed of M; E listed as equivalent)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Stryker } from '@stryker-mutator/core';
import {
  chunkOf,
  enumerateMutants,
  loadTriage,
  mutateRange,
  parseChunk,
  sampleMutants,
  scoreLine,
  scoreOf,
  staleEntries,
  TRIAGE_FILE,
  TriageError,
  type MutantInfo,
  type MutantResult,
  type TriageEntry,
} from './mutation-mutants.ts';
import type { CertifyRunnerOptions, ResultLine, SelectedMutant } from './mutation-runner.ts';
import { REPO_ROOT, userDirectory } from '../harness/settings.ts';

const USAGE = `Usage: npm run mutation -- [options]

Mutates the reference server's rule code (cli/mutation-files.ts) with StrykerJS and certifies the
bundled reference against each mutant (certify --strict); a mutant is killed when that run is NOT
CONFORMANT.
Prints one line at the end: mutation score: P% (K killed of M; E listed as equivalent).

Which mutants (one of; all of them without any):
  --sample N          N mutants drawn by --seed (the same N and seed draw the same mutants)
  --seed S            the seed of --sample (default 1)
  --chunk I/N         the I-th of N consecutive pieces of all mutants (a full run in parts)
  --filter TEXT       the mutants whose id contains TEXT (for example a file name)

Other:
  --merge             run nothing: the score of the chunks under --out together (with
                      --fast, of the --fast chunks)
  --list              print the selected mutants' ids and places, run nothing
  --fresh             forget earlier results of the same selection (by default a selection that
                      was interrupted goes on where it stopped)
  --out DIR           where results go (default reports/out/mutation)
  --triage FILE       the survivors judged equivalent (default mutation/triage.yaml)
  --timeout SECONDS   a certify run that takes longer is stopped: a timeout (default 300)
  --fast              quicker, kills over-counted: a mutant is first certified with the tests of
                      the areas its file names, and every run stops at its first failed test; a
                      survivor is still one, a kill may be a harness error in a whole run
  -h, --help          this text

Exit codes: 0 the run completed (whatever the score), 2 an input or harness problem
(bad flags, an unreadable triage file, the unmutated reference not CONFORMANT).`;

function fail(lines: string[]): never {
  process.stderr.write(`${lines.map((l) => `mutation: ${l}`).join('\n')}\n`);
  process.exit(2);
}

let values: { sample?: string; seed?: string; chunk?: string; filter?: string; merge: boolean; list: boolean; fresh: boolean; out?: string; triage?: string; timeout: string; fast: boolean; help: boolean };
try {
  values = parseArgs({
    options: {
      sample: { type: 'string' },
      seed: { type: 'string' },
      chunk: { type: 'string' },
      filter: { type: 'string' },
      merge: { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
      fresh: { type: 'boolean', default: false },
      out: { type: 'string' },
      triage: { type: 'string' },
      timeout: { type: 'string', default: '300' },
      fast: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values as typeof values;
} catch (e) {
  fail([(e as Error).message, '', ...USAGE.split('\n')]);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const problems: string[] = [];
const sample = values.sample === undefined ? undefined : Number(values.sample);
if (sample !== undefined && !(Number.isInteger(sample) && sample >= 1)) problems.push(`--sample takes a whole number from 1 (got ${values.sample})`);
if (values.seed !== undefined && values.sample === undefined) problems.push('--seed goes with --sample');
const chunk = values.chunk === undefined ? undefined : parseChunk(values.chunk);
if (typeof chunk === 'string') problems.push(chunk);
if ([values.sample, values.chunk, values.filter].filter((v) => v !== undefined).length > 1) problems.push('choose one of --sample, --chunk and --filter');
if (values.merge && (values.sample !== undefined || values.chunk !== undefined || values.filter !== undefined || values.list)) problems.push('--merge scores the chunks earlier runs left: give it without --sample, --chunk, --filter or --list');
const timeout = Number(values.timeout);
if (!(timeout > 0)) problems.push(`--timeout takes seconds (got ${values.timeout})`);
let triage: TriageEntry[] = [];
const triageFile = values.triage === undefined ? join(REPO_ROOT, TRIAGE_FILE) : resolve(userDirectory(), values.triage);
try {
  triage = loadTriage(triageFile);
} catch (e) {
  if (!(e instanceof TriageError)) throw e;
  problems.push(e.message);
}
if (problems.length > 0) fail(problems);

const seed = values.seed ?? '1';
const outDir = resolve(userDirectory(), values.out ?? join(REPO_ROOT, 'reports', 'out', 'mutation'));
const resultsDir = join(outDir, 'results');

const mutants = await enumerateMutants(REPO_ROOT);
for (const stale of staleEntries(triage, mutants)) {
  process.stderr.write(`mutation: ${triageFile} lists a mutant the code no longer has (update or remove it): ${stale.id}\n`);
}
// --fast results count kills differently: never mixed with the others
const fingerprint = createHash('sha256').update(codeFingerprint()).update(values.fast ? 'fast' : 'whole runs').digest('hex');

if (values.merge) {
  // the pieces of a full run: the chunks, or a run of all (samples and filters are left out)
  const pieces = readdirSafe(resultsDir).filter((f) => new RegExp(`^(chunk-\\d+-of-\\d+|all)${values.fast ? '-fast' : ''}\\.jsonl$`).test(f));
  const { results, fingerprints } = readResults(resultsDir, null, pieces);
  if (fingerprints.size > 1) {
    fail([`the results under ${resultsDir} come from ${fingerprints.size} different versions of the code (${[...fingerprints.keys()].map((f) => `${f.slice(0, 12)}: ${fingerprints.get(f)!.join(', ')}`).join('; ')}): run the older chunks again, or move their files away`]);
  }
  const [only] = fingerprints.keys();
  if (only !== undefined && only !== fingerprint) process.stderr.write(`mutation: note: these results are of other code than the working tree's (fingerprint ${only.slice(0, 12)}, now ${fingerprint.slice(0, 12)})\n`);
  const known = new Set(mutants.map((m) => m.id));
  const merged = [...results.values()].filter((r) => known.has(r.id) || only !== fingerprint);
  process.stderr.write(`mutation: results for ${merged.length} of ${mutants.length} mutants (${pieces.map((f) => basename(f, '.jsonl')).join(', ') || 'no chunk has run yet'})\n`);
  report(merged, mutants);
  process.exit(0);
}

const chosen = values.sample !== undefined ? sampleMutants(mutants, sample!, seed)
  : typeof chunk === 'object' ? chunkOf(mutants, chunk.index, chunk.count)
  : values.filter !== undefined ? mutants.filter((m) => m.id.includes(values.filter!))
  : mutants;
if (chosen.length === 0) fail([`${values.filter !== undefined ? `--filter ${values.filter}` : 'the selection'} selects no mutant`]);
const label = (values.sample !== undefined ? `sample-${sample}-seed-${seed}`
  : typeof chunk === 'object' ? `chunk-${chunk.index}-of-${chunk.count}`
  : values.filter !== undefined ? `filter-${createHash('sha256').update(values.filter).digest('hex').slice(0, 10)}`
  : 'all') + (values.fast ? '-fast' : '');

if (values.list) {
  for (const m of chosen) process.stdout.write(`${m.file}:${m.location.start.line + 1}:${m.location.start.column + 1}  ${m.id}\n`);
  process.exit(0);
}

const resultsFile = join(resultsDir, `${label}.jsonl`);
if (values.fresh) rmSync(resultsFile, { force: true });
const earlier = readResults(resultsDir, fingerprint, [`${label}.jsonl`]).results;
const todo = chosen.filter((m) => !earlier.has(m.id));
if (earlier.size > 0 && todo.length < chosen.length) process.stderr.write(`mutation: ${chosen.length - todo.length} of ${chosen.length} mutants have results from an earlier run of this selection (--fresh runs them again)\n`);

if (todo.length > 0) {
  const runDir = join(outDir, 'runs', label);
  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true });
  const selection: SelectedMutant[] = todo.map((m) => ({ id: m.id, file: m.file, mutator: m.mutator, replacement: m.replacement, location: m.location }));
  writeFileSync(join(runDir, 'selection.json'), JSON.stringify(selection));
  const certify: CertifyRunnerOptions = {
    projectRoot: REPO_ROOT,
    selection: join(runDir, 'selection.json'),
    runs: join(runDir, 'runs.jsonl'),
    results: resultsFile,
    timeoutSeconds: timeout,
    fingerprint,
    fast: values.fast,
  };
  process.stderr.write(`mutation: ${todo.length} mutants (${label}); dry run first: the unmutated reference, the whole suite\n`);
  const started = Date.now();
  try {
    await new Stryker({
      testRunner: 'certify',
      plugins: [fileURLToPath(new URL('./mutation-runner.ts', import.meta.url))],
      reporters: ['mutation-results'],
      mutate: todo.map(mutateRange),
      ignorers: ['mutation-kept'],
      coverageAnalysis: 'all',
      // the machine is shared, and each certify run already uses both cores
      concurrency: 1,
      // the runner stops a certify run itself (--timeout): StrykerJS's own timer never comes first
      timeoutMS: 3 * 3600_000,
      timeoutFactor: 1,
      dryRunTimeoutMinutes: 30,
      testRunnerNodeArgs: ['--import', 'tsx'],
      checkerNodeArgs: ['--import', 'tsx'],
      tempDirName: '.stryker-tmp',
      cleanTempDir: true,
      ignorePatterns: ['reports/out', 'reference/.compiled', 'test', 'bench', 'docs', 'examples', 'mutation', '.tmp', 'conformance-report', 'test-results', '*.db', '*.db-wal', '*.db-shm'],
      incremental: false,
      // StrykerJS would rewrite tsconfig.json's outside paths with TypeScript's JavaScript API,
      // which TypeScript 7 does not have; ours has none to rewrite, so it is named away.
      tsconfigFile: 'no-tsconfig-to-rewrite.json',
      checkers: [],
      logLevel: 'warn',
      fileLogLevel: 'off',
      allowConsoleColors: false,
      warnings: { slow: false },
      mutationCertify: certify,
      // typed loosely: the log levels are const enums in StrykerJS's types, which a file compiled
      // on its own (tsx) cannot read at run time; the options are checked by StrykerJS itself
    } as never).runMutationTest();
  } catch (e) {
    fail([`StrykerJS stopped: ${(e as Error).message}`]);
  }
  process.stderr.write(`mutation: ${todo.length} mutants in ${((Date.now() - started) / 1000).toFixed(0)} s (dry run included)\n`);
}

const { results } = readResults(resultsDir, fingerprint, [`${label}.jsonl`]);
const ids = new Set(chosen.map((m) => m.id));
const mine = [...results.values()].filter((r) => ids.has(r.id));
const missing = chosen.length - mine.length;
if (missing > 0) fail([`${missing} of ${chosen.length} mutants have no result (the run stopped early?); run the same command again to go on`]);
report(mine, chosen);
process.exit(0);

// ---- helpers -----------------------------------------------------------------------------------

function average(results: readonly MutantResult[]): string {
  return results.length === 0 ? '-' : `${(results.reduce((s, r) => s + r.seconds, 0) / results.length).toFixed(1)} s`;
}

function readdirSafe(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** The results under dir (one file, or every one), last line of a mutant winning; by fingerprint, which files hold each. */
function readResults(dir: string, wanted: string | null, only: readonly string[]): { results: Map<string, MutantResult>; fingerprints: Map<string, string[]> } {
  const results = new Map<string, MutantResult>();
  const fingerprints = new Map<string, string[]>();
  for (const f of readdirSafe(dir).filter((f) => only.includes(f)).sort()) {
    for (const text of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (text.trim() === '') continue;
      let line: ResultLine;
      try {
        line = JSON.parse(text) as ResultLine;
      } catch {
        continue; // a line cut short when a run was stopped
      }
      const files = fingerprints.get(line.fingerprint) ?? [];
      if (!files.includes(basename(f, '.jsonl'))) files.push(basename(f, '.jsonl'));
      fingerprints.set(line.fingerprint, files);
      if (wanted !== null && line.fingerprint !== wanted) continue;
      results.set(line.id, { id: line.id, outcome: line.outcome, detail: line.detail, seconds: line.seconds });
    }
  }
  return { results, fingerprints };
}

/**
 * What results depend on: the reference (mutated or not), what certifies it, and how a run is
 * judged. Results of other code are never merged with these.
 */
function codeFingerprint(): string {
  const hash = createHash('sha256');
  const walk = (path: string) => {
    const full = join(REPO_ROOT, path);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) if (!name.startsWith('.') && name !== 'out') walk(`${path}/${name}`);
    } else if (!path.endsWith('.md')) {
      hash.update(path);
      hash.update(readFileSync(full));
    }
  };
  for (const path of ['reference', 'suites', 'harness', 'reports', 'spec', 'generators', 'playwright.config.ts', 'package-lock.json', 'cli/certify.ts', 'cli/plan.ts', 'cli/playwright-cli.ts', 'cli/mutation-runner.ts', 'cli/mutation-coverage.mjs']) walk(path);
  return hash.digest('hex');
}

/** The summary (stderr) and the score line (stdout, the last line). */
function report(results: readonly MutantResult[], of: readonly MutantInfo[]): void {
  const score = scoreOf(results, triage);
  const place = new Map(of.map((m) => [m.id, `${m.file}:${m.location.start.line + 1}`]));
  const seconds = results.filter((r) => r.seconds > 0);
  const lines = [
    `outcomes: ${Object.entries(score.byOutcome).map(([o, n]) => `${n} ${o}`).join(', ')}`,
    ...(seconds.length > 0 ? [`certify time per mutant: ${(seconds.reduce((s, r) => s + r.seconds, 0) / seconds.length).toFixed(1)} s on average (${seconds.length} mutants run; killed ${average(seconds.filter((r) => r.outcome === 'killed'))}, not killed ${average(seconds.filter((r) => r.outcome !== 'killed'))})`] : []),
    ...score.listedButKilled.map((id) => `listed as equivalent in ${triageFile}, but killed (remove the entry): ${id}`),
  ];
  const byKind = (o: string) => (o === 'does not start' || o === 'timeout' ? results.filter((r) => r.outcome === o) : score.missed.filter((r) => r.outcome === o));
  for (const [kind, heading] of [['survived', 'survived (a missing check, unless equivalent)'], ['no coverage', 'no coverage (no run reaches this code)'], ['harness error', 'harness error (not a kill)'], ['timeout', 'timeout (counted as detected, as StrykerJS counts it: the certification never ends)'], ['does not start', 'does not start (outside the score, as StrykerJS counts a runtime error: no server to certify)']] as const) {
    const list = byKind(kind);
    if (list.length === 0) continue;
    lines.push(`${heading}: ${list.length}`);
    for (const r of list) lines.push(`  ${place.get(r.id) ?? '?'}  ${r.id}${r.detail ? `\n      ${r.detail}` : ''}`);
  }
  process.stderr.write(`${lines.map((l) => (l.startsWith('  ') ? l : `mutation: ${l}`)).join('\n')}\n`);
  process.stdout.write(`${scoreLine(score)}\n`);
}
