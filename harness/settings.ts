// Every setting of a conformance run, as one typed object. It is built once — by cli/certify.ts
// from the command line and the target config (cli/certify-options.ts), or with the defaults below by a bare
// `npx playwright test` — and flows one way:
//
//   flags + config → RunSettings → playwright.config.ts → `runSettings` option fixture → tests
//                                                      → the reporter's options
//
// The one channel into Playwright's processes is the environment variable CONFORMANCE_SETTINGS,
// holding the object as JSON: the runner and every worker load playwright.config.ts, which
// reads it here. No other module reads process.env for run settings.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadTarget, resolveTarget, type Target } from './config.ts';

export const SETTINGS_ENV = 'CONFORMANCE_SETTINGS';

/** What the report names as certified: no secrets. */
export interface TargetDescription {
  label: string;
  baseUrl: string;
  profile: 'reference' | 'none';
}

/** Where the target comes from. */
export type TargetSource =
  /** A target config file (YAML or JSON, harness/config.schema.json), or a reference fixtures file. */
  | { kind: 'config'; path: string }
  /**
   * A bare --base-url: the clients from BASE_URL_CREDENTIALS in the environment, the routes
   * certify discovered as init does (harness/discovery.ts), every other field at its default.
   */
  | { kind: 'url'; baseUrl: string; routes?: Record<string, unknown> }
  /**
   * The bundled reference server, started fresh for the run (harness/embedded-reference.ts):
   * by certify, beside Playwright's own start, or by playwright.config.ts's webServer when
   * Playwright runs without certify.
   */
  | {
      kind: 'reference';
      port: number;
      dir: string;
      /**
       * The server's entry, from the project's root: the reference's own (reference/main.ts), or
       * one a tool of the project runs that wraps it, with the options it adds (`entryArgs`).
       */
      entry: string;
      entryArgs: string[];
      startedBy: 'certify' | 'webServer';
    };

export type ConformanceDepth = 'quick' | 'deep';

/** Cases per property at each depth (certify --deep for certification); --runs overrides it. */
export const RUNS_BY_DEPTH: Readonly<Record<ConformanceDepth, number>> = { quick: 25, deep: 500 };

/** How property runs go: how many cases, and what replays a reported failure. */
export interface PropertyInput {
  depth: ConformanceDepth;
  /** Cases per property; wins over the depth. */
  runs: number | null;
  seed: number | null;
  /** fast-check's counterexample path of a reported failure (with its seed). */
  path: string | null;
  /** fast-check's replay hint for command scenarios (idempotency). */
  replayPath: string | null;
}

/** What part of the suite runs. Anything but the defaults makes the run partial. */
export interface Selection {
  /** A Playwright --grep pattern. */
  grep: string | null;
  /** Requirement IDs: only the tests tagged with them (instead of a grep). */
  requirements: string[] | null;
  shard: { current: number; total: number } | null;
  /** Stop after this many failed tests (Playwright's maxFailures). */
  maxFailures: number | null;
}

export interface RunSettings {
  format: 1;
  target: { source: TargetSource; description: TargetDescription };
  output: {
    /** report.json, report.html, junit.xml (absolute). */
    dir: string;
    /** Only the report and the summary, no line per test (the kill matrix). */
    quiet: boolean;
    /** Also write a Playwright blob report here, to merge shards later (absolute). */
    blobDir: string | null;
  };
  /** Standard-level failures fail the run. */
  strict: boolean;
  /** Expected-failure baseline file (absolute). */
  baseline: string | null;
  property: PropertyInput;
  selection: Selection;
  workers: number;
  /** The command that repeats this run with other flags, for replay hints in failure reports. */
  command: string;
  /** A scratch folder of this run: what its worker processes share (harness/run-state.ts). */
  runDir: string;
  /** Messages the run needs, from its plan (harness/plan.ts): the send cap when the config sets none. */
  sendBudget: number | null;
  /** Requests per second the whole run keeps to, from --rate-limit; null: the target config's rateLimit, if any. */
  rateLimit: number | null;
  /** How long one exchange may take, from --request-timeout; null: the target config's timeouts.requestMs. */
  requestTimeoutMs: number | null;
  /** Some test of the run waits for callbacks: the preflight checks first that the target reaches the receiver (harness/webhook-round-trip.ts). */
  expectsCallbacks: boolean;
}

export class SettingsError extends Error {
  override name = 'SettingsError';
}

