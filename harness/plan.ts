// What a run will do, before anything is sent: which tests run for this target's level and
// profile (with the requirements each serves), which requirements will be "not testable here"
// and why, which number settings tests change and restore, which triggers they use, and how
// many messages the run needs against the send cap. `certify --dry-run` prints it; `certify`
// checks the send cap against it before running. The reasons a requirement is not testable
// come from one function (`unmetNeeds`), which the fixtures use at run time too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCheckable, type Catalogue, type Requirement } from './catalogue.ts';
import { CAPABILITIES, type Capability, type Target } from './config.ts';
import { REPO_ROOT, RUNS_BY_DEPTH, type RunSettings } from './settings.ts';

// ---- what a target supplies, and what a requirement needs -------------------------------------

/** Which fixtures and triggers a target config supplies, by the names the catalogue's `needs` use. */
export function suppliedBy(target: Target): Set<string> {
  const supplied = new Set<string>(['webhookReceiver', 'numberWithoutCampaign']);
  if (target.clients.secondary) supplied.add('secondClient');
  if (target.clients.special) supplied.add('specialCharsClient');
  if (target.webhooks.secret) supplied.add('webhookSecret');
  if (target.webhooks.finalStatuses) supplied.add('finalStatuses');
  if (target.routes.assignedCount) supplied.add('assignedCount');
  // An MMS-capable number is discovered at run time when not configured.
  supplied.add('mmsNumber');
  for (const capability of CAPABILITIES) if (target.triggers[capability]) supplied.add(capability);
  // Only the control plane makes the upstream stall (SEARCH-203).
  if (target.triggers.upstreamFailure?.kind === 'control') supplied.add('upstreamStall');
  // Only a token waited out shows how long it lived (TOKEN-011): the control plane expires tokens at once.
  if (target.triggers.expireToken?.kind === 'wait') supplied.add('tokenLifetime');
  return supplied;
}

/** The catalogue's trigger names (`needs`), and the config field that declares each, with the kinds that reach it. */
const TRIGGER_FIELDS: Record<Capability | 'upstreamStall' | 'tokenLifetime', string> = {
  upstreamFailure: 'triggers.upstreamFailure (kind request: searches your sandbox answers as an upstream failure; or control)',
  upstreamStall: 'triggers.upstreamFailure to kind control (only the control plane makes the upstream stall)',
  tokenLifetime: 'triggers.expireToken to kind wait (a client whose tokens live briefly: only a token waited out shows how long it lived; the control plane expires tokens at once)',
  expireToken: 'triggers.expireToken (kind wait: a client whose tokens live briefly; or control)',
  clientWebhooks: "triggers.clientWebhooks (kind declared: the primary client's webhooks point at the harness's run receiver; or control)",
  inbound: "triggers.inbound (kind loopback: a send to another of the client's own numbers arrives as inbound traffic; or control)",
  failedDelivery: 'triggers.failedDelivery (kind request: recipients whose messages end FAILED)',
  clientStatus: 'triggers.clientStatus to kind control (the test-control plane suspends a client and makes it ACTIVE again)',
};

/** How the report names the way a capability was reached: "upstreamFailure: request". */
export function reachedBy(capability: Capability, kind: string): string {
  return `${capability}: ${kind}`;
}

/** Why a requirement that needs `need` is not testable on a target without it; the fixtures say the same. */
export function reasonFor(need: string): string {
  const field = TRIGGER_FIELDS[need as keyof typeof TRIGGER_FIELDS];
  if (field) return `needs a trigger the target does not declare: set ${field}`;
  const what: Record<string, string> = {
    secondClient: 'a second client of the same target (clients.secondary in the target config)',
    specialCharsClient: "a client whose id or secret contains ':' or '+' (clients.special in the target config)",
    webhookSecret: "the client's webhook signing secret (webhooks.secret in the target config)",
    finalStatuses: 'the status values of a final outcome in your delivery events (webhooks.finalStatuses in the target config)',
    assignedCount: "the member of the client context's assignedNumbers that counts the client's numbers (routes.whoami.assignedCount in the target config)",
  };
  return `needs ${what[need] ?? need}`;
}

/** The needs of a requirement the target does not supply, each with its reason. */
export function unmetNeeds(requirement: Requirement, supplied: ReadonlySet<string>): Array<{ need: string; reason: string }> {
  return (requirement.needs ?? []).filter((n) => !supplied.has(n)).map((need) => ({ need, reason: reasonFor(need) }));
}

// ---- the tests of a run -----------------------------------------------------------------------

/** A test as `playwright test --list --reporter=json` names it. */
export interface ListedTest {
  /** Relative to suites/. */
  file: string;
  line: number;
  title: string;
  /** Requirement IDs, without the @. */
  requirements: string[];
}

interface ListJson {
  suites?: ListJson[];
  specs?: Array<{ title: string; file: string; line: number; tags?: string[] }>;
}

