// messaging-conformance init --base-url URL [--out conformance.yaml] [--force]
//
// Discovers what it can of a target's answers to the document's open choices and writes a
// commented target config, marking each choice it could not discover. It sends no message and
// changes no setting: it obtains a token (as the preflight does, in each request style the
// document allows), reads the client context and the numbers list, runs an empty search, and
// learns the update route's method from an Allow header or by writing a number's own settings
// back to it (restoring whatever that changed). The clients' credentials come from the
// environment, as for certify --base-url.
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { itemsAt, resolveTarget } from '../harness/config.ts';
import { obtainToken, PreflightError, type PreflightResult } from '../harness/preflight.ts';
import { BASE_URL_CREDENTIALS, baseUrlCredentials, invocation, userDirectory } from '../harness/settings.ts';

const USAGE = `Usage: messaging-conformance init --base-url URL [--out FILE] [--force]

Probes the target at URL without sending a message or changing a setting, and writes a
commented target config (default ./conformance.yaml) with what it found; each open choice it
could not discover is marked OPEN. Credentials: ${BASE_URL_CREDENTIALS.primary.join(' and ')} in
the environment (a second client, optional: ${BASE_URL_CREDENTIALS.secondary.join(' and ')}).`;

function fail(message: string): never {
  process.stderr.write(`init: ${message}\n`);
  process.exit(2);
}