export const DEFAULT_PROPERTY: PropertyInput = { depth: 'quick', runs: null, seed: null, path: null, replayPath: null };
export const NO_SELECTION: Selection = { grep: null, requirements: null, shard: null, maxFailures: null };

export const REFERENCE_LABEL = 'bundled reference server';

/** The reference's own entry, as `npm run serve` runs it, from the project's root. */
export const REFERENCE_ENTRY = 'reference/main.ts';

/** The most workers a run takes (harness/run-lock.ts). */
export const MAX_WORKERS = 4;

/** Settings that certify the bundled reference, with a fresh database in `dir`, on `port`. */
export function referenceSettings(options: { port: number; dir: string; entry?: { path: string; args: string[] }; outDir: string; label?: string; startedBy?: 'certify' | 'webServer' }): RunSettings {
  return {
    format: 1,
    target: referenceTarget(options),
    output: { dir: options.outDir, quiet: false, blobDir: null },
    strict: false,
    baseline: null,
    property: DEFAULT_PROPERTY,
    selection: NO_SELECTION,
    workers: 1,
    command: 'npm run certify --',
    runDir: join(options.dir, 'run'),
    sendBudget: null,
    rateLimit: null,
    requestTimeoutMs: null,
    expectsCallbacks: true,
  };
}

/** The bundled reference as the target of a run: where it listens and keeps its database. */
export function referenceTarget(options: { port: number; dir: string; entry?: { path: string; args: string[] }; label?: string; startedBy?: 'certify' | 'webServer' }): RunSettings['target'] {
  const entry = options.entry ?? { path: REFERENCE_ENTRY, args: [] };
  return {
    source: { kind: 'reference', port: options.port, dir: options.dir, entry: entry.path, entryArgs: entry.args, startedBy: options.startedBy ?? 'webServer' },
    description: { label: options.label ?? REFERENCE_LABEL, baseUrl: `http://127.0.0.1:${options.port}`, profile: 'reference' },
  };
}

/**
 * Whether the harness wrote the target's description itself: the bundled reference, started
 * with the harness's fixtures, webhook hosts and credentials. Then nothing the server answers
 * is a config to fix: what the preflight or a test would stop the run for is the server's
 * failure, for the suites to judge (INTERPRETING.md, The preflight).
 */
export function ownFixtures(source: TargetSource): boolean {
  return source.kind === 'reference';
}

/** The fixtures file the bundled reference writes when it listens (its target description). */
export function referenceFixturesFile(source: Extract<TargetSource, { kind: 'reference' }>): string {
  return join(source.dir, 'fixtures.json');
}

export function referenceDatabase(source: Extract<TargetSource, { kind: 'reference' }>): string {
  return join(source.dir, 'reference.db');
}

/** The target with its credentials, in whichever process needs it (${VAR}s come from the environment). */
export function loadRunTarget(settings: RunSettings, env: NodeJS.ProcessEnv = process.env): Target {
  return withRunOverrides(targetOf(settings.target.source, env), settings);
}

/** The target as the run sees it: what the command line sets wins over the config. */
export function withRunOverrides(target: Target, settings: RunSettings): Target {
  return settings.requestTimeoutMs === null ? target : { ...target, timeouts: { ...target.timeouts, requestMs: settings.requestTimeoutMs } };
}

/** The target a source names, with its credentials (${VAR}s from `env`); a broken config throws ConfigError. */
export function targetOf(source: TargetSource, env: NodeJS.ProcessEnv): Target {
  if (source.kind === 'url') return resolveTarget({ baseUrl: source.baseUrl, ...(source.routes && { routes: source.routes }) }, targetOrigin(source), env);
  return loadTarget(source.kind === 'config' ? source.path : referenceFixturesFile(source), env);
}

/** The target's source as messages name it: the config file, the --base-url, or the bundled reference. */
export function targetOrigin(source: TargetSource): string {
  return source.kind === 'config' ? source.path : source.kind === 'url' ? `--base-url ${source.baseUrl}` : 'the bundled reference';
}

/**
 * With a bare --base-url the clients come from the environment, under the names a config's
 * environment overrides use (harness/config.ts): the primary client's are required, a second
 * client's are optional.
 */
export const BASE_URL_CREDENTIALS = {
  primary: ['CONFORMANCE_PRIMARY_CLIENT_ID', 'CONFORMANCE_PRIMARY_CLIENT_SECRET'],
  secondary: ['CONFORMANCE_SECONDARY_CLIENT_ID', 'CONFORMANCE_SECONDARY_CLIENT_SECRET'],
} as const;

