// messaging-conformance init --base-url URL [--out conformance.yaml] [--force]
//
// Discovers what it can of a target's answers to the document's open choices and writes a
// commented target config, marking each choice it could not discover. It sends no message and
// changes no setting: it obtains a token (as the preflight does, in each request style the
// document allows), reads the client context and the numbers list, runs an empty search, and
// learns the update route's method from an Allow header or by writing a number's own settings
// back to it (restoring whatever that changed): harness/discovery.ts, which certify --base-url
// runs too. Every trigger and the webhook secret are written as commented stubs to fill in
// (harness/config-snippets.ts). The clients' credentials come from the environment, as for
// certify --base-url.
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCatalogue } from '../harness/catalogue.ts';
import { commentedTriggerStubs } from '../harness/config-snippets.ts';
import { discover, DiscoveryError, type Discovery, type Route } from '../harness/discovery.ts';
import { BASE_URL_CREDENTIALS, baseUrlCredentials, invocation, userDirectory } from '../harness/settings.ts';
import { exitWith, runIfEntry, type Command, type ExitCode } from './command.ts';

const USAGE = `Usage: messaging-conformance init --base-url URL [--out FILE] [--force]

Probes the target at URL without sending a message or changing a setting, and writes a
commented target config (default ./conformance.yaml) with what it found; each open choice it
could not discover is marked OPEN, and every trigger and the webhook secret are commented
stubs to fill in. Credentials: ${BASE_URL_CREDENTIALS.primary.join(' and ')} in
the environment (a second client, optional: ${BASE_URL_CREDENTIALS.secondary.join(' and ')}).`;

function fail(message: string): never {
  process.stderr.write(`init: ${message}\n`);
  exitWith(2);
}

