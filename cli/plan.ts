// The plan of a run, as certify uses it: list the tests the settings select (Playwright's own
// listing, nothing sent), size the send budget, and, for --dry-run, tell a person about to
// point this at production what will happen.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { loadCatalogue } from '../harness/catalogue.ts';
import type { ClientWebhookKind, Target } from '../harness/config.ts';
import { planOf, testsOfList, type ListedTest, type Plan } from '../harness/plan.ts';
import { outOfReach } from '../harness/config-snippets.ts';
import { clientWebhookUrl } from '../harness/run-receiver.ts';
import { encodeSettings, grepOf, REPO_ROOT, SETTINGS_ENV, type RunSettings } from '../harness/settings.ts';
import { PLAYWRIGHT_CLI, PLAYWRIGHT_NODE_ARGS } from './playwright-cli.ts';

/**
 * Listings kept between runs. Playwright lists by loading every test file (about 2.5 s here), and
 * the same harness files with the same selection list the same tests, so a listing is kept under
 * a hash of everything it depends on: the files the suites load, Playwright's version, the
 * selection. A changed file, filter or version is a new key; an unreadable entry is listed again.
 */
export const LISTING_CACHE_DIR = join(tmpdir(), `messaging-conformance-${process.getuid?.() ?? 'user'}`, 'listings');
const LISTED_FROM = ['suites', 'harness', 'generators', 'spec', 'reports', 'playwright.config.ts', 'package.json', 'tsconfig.json'];
const LISTINGS_KEPT = 32;

/** The key of a listing: what the suites load, with which Playwright, filtered how. */
export function listingKey(settings: RunSettings): string {
  const hash = createHash('sha256');
  const playwrightPackage = join(dirname(PLAYWRIGHT_CLI), 'package.json');
  hash.update(JSON.stringify({ grep: grepOf(settings.selection)?.source ?? null, shard: settings.selection.shard, node: process.version }));
  for (const file of [playwrightPackage, ...filesUnder(LISTED_FROM.map((f) => join(REPO_ROOT, f)))]) {
    hash.update(relative(REPO_ROOT, file));
    hash.update(readFileSync(file));
  }
  return hash.digest('hex');
}

function filesUnder(paths: string[]): string[] {
  const files: string[] = [];
  for (const path of paths) {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      continue;
    }
    if (stat.isFile()) files.push(path);
    else if (stat.isDirectory() && path !== join(REPO_ROOT, 'reports', 'out')) {
      files.push(...filesUnder(readdirSync(path).sort().map((name) => join(path, name))));
    }
  }
  return files;
}

/** The tests a run with these settings would run (filters applied), or why they could not be listed. */
export function listTests(settings: RunSettings, env: NodeJS.ProcessEnv, cacheDir: string | null = LISTING_CACHE_DIR): { tests: ListedTest[] } | { error: string } {
  const key = cacheDir === null ? null : listingKey(settings);
  const entry = key === null ? null : join(cacheDir!, `${key}.json`);
  if (entry !== null) {
    try {
      const kept = JSON.parse(readFileSync(entry, 'utf8')) as { tests?: unknown };
      if (Array.isArray(kept.tests)) return { tests: kept.tests as ListedTest[] };
    } catch {
      // not kept yet, or unreadable: list again
    }
  }
  const listing = listWithPlaywright(settings, env);
  if (entry !== null && 'tests' in listing) keep(entry, listing.tests);
  return listing;
}

