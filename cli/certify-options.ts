// The options of `certify`, each declared once: its name, its type, the word its value is shown
// as, its group and its help. The help text, the parseArgs table and the flags' type all come
// from CERTIFY_OPTIONS; settingsFromFlags turns the flags into the run's one settings object
// (harness/settings.ts), with every bad value found at once.
//
// A new option is a row of CERTIFY_OPTIONS and its reading in settingsFromFlags (this file),
// a field of RunSettings where the run needs it (harness/settings.ts), and its test
// (test/cli/certify-options.test.ts): CONTRIBUTING.md, "A new option of certify".
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, type Target } from '../harness/config.ts';
import {
  BASE_URL_CREDENTIALS,
  invocation,
  MAX_WORKERS,
  referenceTarget,
  targetOf,
  targetOrigin,
  type Invocation,
  type RunSettings,
  type Selection,
  type TargetSource,
  withRunOverrides,
} from '../harness/settings.ts';

type Group = 'general' | 'part' | 'runs';

interface OptionSpec {
  type: 'string' | 'boolean';
  /** How the value is shown in the help (FILE, N, …); boolean options have none. */
  value?: string;
  short?: string;
  group: Group;
  /** The help paragraph (wrapped when shown); a function when it names how certify was invoked. */
  help: string | ((i: Invocation) => string);
}

export const CERTIFY_OPTIONS = {
  config: {
    type: 'string',
    value: 'FILE',
    group: 'general',
    help: 'target config (YAML or JSON; see harness/config.schema.json), or a reference fixtures file written by --fixtures-out',
  },
  'base-url': {
    type: 'string',
    value: 'URL',
    group: 'general',
    help: (i) =>
      `a first run without a config: the routes and the numbers envelope found as ${i.init} finds them (or exit 2 pointing at init), the primary client from CONFORMANCE_PRIMARY_CLIENT_ID and CONFORMANCE_PRIMARY_CLIENT_SECRET (a second client, optional, from CONFORMANCE_SECONDARY_CLIENT_ID and _SECRET); what needs more is reported not testable here, naming the config field that would reach it`,
  },
  strict: { type: 'boolean', group: 'general', help: 'standard-level failures fail the run (default: reported as non-strict)' },
  baseline: { type: 'string', value: 'FILE', group: 'general', help: 'expected failures (YAML/JSON): fail only on regressions' },
  out: { type: 'string', value: 'DIR', group: 'general', help: (i) => `report directory (default ${i.defaultOutShown})` },
  'dry-run': { type: 'boolean', group: 'general', help: 'say what the run would do and need, send nothing' },
  grep: { type: 'string', value: 'PATTERN', group: 'part', help: 'only matching tests, e.g. @SEND-004 or "@SEND-00[1-3]"' },
  requirements: { type: 'string', value: 'IDS', group: 'part', help: 'only the tests of these requirements, e.g. SEND-004,SEND-005' },
  shard: { type: 'string', value: 'I/N', group: 'part', help: 'shard I of N; also writes a blob report to merge (--merge)' },
  'max-failures': { type: 'string', value: 'N', group: 'part', help: 'stop after N failed tests' },
  merge: { type: 'string', value: 'DIR', group: 'part', help: 'merge the blob reports of every shard in DIR into one report' },
  workers: {
    type: 'string',
    value: 'N|auto',
    group: 'runs',
    help: `parallel workers, 1 to ${MAX_WORKERS}; auto (the default) takes ${MAX_WORKERS} when an exchange with the target takes 10 ms or more, else 1 (README: Workers); tests that change settings, webhooks or triggers hold them alone; 1 with a webhooks.publicUrl without {port}`,
  },
  'rate-limit': {
    type: 'string',
    value: 'R',
    group: 'runs',
    help: 'at most R requests per second to the target, shared by the workers (wins over rateLimit in the config); a 429 with Retry-After is waited out and retried either way, and counted in the report',
  },
  'request-timeout': {
    type: 'string',
    value: 'MS',
    group: 'runs',
    help: 'how long one exchange with the target may take, in milliseconds, at least 100 (wins over timeouts.requestMs in the config; default 15000): for a slow staging server, before its slowness reads as a failure',
  },
  deep: { type: 'boolean', group: 'runs', help: 'property runs at certification depth (500 cases instead of 25)' },
  runs: { type: 'string', value: 'N', group: 'runs', help: 'cases per property (wins over the depth)' },
  seed: { type: 'string', value: 'N', group: 'runs', help: 'seed for property runs (printed on every failure)' },
  path: { type: 'string', value: 'P', group: 'runs', help: 'with --seed: replay a reported property failure (fast-check path)' },
  'replay-path': { type: 'string', value: 'R', group: 'runs', help: "with --seed: fast-check's replay hint of a command scenario" },
  quiet: { type: 'boolean', group: 'runs', help: 'only the report and the summary, no line per test (the kill matrix runs this way)' },
  version: { type: 'boolean', group: 'runs', help: "the harness's name and version" },
  help: { type: 'boolean', short: 'h', group: 'runs', help: 'this text' },
} as const satisfies Record<string, OptionSpec>;

