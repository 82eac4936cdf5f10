// npm run certify [-- --config vendor.yaml] [--strict] [--grep @SEND-004] [--baseline FILE] …
//
// Certifies a target: with no --config, the bundled reference server (started fresh by the
// Playwright config's webServer); with --config, any server. Runs the conformance suites and
// leaves the report under reports/out/. Exit codes: 0 conformant, 1 not conformant,
// 2 harness or configuration error.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from './free-port.ts';
import { ConfigError, loadTarget, type Target } from '../harness/config.ts';
import { planOf } from '../harness/plan.ts';

const USAGE = `Usage: npm run certify -- [options]

Certify a server against the Outbound Messaging and Number Management Service Interface 0.2.0.
With no --config, the bundled reference server is started with a fresh database and certified.

Options:
  --config FILE     target config (YAML or JSON; see harness/config.schema.json), or a
                    reference fixtures file written by --fixtures-out
  --strict          standard-level failures fail the run (default: reported as non-strict)
  --grep PATTERN    run only matching tests, e.g. @SEND-004 or "@SEND-00[1-3]"
  --baseline FILE   expected failures (YAML/JSON): fail only on regressions
  --shard I/N       run shard I of N (merge with: npx playwright merge-reports)
  --workers N       parallel workers (default 1: tests change number settings)
  --seed N          seed for property runs (printed on every failure)
  --deep            property runs at certification depth (500 cases instead of 25)
  --out DIR         report directory (default reports/out)
  --dry-run         list what would run and what cannot be tested here, send nothing
  -h, --help        this text

Exit codes: 0 conformant, 1 not conformant, 2 harness or configuration error.`;

function fail(message: string): never {
  process.stderr.write(`certify: ${message}\n`);
  process.exit(2);
}

let args: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    allowPositionals: false,
    options: {
      config: { type: 'string' },
      strict: { type: 'boolean', default: false },
      grep: { type: 'string' },
      baseline: { type: 'string' },
      shard: { type: 'string' },
      workers: { type: 'string' },
      seed: { type: 'string' },
      deep: { type: 'boolean', default: false },
      out: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}
try {
  args = parse();
} catch (e) {
  fail(`${(e as Error).message}\n\n${USAGE}`);
}
const { values } = args;
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (values.shard && !/^\d+\/\d+$/.test(values.shard)) fail(`--shard takes I/N, e.g. 1/2 (got ${values.shard})`);
if (values.workers && !/^[1-9]\d*$/.test(values.workers)) fail(`--workers takes a positive whole number (got ${values.workers})`);
if (values.seed && !/^-?\d+$/.test(values.seed)) fail(`--seed takes an integer (got ${values.seed})`);
if (values.baseline && !existsSync(values.baseline)) fail(`--baseline ${values.baseline}: no such file`);

const outDir = resolve(values.out ?? 'reports/out');
const env: NodeJS.ProcessEnv = { ...process.env, CONFORMANCE_OUT: outDir };
if (values.strict) env.CONFORMANCE_STRICT = '1';
if (values.baseline) env.CONFORMANCE_BASELINE = resolve(values.baseline);
if (values.seed) env.CONFORMANCE_SEED = values.seed;
if (values.deep) env.CONFORMANCE_DEPTH = 'deep';

let target: Target | undefined;
if (values.config) {
  try {
    target = loadTarget(values.config);
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message);
    throw e;
  }
  env.CONFORMANCE_CONFIG = resolve(values.config);
  delete env.CONFORMANCE_EMBEDDED;
  env.CONFORMANCE_TARGET_JSON = JSON.stringify({ label: target.label, baseUrl: target.baseUrl, profile: target.profile });
} else {
  const dir = mkdtempSync(join(tmpdir(), 'conformance-'));
  const port = await freePort();
  Object.assign(env, {
    CONFORMANCE_EMBEDDED: '1',
    CONFORMANCE_CONFIG: join(dir, 'fixtures.json'),
    CONFORMANCE_REFERENCE_DB: join(dir, 'reference.db'),
    CONFORMANCE_REFERENCE_PORT: String(port),
    CONFORMANCE_TARGET_JSON: JSON.stringify({ label: 'bundled reference server', baseUrl: `http://127.0.0.1:${port}`, profile: 'reference' }),
  });
}

if (values['dry-run']) {
  process.stdout.write(planOf(target).join('\n') + '\n\n');
  const listed = spawnSync(process.execPath, [playwrightCli(), 'test', '--list', ...selection()], { stdio: 'inherit', env });
  process.stdout.write('\nDry run: nothing was sent.\n');
  process.exit(listed.status === 0 ? 0 : 2);
}

process.stdout.write(`certify: ${target ? `${target.label} (${target.baseUrl})` : 'the bundled reference server (fresh database)'}\n`);
const started = Date.now();
const run = spawnSync(process.execPath, [playwrightCli(), 'test', ...selection()], { stdio: 'inherit', env });
const report = join(outDir, 'report.json');
if (!existsSync(report) || statSync(report).mtimeMs < started) {
  fail(`the run wrote no report (${report}); Playwright exited with ${run.status ?? run.signal}`);
}
// The reporter decides the exit code from the verdicts (0, 1 or 2) and Playwright passes it on.
process.exit(run.status === null ? 2 : run.status);

function selection(): string[] {
  return [
    '-c',
    'playwright.config.ts',
    ...(values.grep ? ['--grep', values.grep] : []),
    ...(values.shard ? [`--shard=${values.shard}`] : []),
    ...(values.workers ? [`--workers=${values.workers}`] : []),
  ];
}

function playwrightCli(): string {
  return resolve('node_modules/@playwright/test/cli.js');
}