/** The tests of a Playwright JSON listing, in order. */
export function testsOfList(json: unknown): ListedTest[] {
  const tests: ListedTest[] = [];
  const walk = (suite: ListJson) => {
    for (const spec of suite.specs ?? []) {
      tests.push({ file: spec.file, line: spec.line, title: spec.title, requirements: (spec.tags ?? []).map((t) => t.replace(/^@/, '')) });
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  walk(json as ListJson);
  return tests;
}

const SUITES_DIR = join(REPO_ROOT, 'suites');

/** The fixtures a test's function asks for, read from its declaration: what it will touch. */
function fixturesOf(test: ListedTest): Set<string> {
  try {
    const lines = readFileSync(join(SUITES_DIR, test.file), 'utf8').split('\n').slice(test.line - 1, test.line + 3).join(' ');
    const m = /async\s*\(\s*\{([^}]*)\}/.exec(lines);
    return new Set((m?.[1] ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  } catch {
    return new Set();
  }
}

// ---- sends --------------------------------------------------------------------------------------

/** Messages each test sends: [per test, per property case], by file (relative to suites/) and title. */
export interface SendBudget {
  about: string;
  measuredWith: { runs: number[] };
  files: Record<string, Record<string, [number, number]>>;
}

export const SEND_BUDGET_FILE = fileURLToPath(new URL('./send-budget.json', import.meta.url));

export function loadSendBudget(file = SEND_BUDGET_FILE): SendBudget {
  return JSON.parse(readFileSync(file, 'utf8')) as SendBudget;
}

/** The table as the file keeps it: one line per test, so a change reads as a change. */
export function formatSendBudget(budget: SendBudget): string {
  const about = 'Messages each test sends against the bundled reference: [per test, per property case]. Measured from two complete runs by npm run send-budget; a test not listed counts as the most of its file. harness/plan.ts sizes a run\'s send cap from it.';
  const files = Object.entries(budget.files)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, tests]) => `    ${JSON.stringify(file)}: {\n${Object.entries(tests).map(([t, v]) => `      ${JSON.stringify(t)}: ${JSON.stringify(v)}`).join(',\n')}\n    }`);
  return `{\n  "about": ${JSON.stringify(budget.about || about)},\n  "measuredWith": ${JSON.stringify(budget.measuredWith)},\n  "files": {\n${files.join(',\n')}\n  }\n}\n`;
}

/** Room above the measured sends: scenarios are drawn at random, and a failing property shrinks. */
export const SEND_MARGIN = 1.25;

/** Messages one test sends with `runs` cases per property (a test the table lacks: the most of its file). */
export function sendsOf(test: ListedTest, runs: number, budget: SendBudget): number {
  const file = budget.files[test.file];
  const [fixed, perCase] = file?.[test.title] ?? (file ? maxOf(Object.values(file)) : [0, 0]);
  return fixed + perCase * runs;
}

function maxOf(entries: Array<[number, number]>): [number, number] {
  return entries.reduce<[number, number]>(([f, p], [f2, p2]) => [Math.max(f, f2), Math.max(p, p2)], [0, 0]);
}

/** What a run of these tests needs against the send cap, with room to spare, rounded up to 50. */
export function sendsNeeded(tests: readonly ListedTest[], runs: number, budget: SendBudget): number {
  const total = tests.reduce((n, t) => n + sendsOf(t, runs, budget), 0);
  return Math.max(50, Math.ceil((total * SEND_MARGIN) / 50) * 50);
}

/** Cases per property for these settings. */
export function runsOf(settings: RunSettings): number {
  return settings.property.runs ?? RUNS_BY_DEPTH[settings.property.depth];
}

// ---- the plan -----------------------------------------------------------------------------------

export interface PlannedTest extends ListedTest {
  /** Changes number settings through the `settings` fixture, and restores them after the test. */
  changesSettings: boolean;
  /** Expects callbacks on the harness's webhook receiver. */
  receivesWebhooks: boolean;
  /** The triggers its requirements need that the target declares, as "capability: kind". */
  triggers: string[];
  sends: number;
}

export interface Plan {
  /** Tests that run for this target's level and profile. */
  tests: PlannedTest[];
  /** Tests of the profile the target does not declare: not run. */
  profileTests: number;
  /** Requirements reported "not testable here" with this config, and why (the run reports the same). */
  notTestable: Array<{ id: string; reasons: string[] }>;
  /** Messages the run needs (with room to spare), and the cap it will run under. */
  sendsNeeded: number;
  runs: number;
}

export function planOf(tests: readonly ListedTest[], target: Target, catalogue: Catalogue, settings: RunSettings, budget = loadSendBudget()): Plan {
  const byId = new Map(catalogue.requirements.map((r) => [r.id, r]));
  const declaresProfile = target.profile === catalogue.profile;
  const isProfileOnly = (t: ListedTest) => t.requirements.length > 0 && t.requirements.every((id) => byId.get(id)?.level === 'profile');
  const running = tests.filter((t) => declaresProfile || !isProfileOnly(t));
  const runs = runsOf(settings);
  const supplied = suppliedBy(target);

  const planned = running.map((t): PlannedTest => {
    const fixtures = fixturesOf(t);
    const needs = new Set(t.requirements.flatMap((id) => byId.get(id)?.needs ?? []));
    return {
      ...t,
      changesSettings: fixtures.has('settings'),
      receivesWebhooks: fixtures.has('webhooks') || needs.has('webhookReceiver'),
      triggers: CAPABILITIES.filter((c) => (needs.has(c) || (c === 'upstreamFailure' && needs.has('upstreamStall')) || (c === 'expireToken' && needs.has('tokenLifetime'))) && supplied.has(c)).map((c) => reachedBy(c, target.triggers[c]!.kind)),
      sends: sendsOf(t, runs, budget),
    };
  });
  const inRun = new Set(running.flatMap((t) => t.requirements));
  const notTestable = catalogue.requirements
    .filter((r) => inRun.has(r.id) && isCheckable(r) && !r.withdrawn && (r.level !== 'profile' || declaresProfile))
    .map((r) => ({ id: r.id, reasons: unmetNeeds(r, supplied).map((u) => u.reason) }))
    .filter((r) => r.reasons.length > 0);
  return { tests: planned, profileTests: tests.length - running.length, notTestable, sendsNeeded: sendsNeeded(running, runs, budget), runs };
}