type Options = typeof CERTIFY_OPTIONS;

/** The flags as typed on the command line: strings as given, booleans when present. */
export type RunFlags = { -readonly [K in keyof Options]?: Options[K]['type'] extends 'string' ? string : boolean };

const GROUP_TITLES: Record<Group, string> = {
  general: 'Options:',
  part: 'Part of the suite (the report is then partial, never a certificate):',
  runs: 'Runs:',
};

const WIDTH = 96;
const COLUMN = 24;

/** One option's help lines: the flag, then its paragraph wrapped at the column. */
function helpLines(name: string, spec: OptionSpec, i: Invocation): string[] {
  const flag = `  ${'short' in spec && spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`;
  const words = (typeof spec.help === 'function' ? spec.help(i) : spec.help).split(' ');
  const lines: string[] = [];
  let line = flag.length + 1 < COLUMN ? flag.padEnd(COLUMN) : `${flag}\n${' '.repeat(COLUMN)}`;
  let fresh = true;
  for (const word of words) {
    const last = line.slice(line.lastIndexOf('\n') + 1);
    if (!fresh && last.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = ' '.repeat(COLUMN) + word;
    } else line += (fresh ? '' : ' ') + word;
    fresh = false;
  }
  lines.push(line);
  return lines;
}

/** The help of certify, from CERTIFY_OPTIONS. */
export function certifyUsage(i: Invocation = invocation()): string {
  const groups = (Object.keys(GROUP_TITLES) as Group[]).map((group) => [
    GROUP_TITLES[group],
    ...Object.entries(CERTIFY_OPTIONS as Record<string, OptionSpec>)
      .filter(([, spec]) => spec.group === group)
      .flatMap(([name, spec]) => helpLines(name, spec, i)),
  ]);
  return `Usage: ${i.command} [options]

Certify a server against the Outbound Messaging and Number Management Service Interface 0.2.0.
With no --config or --base-url: ./conformance.yaml (or .yml, or .json) in the directory you
run the command in is the target config; without one, the bundled reference server is started
with a fresh database and certified. The first line says which. Paths are relative to the
directory you run the command in.

${groups.map((g) => g.join('\n')).join('\n\n')}

Exit codes: 0 conformant (or partial with no failure), 1 not conformant,
            2 harness or configuration error.`;
}

/** The command line as RunFlags; an unknown option or a missing value throws parseArgs' error. */
export function parseCertifyArgs(args: string[]): RunFlags {
  const options = Object.fromEntries(
    Object.entries(CERTIFY_OPTIONS as Record<string, OptionSpec>).map(([name, spec]) => [name, { type: spec.type, ...(spec.short && { short: spec.short }) }]),
  );
  return parseArgs({ args, allowPositionals: false, options }).values as RunFlags;
}