/** The clients' credentials BASE_URL_CREDENTIALS name, where both halves are set (init probes with them). */
export function baseUrlCredentials(env: NodeJS.ProcessEnv = process.env): Partial<Record<'primary' | 'secondary', { clientId: string; clientSecret: string }>> {
  const of = ([id, secret]: readonly [string, string]) => (env[id] && env[secret] ? { clientId: env[id], clientSecret: env[secret] } : undefined);
  const primary = of(BASE_URL_CREDENTIALS.primary);
  const secondary = of(BASE_URL_CREDENTIALS.secondary);
  return { ...(primary && { primary }), ...(secondary && { secondary }) };
}

/** The Playwright grep of the selection: the pattern, or the requirement list as tags (one or the other). */
export function grepOf(selection: Selection): RegExp | null {
  if (selection.grep !== null) return new RegExp(selection.grep);
  if (selection.requirements !== null) return new RegExp(`@(?:${selection.requirements.join('|')})\\b`);
  return null;
}

/** What makes this run cover less than the whole suite, for the report; empty for a full run. */
export function selectionFilters(selection: Selection): string[] {
  return [
    ...(selection.grep !== null ? [`grep ${selection.grep}`] : []),
    ...(selection.requirements !== null ? [`requirements ${selection.requirements.join(',')}`] : []),
    ...(selection.shard !== null ? [`shard ${selection.shard.current}/${selection.shard.total}`] : []),
  ];
}

// ---- the channel ------------------------------------------------------------------------------

// validateSchema off: checking the schema against the 2020-12 meta-schema costs every process
// ~40 ms; test/spec/schemas-meta.test.ts checks it once instead.
const ajv = new Ajv2020({ allErrors: true, validateSchema: false });
const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
/** The shape of the serialised settings (exported for test/spec/schemas-meta.test.ts). */
export const SETTINGS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'target', 'output', 'strict', 'baseline', 'property', 'selection', 'workers', 'command', 'runDir', 'sendBudget', 'rateLimit', 'requestTimeoutMs', 'expectsCallbacks'],
  properties: {
    format: { const: 1 },
    target: {
      type: 'object',
      additionalProperties: false,
      required: ['source', 'description'],
      properties: {
        source: {
          oneOf: [
            { type: 'object', additionalProperties: false, required: ['kind', 'path'], properties: { kind: { const: 'config' }, path: { type: 'string' } } },
            { type: 'object', additionalProperties: false, required: ['kind', 'baseUrl'], properties: { kind: { const: 'url' }, baseUrl: { type: 'string' }, routes: { type: 'object' } } },
            {
              type: 'object',
              additionalProperties: false,
              required: ['kind', 'port', 'dir', 'entry', 'entryArgs', 'startedBy'],
              properties: {
                kind: { const: 'reference' },
                port: { type: 'integer', minimum: 1, maximum: 65535 },
                dir: { type: 'string' },
                entry: { type: 'string', minLength: 1 },
                entryArgs: { type: 'array', items: { type: 'string' } },
                startedBy: { enum: ['certify', 'webServer'] },
              },
            },
          ],
        },
        description: {
          type: 'object',
          additionalProperties: false,
          required: ['label', 'baseUrl', 'profile'],
          properties: { label: { type: 'string' }, baseUrl: { type: 'string' }, profile: { enum: ['reference', 'none'] } },
        },
      },
    },
    output: {
      type: 'object',
      additionalProperties: false,
      required: ['dir', 'quiet', 'blobDir'],
      properties: { dir: { type: 'string' }, quiet: { type: 'boolean' }, blobDir: nullable({ type: 'string' }) },
    },
    strict: { type: 'boolean' },
    baseline: nullable({ type: 'string' }),
    property: {
      type: 'object',
      additionalProperties: false,
      required: ['depth', 'runs', 'seed', 'path', 'replayPath'],
      properties: {
        depth: { enum: ['quick', 'deep'] },
        runs: nullable({ type: 'integer', minimum: 1 }),
        seed: nullable({ type: 'integer' }),
        path: nullable({ type: 'string', pattern: '^\\d+(:\\d+)*$' }),
        replayPath: nullable({ type: 'string' }),
      },
    },
    selection: {
      type: 'object',
      additionalProperties: false,
      required: ['grep', 'requirements', 'shard', 'maxFailures'],
      properties: {
        grep: nullable({ type: 'string' }),
        requirements: nullable({ type: 'array', items: { type: 'string' }, minItems: 1 }),
        shard: nullable({
          type: 'object',
          additionalProperties: false,
          required: ['current', 'total'],
          properties: { current: { type: 'integer', minimum: 1 }, total: { type: 'integer', minimum: 1 } },
        }),
        maxFailures: nullable({ type: 'integer', minimum: 1 }),
      },
    },
    workers: { type: 'integer', minimum: 1 },
    command: { type: 'string' },
    runDir: { type: 'string' },
    sendBudget: nullable({ type: 'integer', minimum: 1 }),
    rateLimit: nullable({ type: 'number', exclusiveMinimum: 0 }),
    requestTimeoutMs: nullable({ type: 'integer', minimum: 100 }),
    expectsCallbacks: { type: 'boolean' },
  },
};
const validateSettings = ajv.compile(SETTINGS_SCHEMA);