let values: { 'base-url'?: string; out?: string; force?: boolean; help?: boolean };
try {
  ({ values } = parseArgs({ options: { 'base-url': { type: 'string' }, out: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
} catch (e) {
  fail(`${(e as Error).message}\n\n${USAGE}`);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const baseUrl = (values['base-url'] ?? fail(`--base-url is required\n\n${USAGE}`)).replace(/\/+$/, '');
if (!/^https?:\/\/[^/\s]+/.test(baseUrl) || !URL.canParse(baseUrl)) fail(`--base-url takes an http(s) URL (got ${baseUrl})`);
const credentials = baseUrlCredentials();
if (!credentials.primary) fail(`needs the primary client's credentials in the environment: set ${BASE_URL_CREDENTIALS.primary.join(' and ')}`);
const out = resolve(userDirectory(), values.out ?? 'conformance.yaml');
if (existsSync(out) && !values.force) fail(`${out} exists: give --force to replace it, or --out another file`);

interface Answer {
  status: number;
  headers: Headers;
  json: unknown;
}
async function ask(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer | null> {
  try {
    const res = await fetch(baseUrl + path, { method, redirect: 'manual', signal: AbortSignal.timeout(15_000), headers: { accept: 'application/json', ...init.headers }, ...(init.body !== undefined && { body: init.body }) });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json };
  } catch {
    return null;
  }
}
const field = (v: unknown, name: string): unknown => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[name] : undefined);

// ---- the token: every request style the document allows, as the preflight tries them --------
const target = resolveTarget({ baseUrl, clients: { primary: credentials.primary } }, '--base-url', {});
const tokenResult: PreflightResult = { checked: [], notes: [], clients: [] };
let obtained: Awaited<ReturnType<typeof obtainToken>>;
try {
  obtained = await obtainToken(target, 'primary', credentials.primary, 15_000, 'in the environment', tokenResult);
} catch (e) {
  if (e instanceof PreflightError) fail(e.message);
  throw e;
}
if (obtained === null) fail(`no token: ${tokenResult.notes.join('; ')}`);
const token = obtained.accessToken;
const bearer = { authorization: `Bearer ${token}` };

// ---- the client context, the numbers list, the update and search routes ----------------------
const found: string[] = [];
const open: string[] = [];

let whoami: string | null = null;
for (const path of ['/api/core/whoami', '/api/core/me', '/api/core/client', '/api/core/context']) {
  const answer = await ask('GET', path, { headers: bearer });
  if (answer?.status === 200 && typeof field(answer.json, 'apiClientId') === 'string') {
    whoami = path;
    break;
  }
}

/** Where a numbers answer holds the list (the document's schema: an array of objects with a numberId string). */
function numbersIn(json: unknown): { itemsPath: string | null; numbers: Array<Record<string, unknown>> } | null {
  const isList = (v: unknown): v is Array<Record<string, unknown>> => Array.isArray(v) && v.every((x) => typeof field(x, 'numberId') === 'string');
  if (isList(json)) return { itemsPath: null, numbers: json };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return null;
  // The envelope is open (4.3): a property of the answer, or of an object in it ("data.items").
  const paths = Object.entries(json).flatMap(([k, v]) => [k, ...(v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).map((inner) => `${k}.${inner}`) : [])]);
  const path = paths.find((p) => isList(itemsAt(json, p)));
  return path === undefined ? null : { itemsPath: path, numbers: itemsAt(json, path) as Array<Record<string, unknown>> };
}
let numbers: { method: string; path: string; itemsPath: string | null; numbers: Array<Record<string, unknown>> } | null = null;
for (const path of ['/api/core/numbers', '/api/core/numbers/list']) {
  const answer = await ask('GET', path, { headers: bearer });
  const list = answer?.status === 200 ? numbersIn(answer.json) : null;
  if (list) {
    numbers = { method: 'GET', path, ...list };
    break;
  }
}

let update: { method: string; path: string; how: string } | null = null;
const probe = numbers?.numbers[0];
if (probe && numbers) {
  const paths = [`${numbers.path}/{numberId}`, `${numbers.path}/{numberId}/settings`];
  const at = (path: string) => path.replace('{numberId}', encodeURIComponent(String(probe.numberId)));
  // A method the route refuses is answered 405 with Allow (RFC 9110 15.5.6); GET and OPTIONS change nothing.
  for (const path of paths) {
    for (const method of ['OPTIONS', 'GET']) {
      const allow = (await ask(method, at(path), { headers: bearer }))?.headers.get('allow')?.split(',').map((m) => m.trim().toUpperCase()) ?? [];
      const writer = ['PATCH', 'PUT', 'POST'].find((m) => allow.includes(m));
      if (writer && !update) update = { method: writer, path, how: `Allow: ${allow.join(', ')}` };
    }
  }
  // Else write the number's own settings back to it (NumberSettings, section 4.5): a route that
  // takes them answers 2xx and nothing changes; the list is read again, and what differs restored.
  const settingsOf = (n: Record<string, unknown>) => Object.fromEntries(['campaignregId', 'smsEnabled', 'mmsEnabled', 'webhookInboundOverride', 'webhookDeliveryOverride'].filter((k) => k in n).map((k) => [k, n[k]]));
  const body = JSON.stringify(settingsOf(probe));
  for (const path of update ? [] : paths) {
    for (const method of ['PATCH', 'PUT', 'POST']) {
      const answer = await ask(method, at(path), { headers: { ...bearer, 'content-type': 'application/json' }, body });
      if (answer === null || answer.status < 200 || answer.status > 299) continue;
      update = { method, path, how: `${method} of the number's own settings answered ${answer.status}` };
      const after = numbersIn((await ask(numbers.method, numbers.path, { headers: bearer }))?.json)?.numbers.find((n) => n.numberId === probe.numberId);
      if (!after || JSON.stringify(settingsOf(after)) !== body) {
        await ask(method, at(path), { headers: { ...bearer, 'content-type': 'application/json' }, body });
        update.how += '; the settings it changed were restored';
      }
      break;
    }
    if (update) break;
  }
}

let search: { method: string; path: string } | null = null;
for (const path of ['/api/core/numbers/search', '/api/core/search', '/api/core/numbers/available']) {
  // A search sends nothing and changes nothing: a route that exists answers in JSON, not 404 or 405.
  const answer = await ask('POST', path, { headers: { ...bearer, 'content-type': 'application/json' }, body: '{}' });
  if (answer !== null && answer.json !== undefined && answer.status !== 404 && answer.status !== 405) {
    search = { method: 'POST', path };
    break;
  }
}

// ---- the config -------------------------------------------------------------------------------
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
  ...(credentials.secondary
    ? ['  secondary:', `    clientId: \${${BASE_URL_CREDENTIALS.secondary[0]}}`, `    clientSecret: \${${BASE_URL_CREDENTIALS.secondary[1]}}`]
    : ['  # OPEN: a second client (ownership checks): clients.secondary { clientId, clientSecret }']),
  `# a token was obtained with the credentials in a ${obtained.by}`,
  'routes:',
];
const routeLine = (name: string, r: { method: string; path: string } | null, how: string, extra = '') => {
  if (r) {
    found.push(name);
    return `  ${name}: ${route(r, extra)}   # found: ${how}`;
  }
  open.push(`routes.${name}`);
  // Left as the value OPEN, which certify refuses until it is set: a guessed route would be blamed on the target.
  return `  ${name}: OPEN   # not found (${how}): set { method: …, path: … }`;
};
lines.push(
  routeLine('whoami', whoami === null ? null : { method: 'GET', path: whoami }, 'GET answered 200 with apiClientId'),
  routeLine('numbers', numbers, 'an array of objects with a numberId string', numbers ? `, itemsPath: ${numbers.itemsPath === null ? 'null' : JSON.stringify(numbers.itemsPath)}` : ''),
  routeLine('search', search, 'POST of an empty search answered in JSON'),
  routeLine('update', update, update?.how ?? 'no Allow header, and no method took the number\'s own settings'),
);
if (numbers) {
  const withCampaign = numbers.numbers.filter((n) => typeof n.campaignregId === 'string' && n.campaignregId !== '');
  lines.push(
    `# numbers of the primary client: ${numbers.numbers.length}; with a campaignregId: ${withCampaign.length}; MMS-enabled with one: ${withCampaign.filter((n) => n.mmsEnabled === true).length}`,
    '# (the run picks its numbers from the list; numbers: { sms, mms } names them instead)',
  );
}
lines.push(
  '# OPEN: webhooks.publicUrl: where the target can reach this machine; without it the webhook requirements are not testable here',
  '# OPEN: hooks: { controlUrl, offers } if the target offers test-control hooks (reference/README.md)',
  '',
);
writeFileSync(out, lines.join('\n'));
const next = `${invocation().command} --config ${values.out ?? 'conformance.yaml'}`;
process.stdout.write(`init: token (${obtained.by}); found ${found.length > 0 ? found.map((f) => `routes.${f}`).join(', ') : 'no route'}${open.length > 0 ? `; open: ${open.join(', ')}` : ''}\n`);
process.stdout.write(`wrote ${out}\nnext: ${next} --dry-run   # then without --dry-run\n`);