export interface FlagContext {
  /** Where relative paths start: the user's directory (userDirectory()). */
  cwd: string;
  /** The environment the target config's ${VAR}s read. */
  env: NodeJS.ProcessEnv;
  /** Where the bundled reference would listen and keep its database, when no --config is given. */
  reference: { port: number; dir: string; startedBy?: 'certify' | 'webServer' };
  /** A fresh scratch folder for the run. */
  runDir: string;
  /** Requirement IDs of the catalogue, to check --requirements against. */
  knownRequirements: ReadonlySet<string>;
  /** How the run was started (invocation()); a clone's `npm run certify` when not given. */
  invocation?: Invocation;
}

/** A problem with one input of the run, shown with every other one before anything runs. */
export interface InputProblem {
  /** The flag or file it is about: `--shard`, `config /abs/vendor.yaml`. */
  input: string;
  message: string;
}

const positiveInteger = (text: string): number | null => (/^[1-9]\d{0,8}$/.test(text) ? Number(text) : null);

/**
 * The run's settings from the command line and the target config, with every problem found at
 * once (an empty list means the settings are complete). The config is loaded here, so a broken
 * config is reported before anything runs.
 */
export function settingsFromFlags(
  flags: RunFlags,
  ctx: FlagContext,
): { settings: RunSettings | null; problems: InputProblem[]; /** --workers was not given, or was auto: certify chooses. */ autoWorkers: boolean; target?: Target } {
  const problems: InputProblem[] = [];
  const problem = (input: string, message: string) => problems.push({ input, message });
  const path = (p: string) => resolve(ctx.cwd, p);

  let target = referenceTarget(ctx.reference);
  let loaded: Target | undefined;
  const { command: invokedAs, defaultOut } = ctx.invocation ?? invocation({});
  let command = invokedAs;
  let source: TargetSource | null = null;
  if (flags.config !== undefined) {
    source = { kind: 'config', path: path(flags.config) };
    command += ` --config ${source.path}`;
    if (flags['base-url'] !== undefined) problem('--base-url', 'give either --config or --base-url, not both');
  } else if (flags['base-url'] !== undefined) {
    const url = flags['base-url'];
    const missing = BASE_URL_CREDENTIALS.primary.filter((name) => !ctx.env[name]);
    if (!/^https?:\/\/[^/\s]+/.test(url) || !URL.canParse(url)) problem('--base-url', `takes the http(s) URL the interface's paths start from, e.g. https://api.example.com (got ${url})`);
    else if (missing.length > 0) problem('--base-url', `needs the primary client's credentials in the environment: set ${missing.join(' and ')} (a second client is optional: ${BASE_URL_CREDENTIALS.secondary.join(' and ')}); or give a --config`);
    else source = { kind: 'url', baseUrl: url };
    command += ` --base-url ${url}`;
  }
  if (source !== null) {
    target = { source, description: { label: targetOrigin(source), baseUrl: '', profile: 'none' } };
    try {
      loaded = targetOf(source, ctx.env);
      target.description = { label: loaded.label, baseUrl: loaded.baseUrl, profile: loaded.profile };
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      for (const m of e.problems) problem(source.kind === 'config' ? `--config ${source.path}` : '--base-url', m);
    }
  }

  let grep: string | null = null;
  if (flags.grep !== undefined) {
    try {
      new RegExp(flags.grep);
      grep = flags.grep;
    } catch (e) {
      problem('--grep', `${JSON.stringify(flags.grep)} is not a regular expression: ${(e as Error).message}`);
    }
  }
  let requirements: string[] | null = null;
  if (flags.requirements !== undefined) {
    const ids = flags.requirements.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const unknown = ids.filter((id) => !ctx.knownRequirements.has(id));
    if (ids.length === 0) problem('--requirements', 'give requirement IDs separated by commas, e.g. SEND-004,SEND-005');
    else if (unknown.length > 0) problem('--requirements', `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in spec/requirements.yaml`);
    else requirements = [...new Set(ids)];
    if (flags.grep !== undefined) problem('--requirements', 'give either --grep or --requirements, not both');
  }
  let shard: Selection['shard'] = null;
  if (flags.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(flags.shard);
    const [current, total] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
    if (!m || current < 1 || total < 1 || current > total) problem('--shard', `takes I/N with 1 ≤ I ≤ N, e.g. 1/2 (got ${flags.shard})`);
    else shard = { current, total };
  }
  const integer = (flag: 'workers' | 'max-failures' | 'runs' | 'request-timeout', what: string): number | null => {
    const text = flags[flag];
    if (text === undefined) return null;
    const n = positiveInteger(text);
    if (n === null) problem(`--${flag}`, `takes ${what} (got ${text})`);
    return n;
  };
  // Tests that change what others read hold the run's lock exclusively (harness/run-lock.ts), so
  // workers do not see each other's changes. Without the flag, or with `auto`, certify chooses
  // from the time of an exchange with the target (harness/workers.ts); one until then.
  const autoWorkers = flags.workers === undefined || flags.workers === 'auto';
  const workers = autoWorkers ? 1 : integer('workers', 'a positive whole number, or auto') ?? 1;
  if (workers > MAX_WORKERS) problem('--workers', `takes 1 to ${MAX_WORKERS} (got ${workers}): tests that change a number's settings hold it alone, so more workers than shares of numbers mostly wait`);
  if (workers > 1 && loaded?.webhooks.publicUrl !== undefined && !loaded.webhooks.publicUrl.includes('{port}')) {
    problem('--workers', `takes 1 with a webhooks.publicUrl without {port} (got ${workers}): each worker has its own webhook receiver on its own port (listenPort + its index), and a URL without the port reaches one of them`);
  }
  const maxFailures = integer('max-failures', 'a positive whole number');
  const runs = integer('runs', 'a positive whole number of cases per property');
  const requestTimeoutMs = integer('request-timeout', 'milliseconds, a whole number of at least 100');
  if (requestTimeoutMs !== null && requestTimeoutMs < 100) problem('--request-timeout', `takes milliseconds, a whole number of at least 100 (got ${requestTimeoutMs})`);
  let rateLimit: number | null = null;
  if (flags['rate-limit'] !== undefined) {
    if (/^\d+(\.\d+)?$/.test(flags['rate-limit']) && Number(flags['rate-limit']) > 0) rateLimit = Number(flags['rate-limit']);
    else problem('--rate-limit', `takes requests per second, a number above 0 such as 5 or 0.5 (got ${flags['rate-limit']})`);
  }

  let seed: number | null = null;
  if (flags.seed !== undefined) {
    if (/^-?\d+$/.test(flags.seed) && Number.isSafeInteger(Number(flags.seed))) seed = Number(flags.seed);
    else problem('--seed', `takes an integer (got ${flags.seed})`);
  }
  let counterexamplePath: string | null = null;
  if (flags.path !== undefined) {
    if (!/^\d+(:\d+)*$/.test(flags.path)) problem('--path', `takes a fast-check path like 12:0:3 (got ${flags.path})`);
    else if (flags.seed === undefined) problem('--path', 'replays a failure only together with the --seed it was reported with');
    else counterexamplePath = flags.path;
  }

  const settings: RunSettings = {
    format: 1,
    target,
    output: {
      dir: path(flags.out ?? defaultOut),
      quiet: flags.quiet ?? false,
      blobDir: shard !== null ? path(join(flags.out ?? defaultOut, 'blob-report')) : null,
    },
    strict: flags.strict ?? false,
    baseline: flags.baseline !== undefined ? path(flags.baseline) : null,
    property: { depth: flags.deep ? 'deep' : 'quick', runs, seed, path: counterexamplePath, replayPath: flags['replay-path'] ?? null },
    selection: { grep, requirements, shard, maxFailures },
    workers,
    command: `${command}${flags.deep ? ' --deep' : ''}${runs !== null ? ` --runs ${runs}` : ''}`,
    runDir: ctx.runDir,
    sendBudget: null,
    rateLimit,
    requestTimeoutMs,
    // certify sets it from the plan; a bare run checks the round trip whenever the target allows.
    expectsCallbacks: true,
  };
  return { settings: problems.length === 0 ? settings : null, problems, autoWorkers, ...(loaded && { target: withRunOverrides(loaded, settings) }) };
}
