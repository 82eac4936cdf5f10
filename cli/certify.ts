// npm run certify [-- --config vendor.yaml] [--strict] [--grep @SEND-004] [--baseline FILE] …
//
// Certifies a target: with --config (or ./conformance.yaml, .yml or .json where the person stands,
// when neither --config nor --base-url is given), any server; with --base-url, a server whose
// routes are discovered as init discovers them; else the bundled reference server (started
// fresh here, beside Playwright's own start: harness/embedded-reference.ts). Every input is checked first (all
// problems at once); then the run's settings (harness/settings.ts) go to Playwright, whose
// reporter writes the report under reports/out/ and decides the exit code: 0 conformant (or
// a partial run with no failure), 1 not conformant, 2 harness or configuration error.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { certifyUsage, parseCertifyArgs, settingsFromFlags, type InputProblem, type RunFlags } from './certify-options.ts';
import { freePort } from './free-port.ts';
import { lockReportFolder } from './out-lock.ts';
import { CatalogueError, loadCatalogue } from '../harness/catalogue.ts';
import { referenceTargetPreview } from '../harness/config.ts';
import { REFERENCE_DID_NOT_START, REFERENCE_EXITED, startReference, stopReference } from '../harness/embedded-reference.ts';
import { discover, DiscoveryError, openRoutes, routesOf } from '../harness/discovery.ts';
import { chooseWorkers, freePortsFrom, timeExchange } from '../harness/workers.ts';
import { workerReceiverPort } from '../harness/run-receiver.ts';
import {
  baseUrlCredentials,
  CONFIG_FILE_NAMES,
  configIn,
  encodeSettings,
  invocation,
  loadRunTarget,
  MAX_WORKERS,
  referenceFixturesFile,
  REPO_ROOT,
  SETTINGS_ENV,
  userDirectory,
  type RunSettings,
} from '../harness/settings.ts';
import { harnessInfo } from '../reports/meta.ts';
import { listTests, planFor, renderPlan } from './plan.ts';
import { loadBaseline } from '../reports/baseline.ts';
import { InputError } from '../reports/errors.ts';
import { PLAYWRIGHT_NODE_ARGS } from './playwright-cli.ts';
import { exitWith, runIfEntry, type Command, type ExitCode } from './command.ts';