function keep(entry: string, tests: ListedTest[]): void {
  try {
    const dir = dirname(entry);
    mkdirSync(dir, { recursive: true });
    const partial = `${entry}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify({ tests }));
    renameSync(partial, entry);
    const kept = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs }));
    for (const { f } of kept.sort((a, b) => b.at - a.at).slice(LISTINGS_KEPT)) rmSync(join(dir, f), { force: true });
  } catch {
    // a cache that cannot be written only means the next run lists again
  }
}

function listWithPlaywright(settings: RunSettings, env: NodeJS.ProcessEnv): { tests: ListedTest[] } | { error: string } {
  const listed = spawnSync(process.execPath, [...PLAYWRIGHT_NODE_ARGS, 'test', '--list', '--reporter=json', '-c', 'playwright.config.ts'], {
    cwd: REPO_ROOT,
    env: { ...env, [SETTINGS_ENV]: encodeSettings(settings) },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  let json: { errors?: Array<{ message?: string }> };
  try {
    json = JSON.parse(listed.stdout) as typeof json;
  } catch {
    return { error: `the suites could not be listed: ${(listed.stderr || listed.stdout).trim().split('\n').slice(0, 5).join(' | ')}` };
  }
  const errors = (json.errors ?? []).map((e) => e.message ?? '').filter((m) => !/^(Error: )?No tests found/.test(m));
  if (errors.length > 0) return { error: `the suites could not be listed: ${errors.join(' | ')}` };
  return { tests: testsOfList(json) };
}

export function planFor(settings: RunSettings, target: Target, tests: readonly ListedTest[]): Plan {
  return planOf(tests, target, loadCatalogue(), settings);
}

/** Where the declared client webhooks must point, and what the secondary client is declared to have. */
function declaredClientWebhooks(target: Target, secondary: readonly ClientWebhookKind[] | undefined): string {
  const primary = `Client webhooks (declared): the primary client's must point at ${clientWebhookUrl(target, 'primary', 'delivery')} and ${clientWebhookUrl(target, 'primary', 'inbound')}, where the run's receiver listens`;
  if (secondary === undefined || !target.clients.secondary) return `${primary}.`;
  const has = secondary.length === 0 ? 'none' : secondary.length === 1 ? `a ${secondary[0]} webhook only` : 'both';
  return `${primary}; the secondary client is declared to have ${has} (CTX-003 checks its flags against that).`;
}

/** The dry run's text. */
export function renderPlan(plan: Plan, settings: RunSettings, target: Target): string[] {
  const { source, description } = settings.target;
  const lines = [
    `Target: ${description.label} (${description.baseUrl})${source.kind === 'reference' ? ', started fresh with its control plane' : ''}`,
    `Levels: document, standard${target.profile === 'reference' ? ', profile' : ` (profile-level checks are not run: the target does not declare profile: reference; ${plan.profileTests} tests)`}`,
    `Clients: primary${target.clients.secondary ? ', secondary' : ''}${target.clients.special ? ', special' : ''}`,
    `Filters: ${[settings.selection.grep && `grep ${settings.selection.grep}`, settings.selection.requirements && `requirements ${settings.selection.requirements.join(',')}`, settings.selection.shard && `shard ${settings.selection.shard.current}/${settings.selection.shard.total}`].filter(Boolean).join(', ') || 'none (the whole suite)'}`,
    '',
    `Tests that will run (${plan.tests.length}), each with where it is declared; ⚙ changes number settings and restores them, ↩ expects webhook callbacks:`,
  ];
  let file = '';
  for (const t of plan.tests) {
    if (t.file !== file) lines.push(`  ${(file = t.file)}`);
    const marks = `${t.changesSettings ? '⚙' : ' '}${t.receivesWebhooks ? '↩' : ' '}`;
    const extra = [t.triggers.length ? `triggers: ${t.triggers.join(', ')}` : '', t.sends > 0 ? `~${Math.ceil(t.sends)} sends` : ''].filter(Boolean).join('; ');
    lines.push(`    ${marks} ${t.requirements.join(',').padEnd(11)} ${t.title}${extra ? `  (${extra})` : ''}  suites/${t.file}:${t.line}`);
  }
  const settingsTests = plan.tests.filter((t) => t.changesSettings).length;
  const triggers = [...new Set(plan.tests.flatMap((t) => t.triggers))];
  const cap = target.sendCap;
  lines.push(
    '',
    `Number settings: ${settingsTests} tests change campaignregId, smsEnabled, mmsEnabled, webhookInboundOverride or webhookDeliveryOverride of the primary client's numbers (numbers.sms / numbers.mms, else the ones the list shows) and put every changed field back after each test, pass or fail.`,
    `Triggers used: ${triggers.length ? triggers.join(', ') : 'none'}${triggers.some((t) => t.endsWith(': control')) ? ` (control plane at ${target.hooks.controlUrl})` : ''}`,
    `Webhooks: ${plan.tests.some((t) => t.receivesWebhooks) ? `the target calls the harness's receiver at ${target.webhooks.publicUrl ?? `http://${target.webhooks.listenHost}:${target.webhooks.listenPort || '<a free port>'}`}` : 'none expected'}`,
    ...(target.triggers.clientWebhooks?.kind === 'declared' ? [declaredClientWebhooks(target, target.triggers.clientWebhooks.secondary)] : []),
    `Sends: about ${plan.sendsNeeded} (${plan.runs} cases per property, with room to spare), only to recipients matching ${target.recipients.allowPattern}; ` +
      (cap === null ? `sendCap is not set: the run may send ${plan.sendsNeeded}.` : cap >= plan.sendsNeeded ? `sendCap ${cap} is enough.` : `sendCap ${cap} is too low: set sendCap to at least ${plan.sendsNeeded}.`),
    '',
    `Not testable here with this config (${plan.notTestable.length}; a trigger named below would reach it):`,
    ...plan.notTestable.map((r) => `  ${r.id.padEnd(11)} ${r.reasons.join('; ')}`),
    '  (a test may also find at run time that the target lacks data it needs, such as a number with a campaignregId)',
  );
  // each snippet once, with every requirement it would reach
  const reach = new Map<string, string[]>();
  for (const g of outOfReach(plan.notTestable)) if (g.snippet) reach.set(g.snippet.join('\n'), [...new Set([...(reach.get(g.snippet.join('\n')) ?? []), ...g.ids])]);
  if (reach.size > 0) {
    lines.push('', 'What would reach them, in the target config:');
    for (const [snippet, ids] of reach) lines.push(`  for ${ids.join(', ')}:`, ...snippet.split('\n').map((l) => `    ${l}`));
  }
  return lines;
}