/** The `init` command: its arguments to its exit code (cli/command.ts). */
export async function init(argv: readonly string[]): Promise<ExitCode> {
  let values: { 'base-url'?: string; out?: string; force?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({ args: [...argv], options: { 'base-url': { type: 'string' }, out: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (e) {
    fail(`${(e as Error).message}\n\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const baseUrl = (values['base-url'] ?? fail(`--base-url is required\n\n${USAGE}`)).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/\s]+/.test(baseUrl) || !URL.canParse(baseUrl)) fail(`--base-url takes an http(s) URL (got ${baseUrl})`);
  const credentials = baseUrlCredentials();
  if (!credentials.primary) fail(`needs the primary client's credentials in the environment: set ${BASE_URL_CREDENTIALS.primary.join(' and ')}`);
  const out = resolve(userDirectory(), values.out ?? 'conformance.yaml');
  if (existsSync(out) && !values.force) fail(`${out} exists: give --force to replace it, or --out another file`);

  let found: Discovery;
  try {
    found = await discover(baseUrl, credentials.primary);
  } catch (e) {
    if (e instanceof DiscoveryError) fail(e.message);
    throw e;
  }
  const { whoami, numbers, search, update } = found;
  const discovered: string[] = [];
  const open: string[] = [];

  // ---- the config -------------------------------------------------------------------------------
  const catalogue = loadCatalogue();
  /** The requirements that need `need` (the catalogue's needs), for the comment beside its stub. */
  const needing = (need: string) => catalogue.requirements.filter((r) => !r.withdrawn && (r.needs ?? []).includes(need)).map((r) => r.id).join(', ');
  const route = (r: { method: string; path: string }, extra = '') => `{ method: ${r.method}, path: ${JSON.stringify(r.path)}${extra} }`;
  const lines = [
    '# yaml-language-server: $schema=node_modules/messaging-conformance/harness/config.schema.json',
    `# Written by messaging-conformance init against ${baseUrl}.`,
    '# Secrets are read from the environment (${VAR}), never from this file. Lines marked OPEN are',
    '# open choices init could not discover: set them, or the requirements that need them are',
    '# reported not testable here (certify --dry-run lists them).',
    `label: ${JSON.stringify(new URL(baseUrl).host)}`,
    `baseUrl: ${baseUrl}`,
    '# profile: reference             # only if the target implements the reference profile (spec/profile.yaml)',
    'clients:',
    '  primary:',
    `    clientId: \${${BASE_URL_CREDENTIALS.primary[0]}}`,
    `    clientSecret: \${${BASE_URL_CREDENTIALS.primary[1]}}`,
    `    # webhookSecret: \${CONFORMANCE_WEBHOOK_SECRET}   # its webhook signing secret (whsec_…), to check callback signatures (${needing('webhookSecret')}); the variable alone is enough too`,
    ...(credentials.secondary
      ? ['  secondary:', `    clientId: \${${BASE_URL_CREDENTIALS.secondary[0]}}`, `    clientSecret: \${${BASE_URL_CREDENTIALS.secondary[1]}}`]
      : ['  # OPEN: a second client (ownership checks): clients.secondary { clientId, clientSecret }']),
    `# a token was obtained with the credentials in a ${found.tokenBy}`,
    'routes:',
  ];
  /** `, assignedCount: member` for the one member of assignedNumbers whose value is the numbers list's length, else nothing. */
  function assignedCountOf(context: typeof whoami, list: typeof numbers): string {
    const matching = context && list ? Object.entries(context.counts).filter(([, value]) => value === list.numbers.length) : [];
    return matching.length === 1 ? `, assignedCount: ${JSON.stringify(matching[0]![0])}` : '';
  }
  const routeLine = (name: string, r: Route | null, how: string, extra = '') => {
    if (r) {
      discovered.push(name);
      return `  ${name}: ${route(r, extra)}   # found: ${how}`;
    }
    open.push(`routes.${name}`);
    // Left as the value OPEN, which certify refuses until it is set: a guessed route would be blamed on the target.
    return `  ${name}: OPEN   # not found (${how}): set { method: …, path: … }`;
  };
  lines.push(
    routeLine('whoami', whoami, 'GET answered 200 with apiClientId', assignedCountOf(whoami, numbers)),
    routeLine('numbers', numbers, 'an array of objects with a numberId string', numbers ? `, itemsPath: ${numbers.itemsPath === null ? 'null' : JSON.stringify(numbers.itemsPath)}` : ''),
    routeLine('search', search, 'POST of an empty search answered in JSON'),
    routeLine('update', update, update?.how ?? 'no Allow header, and no method took the number\'s own settings'),
  );
  // The member of assignedNumbers that counts the client's numbers (CTX-005), not shown by the
  // document: the one member whose value is the list's length; with none or several, left OPEN.
  if (whoami && numbers) {
    const matching = Object.entries(whoami.counts).filter(([, value]) => value === numbers.numbers.length).map(([member]) => member);
    if (matching.length !== 1) {
      lines.push(`# OPEN: routes.whoami.assignedCount: the member of assignedNumbers that counts the client's numbers (${needing('assignedCount')}); ${matching.length === 0 ? 'none' : `each of ${matching.join(', ')}`} equals the list's length (${numbers.numbers.length})`);
    }
  }
  if (numbers) {
    const withCampaign = numbers.numbers.filter((n) => typeof n.campaignregId === 'string' && n.campaignregId !== '');
    lines.push(
      `# numbers of the primary client: ${numbers.numbers.length}; with a campaignregId: ${withCampaign.length}; MMS-enabled with one: ${withCampaign.filter((n) => n.mmsEnabled === true).length}`,
      '# (the run picks its numbers from the list; numbers: { sms, mms } names them instead)',
      // Every number found, as a pool to spread across --workers: commented, since a vendor may keep some out of the run.
      `# numbers: { pool: { primary: [${numbers.numbers.map((n) => JSON.stringify(n.numberId)).join(', ')}] } }   # a pool: the run spreads it across its workers (README, Workers)`,
    );
  }
  /** The stubs, with the final statuses of delivery events commented into their webhooks block. */
  function withFinalStatuses(stubs: string[]): string[] {
    const at = stubs.indexOf('# webhooks:');
    const line = `#   finalStatuses: [DELIVERED, FAILED]   # the status values your delivery events give a final outcome (${needing('finalStatuses')})`;
    return at < 0 ? [...stubs, '# webhooks:', line] : [...stubs.slice(0, at + 1), line, ...stubs.slice(at + 1)];
  }
  lines.push(
    '# OPEN: webhooks.publicUrl: where the target can reach this machine; without it the webhook requirements are not testable here',
    '# OPEN: hooks: { controlUrl, offers } if the target offers test-control hooks (reference/README.md)',
    ...withFinalStatuses(commentedTriggerStubs((capability) => [
      ...needing(capability).split(', ').filter(Boolean),
      // a token waited out shows its lifetime too (kind wait only)
      ...(capability === 'expireToken' ? needing('tokenLifetime').split(', ').filter(Boolean).map((id) => `${id} (kind wait)`) : []),
    ])),
    '',
  );
  writeFileSync(out, lines.join('\n'));
  const next = `${invocation().command} --config ${values.out ?? 'conformance.yaml'}`;
  process.stdout.write(`init: token (${found.tokenBy}); found ${discovered.length > 0 ? discovered.map((f) => `routes.${f}`).join(', ') : 'no route'}${open.length > 0 ? `; open: ${open.join(', ')}` : ''}\n`);
  process.stdout.write(`wrote ${out}\nnext: ${next} --dry-run   # then without --dry-run\n`);
  return 0;
}

export const initCommand: Command = { name: 'init', run: init };

runIfEntry(import.meta, initCommand, USAGE);