/** The `certify` command: its arguments to its exit code (cli/command.ts). */
export async function certify(argv: readonly string[]): Promise<ExitCode> {
  const invokedAs = invocation();
  const USAGE = certifyUsage(invokedAs);

  let reference: ChildProcess | undefined;

  function fail(lines: string[]): never {
    reference?.kill('SIGTERM');
    process.stderr.write(`${lines.map((l) => `certify: ${l}`).join('\n')}\n`);
    process.stdout.write('HARNESS ERROR  nothing was run: fix the input above\n');
    exitWith(2);
  }

  let values: RunFlags;
  try {
    values = parseCertifyArgs([...argv]);
  } catch (e) {
    process.stderr.write(`certify: ${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.version) {
    const { name, version } = harnessInfo();
    process.stdout.write(`${name} ${version}\n`);
    return 0;
  }

  const cwd = userDirectory();
  // No target named: the config `init` writes where the person stands, else the bundled reference.
  // The first line says which, so nobody takes one for the other.
  if (values.config === undefined && values['base-url'] === undefined) {
    const found = configIn(cwd);
    if (found !== null) {
      values.config = found;
      process.stdout.write(`certify: using ${found} (found in the directory you run this in; --config names another)\n`);
    } else {
      process.stdout.write(`certify: no --config, and no ${CONFIG_FILE_NAMES.join(', ')} in ${cwd}: certifying the bundled reference server\n`);
    }
  }
  const problems: InputProblem[] = [];
  let knownRequirements: Set<string>;
  try {
    knownRequirements = new Set(loadCatalogue().requirements.filter((r) => !r.withdrawn).map((r) => r.id));
  } catch (e) {
    if (e instanceof CatalogueError) fail([e.message]);
    throw e;
  }
  const { settings, problems: flagProblems, target: flagTarget, autoWorkers } = settingsFromFlags(values, {
    cwd,
    env: process.env,
    reference: { port: await freePort(), dir: mkdtempSync(join(tmpdir(), 'conformance-')), startedBy: 'certify' },
    runDir: mkdtempSync(join(tmpdir(), 'conformance-run-')),
    knownRequirements,
    invocation: invokedAs,
  });
  problems.push(...flagProblems);
  // --base-url without a config: the routes and the numbers envelope as init finds them, never the
  // reference profile's guessed; what cannot be found stops the run here, pointing at init.
  let configTarget = flagTarget;
  if (settings?.target.source.kind === 'url' && problems.length === 0) {
    const source = settings.target.source;
    const primary = baseUrlCredentials(process.env).primary!;
    const initHint = `run ${invokedAs.init} --base-url ${source.baseUrl}: it writes ./conformance.yaml with what it found and marks OPEN what it could not; set those there, then ${invokedAs.command} (it uses ./conformance.yaml)`;
    try {
      const found = await discover(source.baseUrl.replace(/\/+$/, ''), primary, 15_000);
      const open = openRoutes(found);
      if (open.length > 0) fail([...open.map((o) => `--base-url ${source.baseUrl}: routes.${o.route} was not found (${o.why})`), `--base-url: ${initHint}`]);
      source.routes = routesOf(found);
      configTarget = loadRunTarget(settings);
    } catch (e) {
      if (!(e instanceof DiscoveryError)) throw e;
      // no token: the credentials or the URL, which init would meet the same way
      fail([`--base-url ${source.baseUrl}: ${e.message}`]);
    }
  }
  if (values.baseline !== undefined) {
    const file = resolve(cwd, values.baseline);
    try {
      const baseline = loadBaseline(file);
      const unknown = baseline.expectedFailures.filter((e) => !knownRequirements.has(e.id)).map((e) => e.id);
      if (unknown.length > 0) problems.push({ input: `--baseline ${file}`, message: `lists ${unknown.join(', ')}, not requirements of this interface version (spec/requirements.yaml)` });
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems.push({ input: '--baseline', message: e.message });
    }
  }
  if (values.merge !== undefined && (values.shard !== undefined || values['dry-run'])) problems.push({ input: '--merge', message: 'merges finished shards: give it without --shard and --dry-run' });
  if (problems.length > 0 || !settings) fail(problems.map((p) => `${p.input}: ${p.message}`));

  // The plan: what the selection runs and how many sends that needs, checked before anything is sent.
  const target = configTarget ?? referenceTargetPreview(settings.target.description.baseUrl);
  const listing = values.merge === undefined ? listTests(settings, process.env) : { tests: [] };
  if ('error' in listing) fail([listing.error]);
  const plan = planFor(settings, target, listing.tests);
  if (values.merge === undefined && listing.tests.length === 0) {
    const filter = values.grep !== undefined ? '--grep' : values.requirements !== undefined ? '--requirements' : values.shard !== undefined ? '--shard' : 'the suites';
    problems.push({ input: filter, message: 'selects no test: nothing would run' });
  }
  if (target.sendCap !== null && target.sendCap < plan.sendsNeeded) {
    problems.push({
      input: `--config ${(settings.target.source as { path: string }).path}`,
      message: `/sendCap is ${target.sendCap}, but this run needs about ${plan.sendsNeeded} sends (${plan.tests.length} tests, ${plan.runs} cases per property): set sendCap to at least ${plan.sendsNeeded}, or leave it out to allow what the run needs`,
    });
  }
  if (problems.length > 0) fail(problems.map((p) => `${p.input}: ${p.message}`));
  settings.sendBudget = plan.sendsNeeded;
  settings.expectsCallbacks = plan.tests.some((t) => t.receivesWebhooks);

  if (values['dry-run']) {
    process.stdout.write(`${renderPlan(plan, settings, target).join('\n')}\n\nDry run: nothing was sent.\n`);
    return 0;
  }

  // Without --workers, as many as pay against this target (harness/workers.ts): a few exchanges timed first.
  let workersChosen = `${settings.workers} worker${settings.workers > 1 ? 's' : ''} (--workers)`;
  if (autoWorkers && values.merge === undefined) {
    const bundledReference = settings.target.source.kind === 'reference';
    const exchangeMs = bundledReference ? null : await timeExchange(`${target.baseUrl}${target.routes.whoami.path}`, target.routes.whoami.method, Math.min(target.timeouts.requestMs, 5_000));
    const firstWorkerPort = workerReceiverPort(target, 0);
    const freeReceiverPorts = bundledReference || firstWorkerPort === 0 ? null : await freePortsFrom(target.webhooks.listenHost, firstWorkerPort, MAX_WORKERS);
    const choice = chooseWorkers({ bundledReference, exchangeMs, publicUrl: target.webhooks.publicUrl, freeReceiverPorts });
    settings.workers = choice.workers;
    workersChosen = `${choice.workers} worker${choice.workers > 1 ? 's' : ''}: ${choice.why}`;
  }

  // One run at a time writes a report folder.
  const lock = lockReportFolder(settings.output.dir);
  if (!lock.held) fail([`--out ${settings.output.dir}: another run is writing its report there (${lock.by}); give this run another --out, or wait for that one`]);

  const env: NodeJS.ProcessEnv = { ...process.env, [SETTINGS_ENV]: encodeSettings(settings) };

  process.stdout.write(`certify: ${describe(settings)}; ${workersChosen}\n`);
  const started = Date.now();
  const command = values.merge !== undefined ? ['merge-reports', '-c', 'playwright.config.ts', resolve(cwd, values.merge)] : ['test', '-c', 'playwright.config.ts'];
  const playwright = spawn(process.execPath, [...PLAYWRIGHT_NODE_ARGS, ...command], { stdio: 'inherit', env, cwd: REPO_ROOT });
  // The bundled reference starts next, beside Playwright's own start (which takes longer: the
  // global setup waits for the reference, harness/embedded-reference.ts).
  const { source } = settings.target;
  if (source.kind === 'reference' && values.merge === undefined) {
    reference = startReference(source);
    reference.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  }
  // A terminal's Ctrl-C reaches Playwright (and the reference) itself: Playwright stops the tests,
  // and its reporter writes the report of what ran (interrupted: a harness error, never a
  // certificate). A SIGTERM (a CI job cancelled, `kill`) reaches this process alone: it is passed
  // on to Playwright as that SIGINT, so it ends the same way, report and all; the reference keeps
  // serving until Playwright is done and is stopped after it. A second SIGTERM ends Playwright at once.
  let interrupted = false;
  let terminated = 0;
  process.on('SIGINT', () => (interrupted = true));
  process.on('SIGTERM', () => {
    interrupted = true;
    playwright.kill(terminated++ === 0 ? 'SIGINT' : 'SIGTERM');
  });
  let referenceLost: string | null = null;
  reference?.once('exit', (code, signal) => {
    if (interrupted || playwright.exitCode !== null) return;
    // It writes its fixtures once it listens: without them it never served anything.
    const served = source.kind === 'reference' && existsSync(referenceFixturesFile(source));
    referenceLost = served
      ? `${REFERENCE_EXITED} (${code ?? signal}) before the run ended; its errors, if any, are above`
      : `${REFERENCE_DID_NOT_START}: it exited (${code ?? signal}) before it served; its errors, if any, are above`;
    playwright.kill('SIGTERM');
  });
  const run = await new Promise<{ status: number | null; signal: NodeJS.Signals | null }>((done) => playwright.once('exit', (status, signal) => done({ status, signal })));
  if (reference) await stopReference(reference);
  if (referenceLost !== null) {
    process.stderr.write(`certify: ${referenceLost}\n`);
    process.stdout.write('HARNESS ERROR  the run did not finish: the verdicts of this run are void\n');
    return 2;
  }
  const report = join(settings.output.dir, 'report.json');
  if (!existsSync(report) || statSync(report).mtimeMs < started) {
    process.stderr.write(`certify: the run wrote no report (${report}); Playwright exited with ${run.status ?? run.signal}\n`);
    return 2;
  }
  // The reporter decides the exit code from the verdicts (0, 1 or 2) and Playwright passes it on.
  return run.status === 0 || run.status === 1 ? run.status : 2;




}

function describe(s: RunSettings): string {
  const { source, description } = s.target;
  return source.kind === 'reference' ? 'the bundled reference server (fresh database)' : `${description.label} (${description.baseUrl})`;
}

export const certifyCommand: Command = { name: 'certify', run: certify };

runIfEntry(import.meta, certifyCommand);