export function encodeSettings(settings: RunSettings): string {
  return JSON.stringify(settings);
}

export function decodeSettings(text: string, from = SETTINGS_ENV): RunSettings {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SettingsError(`${from} is not JSON; it is written by npm run certify (leave it unset for a bare run)`);
  }
  if (!validateSettings(value)) {
    const problems = (validateSettings.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new SettingsError(`${from} is not a run settings object: ${problems.join('; ')}`);
  }
  return value as unknown as RunSettings;
}

let current: RunSettings | undefined;

/**
 * The settings of the run this process belongs to. Set by `npm run certify` through the
 * channel; a bare `npx playwright test` gets the defaults (the bundled reference, fresh), which
 * the runner then puts in the channel so its workers agree with it.
 */
export function runSettings(env: NodeJS.ProcessEnv = process.env): RunSettings {
  if (current) return current;
  const text = env[SETTINGS_ENV];
  if (text !== undefined && text !== '') {
    current = decodeSettings(text);
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'conformance-'));
    current = referenceSettings({ port: 20_000 + (process.pid % 30_000), dir, outDir: resolve(REPO_ROOT, 'reports', 'out') });
    env[SETTINGS_ENV] = encodeSettings(current);
  }
  return current;
}

/** The repository root: this file lives in <root>/harness/. */
export const REPO_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/**
 * Where the person running a command stands: npm runs scripts in the package root and says
 * where it was started in INIT_CWD, so `cd examples && npm run certify -- --config vendor.yaml`
 * means examples/vendor.yaml.
 */
export function userDirectory(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const init = env.INIT_CWD;
  return init && isAbsolute(init) ? init : cwd;
}

/** The environment variable the installed command (cli/bin.js) sets to its name. */
export const INVOKED_AS_ENV = 'CONFORMANCE_INVOKED_AS';

/** How the person started the run, which decides the command in replay hints and where reports go by default. */
export interface Invocation {
  /** The certify command to repeat the run with: `npm run certify --` or `messaging-conformance certify`. */
  command: string;
  /** The init command, the same way: `npm run init --` or `messaging-conformance init`. */
  init: string;
  /** The report directory when --out is not given, relative to the user's directory. */
  defaultOut: string;
  /** How help texts name that directory: `reports/out of the harness` or `./conformance-report`. */
  defaultOutShown: string;
}

/**
 * `npm run certify` in a clone writes its reports under the harness (reports/out); the installed
 * command writes them where the user stands (./conformance-report), never inside the package.
 */
export function invocation(env: NodeJS.ProcessEnv = process.env): Invocation {
  const bin = env[INVOKED_AS_ENV];
  return bin
    ? { command: `${bin} certify`, init: `${bin} init`, defaultOut: 'conformance-report', defaultOutShown: './conformance-report' }
    : { command: 'npm run certify --', init: 'npm run init --', defaultOut: join(REPO_ROOT, 'reports', 'out'), defaultOutShown: 'reports/out of the harness' };
}

/** The config files certify uses when neither --config nor --base-url is given, in this order. */
export const CONFIG_FILE_NAMES = ['conformance.yaml', 'conformance.yml', 'conformance.json'] as const;

/** The first of CONFIG_FILE_NAMES in `dir` (absolute), or null when there is none. */
export function configIn(dir: string): string | null {
  for (const name of CONFIG_FILE_NAMES) {
    const file = join(dir, name);
    if (existsSync(file)) return file;
  }
  return null;
}
