import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { HarnessStop } from './judgement.ts';

/**
 * Errors in the target configuration: every problem found, each naming its field as a JSON
 * pointer, and the file they are in (as given, resolved).
 */
export class ConfigError extends HarnessStop {
  override name = 'ConfigError';
  constructor(
    readonly origin: string,
    readonly problems: readonly string[],
  ) {
    super(problems.length === 1 ? `config ${origin}: ${problems[0]}` : `config ${origin}: ${problems.length} problems:\n  ${problems.join('\n  ')}`);
  }
}

/** The capabilities the control plane's `hooks.offers` may name (each is a trigger of kind control). */
export const HOOK_NAMES = ['upstreamFailure', 'expireToken', 'inbound', 'clientWebhooks', 'clientStatus'] as const;
export type HookName = (typeof HOOK_NAMES)[number];
/** Every capability a target may declare a trigger for (config.schema.json, triggers). */
export type Capability = HookName | 'failedDelivery';
export const CAPABILITIES: readonly Capability[] = [...HOOK_NAMES, 'failedDelivery'];
export type OperationId = 'token' | 'whoami' | 'numbers' | 'search' | 'update' | 'send';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  webhookSecret?: string;
}

export interface Route {
  method: string;
  /** May hold {numberId}. */
  path: string;
}

/** A search the sandbox answers as an upstream failure (triggers.upstreamFailure, kind request). */
export interface UpstreamFailureRequest {
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** What details.providerStatus must carry; absent: only its presence is checked. */
  providerStatus?: number | string;
}

type Control = { kind: 'control' };

/** The two webhook kinds a client has (section 6): where its delivery outcomes and its inbound traffic go. */
export type ClientWebhookKind = 'delivery' | 'inbound';
export const CLIENT_WEBHOOK_KINDS: readonly ClientWebhookKind[] = ['delivery', 'inbound'];

/**
 * How the target reaches each hard path (config.schema.json, triggers), after the shorthands
 * (hooks.offers, recipients.failed) are folded in. An absent capability is not reachable.
 */
export interface Triggers {
  upstreamFailure?: { kind: 'request'; requests: UpstreamFailureRequest[] } | Control;
  expireToken?: { kind: 'wait'; client: ClientCredentials; maxWaitSeconds: number } | Control;
  /**
   * declared: the primary client has both kinds, pointing at the run receiver; `secondary`, when
   * the config says, the kinds the secondary client has configured ([] for none).
   */
  clientWebhooks?: { kind: 'declared'; secondary?: ClientWebhookKind[] } | Control;
  inbound?: { kind: 'loopback'; to: { phoneNumber: string; numberId?: string } } | Control;
  /** A client suspended and made ACTIVE again (profile client.status). */
  clientStatus?: Control;
  failedDelivery?: { kind: 'request'; recipients: string[] };
}

/** The configuration after defaults: what option fixtures hand to tests. */
export interface Target {
  label: string;
  baseUrl: string;
  profile: 'reference' | 'none';
  clients: { primary: ClientCredentials; secondary?: ClientCredentials; special?: ClientCredentials };
  numbers: { sms?: string; mms?: string; foreign?: string; pool?: { primary?: string[]; secondary?: string[] } };
  routes: Record<OperationId, Route> & {
    numbersItemsPath: string | null;
    /** The member of the context's assignedNumbers that counts the client's numbers (CTX-005); unset: not known. */
    assignedCount?: string;
  };
  /**
   * The operations whose route the config names; the others take the reference profile's. A
   * profile route the target does not serve is the config's gap (a route left to guess), where a
   * named route the target does not serve is the target's to answer for.
   */
  routesNamed: OperationId[];
  mediaSample: unknown[];
  recipients: { allowPattern: string; delivered: string[] };
  /** The most sends one run may make; null: as many as the run's plan needs (harness/plan.ts). */
  sendCap: number | null;
  webhooks: {
    listenHost: string;
    listenPort: number;
    publicUrl?: string;
    timeoutMs: number;
    secret?: string;
    /** The status values of a delivery event that are a final outcome (WH-008); unset: not known. */
    finalStatuses?: string[];
  };
  hooks: { controlUrl?: string; controlToken?: string };
  triggers: Triggers;
  timeouts: { requestMs: number };
  /** Requests per second the run keeps to (null: no cap); --rate-limit wins over it. */
  rateLimit: { requestsPerSecond: number | null };
}

/** The member of assignedNumbers the reference profile counts the client's numbers in (spec/profile.yaml whoami.fields). */
export const PROFILE_ASSIGNED_COUNT = 'total';

/**
 * The reference profile's answers to the open choices (spec/profile.yaml). A target that
 * does not name its own routes is assumed to use these, which is the common case; a target
 * whose routes differ says so in its config.
 */
export const PROFILE_ROUTES: Target['routes'] = {
  token: { method: 'POST', path: '/api/auth/token' },
  send: { method: 'POST', path: '/api/core/messages/send' },
  whoami: { method: 'GET', path: '/api/core/whoami' },
  numbers: { method: 'GET', path: '/api/core/numbers' },
  numbersItemsPath: 'numbers',
  search: { method: 'POST', path: '/api/core/numbers/search' },
  update: { method: 'PATCH', path: '/api/core/numbers/{numberId}' },
};

/**
 * The items of a numbers answer at `itemsPath` (routes.numbers.itemsPath): the answer itself for
 * null, else the property it names, a dotted path reaching into nested objects ("data.items").
 * The document shows no envelope (4.3), so any nesting a vendor chose is reachable.
 */
export function itemsAt(body: unknown, itemsPath: string | null | undefined): unknown {
  if (!itemsPath) return body;
  return itemsPath.split('.').reduce<unknown>((at, key) => (at !== null && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined), body);
}

/** The media sample without mediaSample in the config: two items in the profile's shape, so a test can give them in another order. */
export const PROFILE_MEDIA_SAMPLE = [
  { url: 'https://cdn.example.com/conformance/pixel.png', contentType: 'image/png' },
  { url: 'https://cdn.example.com/conformance/pixel-2.png', contentType: 'image/png' },
];

/** NANP fictional numbers 555-0100..0199 (standards guide, E.164): safe to send to. */
export const FICTIONAL_NANP_PATTERN = '^\\+1[2-9]\\d{2}55501\\d{2}$';

export const CONFIG_SCHEMA_PATH = new URL('./config.schema.json', import.meta.url);
let compiledShape: ValidateFunction | undefined;

/** The config schema's validator, compiled when a config is first checked (certify's default run checks none). */
function shapeValidator(): ValidateFunction {
  if (!compiledShape) {
    // validateSchema off: test/spec/schemas-meta.test.ts checks config.schema.json against the meta-schema once.
    const ajv = new Ajv2020({ allErrors: true, verbose: true, discriminator: true, validateSchema: false });
    compiledShape = ajv.compile(JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')));
  }
  return compiledShape;
}

/**
 * Load a target config: a harness config file (YAML or JSON, see config.schema.json) or a
 * reference server fixtures file (`--fixtures-out`), which describes a target completely.
 * `env` supplies ${VAR} values and the CONFORMANCE_* overrides for secrets (the caller passes
 * the environment: harness/settings.ts's loadRunTarget in a run).
 */
export function loadTarget(path: string, env: NodeJS.ProcessEnv): Target {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ConfigError(file, [code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? String(e)})`]);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text, { prettyErrors: true });
  } catch (e) {
    throw new ConfigError(file, [`not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`]);
  }
  if (isFixturesFile(raw)) raw = fromFixturesFile(raw, file);
  return resolveTarget(raw, file, env);
}

/** JSON pointers of the values a config leaves as the placeholder OPEN. */
function openChoices(value: unknown, pointer: string): string[] {
  if (value === 'OPEN') return [pointer || '/'];
  if (Array.isArray(value)) return value.flatMap((v, i) => openChoices(v, `${pointer}/${i}`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => openChoices(v, `${pointer}/${k}`));
  return [];
}

/** Validate an already-parsed config object and apply defaults and environment overrides. */
export function resolveTarget(raw: unknown, origin: string, env: NodeJS.ProcessEnv): Target {
  const missing: string[] = [];
  const interpolated = interpolate(raw, env, '', missing);
  if (missing.length > 0) throw new ConfigError(origin, missing);
  // What init could not discover it writes as OPEN: a run on such a config would guess, and blame
  // the target for the guess (a route it does not serve).
  const open = openChoices(interpolated, '');
  if (open.length > 0) throw new ConfigError(origin, open.map((pointer) => `${pointer} is still OPEN (init could not discover it): set it to what your server does`));
  const withOverrides = applyEnvOverrides(interpolated, env);
  const validateShape = shapeValidator();
  if (!validateShape(withOverrides)) throw new ConfigError(origin, shapeProblems(validateShape.errors ?? []));
  const c = withOverrides as RawConfig;
  const target: Target = {
    label: c.label ?? c.baseUrl,
    baseUrl: c.baseUrl.replace(/\/+$/, ''),
    profile: c.profile ?? 'none',
    clients: c.clients,
    numbers: c.numbers ?? {},
    routes: {
      ...PROFILE_ROUTES,
      ...(c.routes?.whoami && { whoami: { method: c.routes.whoami.method, path: c.routes.whoami.path } }),
      ...(c.routes?.search && { search: c.routes.search }),
      ...(c.routes?.update && { update: c.routes.update }),
      ...(c.routes?.numbers && { numbers: { method: c.routes.numbers.method, path: c.routes.numbers.path } }),
      numbersItemsPath: c.routes?.numbers?.itemsPath !== undefined ? c.routes.numbers.itemsPath : PROFILE_ROUTES.numbersItemsPath,
      // The reference profile's context counts its numbers in assignedNumbers.total (whoami.fields).
      ...((c.routes?.whoami?.assignedCount ?? (c.profile === 'reference' ? PROFILE_ASSIGNED_COUNT : undefined)) !== undefined && {
        assignedCount: c.routes?.whoami?.assignedCount ?? PROFILE_ASSIGNED_COUNT,
      }),
    },
    routesNamed: (['whoami', 'numbers', 'search', 'update'] as const).filter((op) => c.routes?.[op] !== undefined),
    mediaSample: c.mediaSample ?? PROFILE_MEDIA_SAMPLE,
    recipients: {
      allowPattern: c.recipients?.allowPattern ?? FICTIONAL_NANP_PATTERN,
      delivered: c.recipients?.delivered ?? ['+12025550100', '+12025550101', '+12025550102'],
    },
    sendCap: c.sendCap ?? null,
    webhooks: {
      listenHost: c.webhooks?.listenHost ?? '127.0.0.1',
      listenPort: c.webhooks?.listenPort ?? 0,
      publicUrl: c.webhooks?.publicUrl,
      timeoutMs: c.webhooks?.timeoutMs ?? 10_000,
      secret: c.webhooks?.secret ?? c.clients.primary.webhookSecret,
      ...(c.webhooks?.finalStatuses && { finalStatuses: c.webhooks.finalStatuses }),
    },
    hooks: { controlUrl: c.hooks?.controlUrl, controlToken: c.hooks?.controlToken },
    triggers: {},
    timeouts: { requestMs: c.timeouts?.requestMs ?? 15_000 },
    rateLimit: { requestsPerSecond: c.rateLimit?.requestsPerSecond ?? null },
  };
  const problems = [...recipientProblems(target)];
  // Two homes for one secret in the file: the signature check would silently use webhooks.secret.
  // (CONFORMANCE_WEBHOOK_SECRET overrides both.)
  const inFile = interpolated as RawConfig;
  const clientSecret = inFile.clients?.primary?.webhookSecret;
  if (!env.CONFORMANCE_WEBHOOK_SECRET && inFile.webhooks?.secret !== undefined && clientSecret !== undefined && inFile.webhooks.secret !== clientSecret) {
    problems.push('/webhooks/secret and /clients/primary/webhookSecret differ: they name the same secret (the primary client\'s webhook signing secret), so give it once');
  }
  target.triggers = resolveTriggers(c, target, problems);
  if (problems.length > 0) throw new ConfigError(origin, problems);
  return target;
}

/**
 * The triggers section with its shorthands folded in: hooks.offers is kind control for each
 * capability it names, recipients.failed is failedDelivery of kind request. A capability
 * declared both ways, a control trigger without hooks.controlUrl, a declared client webhook
 * without a fixed receiver port and a recipient the run may not send to are problems.
 */
function resolveTriggers(c: RawConfig, target: Target, problems: string[]): Triggers {
  const raw = c.triggers ?? {};
  const triggers: Triggers = {};
  for (const hook of c.hooks?.offers ?? []) {
    if (raw[hook]) problems.push(`/hooks/offers names ${hook}, which /triggers/${hook} declares too: keep one`);
    else triggers[hook] = { kind: 'control' };
  }
  if (raw.upstreamFailure) triggers.upstreamFailure = raw.upstreamFailure;
  if (raw.expireToken) {
    triggers.expireToken =
      raw.expireToken.kind === 'wait' ? { kind: 'wait', client: raw.expireToken.client ?? target.clients.primary, maxWaitSeconds: raw.expireToken.maxWaitSeconds ?? 30 } : raw.expireToken;
  }
  if (raw.clientWebhooks?.kind === 'declared') {
    // secondaryHasNone: true is the older way to say secondary: [].
    const { secondary, secondaryHasNone } = raw.clientWebhooks;
    if (secondary !== undefined && secondaryHasNone !== undefined) problems.push('/triggers/clientWebhooks gives both secondary and secondaryHasNone: keep secondary ([] for none)');
    if (secondary !== undefined && !target.clients.secondary) problems.push('/triggers/clientWebhooks/secondary says which webhooks the secondary client has, but /clients/secondary is missing');
    const stated = secondary ?? (secondaryHasNone === true ? [] : undefined);
    triggers.clientWebhooks = { kind: 'declared', ...(stated !== undefined && { secondary: CLIENT_WEBHOOK_KINDS.filter((kind) => stated.includes(kind)) }) };
  } else if (raw.clientWebhooks) {
    triggers.clientWebhooks = raw.clientWebhooks;
  }
  if (raw.inbound) triggers.inbound = raw.inbound;
  if (raw.clientStatus) triggers.clientStatus = raw.clientStatus;
  if (raw.failedDelivery && c.recipients?.failed) problems.push('/recipients/failed and /triggers/failedDelivery both name failing recipients: keep one');
  const failed = raw.failedDelivery?.recipients ?? c.recipients?.failed ?? [];
  if (failed.length > 0) triggers.failedDelivery = { kind: 'request', recipients: failed };

  const usesControl = CAPABILITIES.filter((name) => triggers[name]?.kind === 'control');
  if (usesControl.length > 0 && !target.hooks.controlUrl) {
    problems.push(`${usesControl.map((name) => (raw[name] ? `/triggers/${name}` : `/hooks/offers (${name})`)).join(', ')} use${usesControl.length === 1 ? 's' : ''} the control plane but /hooks/controlUrl is missing`);
  }
  if (triggers.clientWebhooks?.kind === 'declared' && target.webhooks.listenPort === 0) {
    problems.push('/triggers/clientWebhooks is declared, so /webhooks/listenPort must be a fixed port: the client webhooks point at it');
  }
  const allowed = safePattern(target.recipients.allowPattern);
  if (allowed) {
    const notAllowed = (pointer: string, to: string) => (allowed.test(to) ? [] : [`${pointer} ${to} does not match /recipients/allowPattern`]);
    const failedPointer = raw.failedDelivery ? '/triggers/failedDelivery/recipients' : '/recipients/failed';
    problems.push(...failed.flatMap((to, i) => notAllowed(`${failedPointer}/${i}`, to)));
    if (raw.inbound?.kind === 'loopback') problems.push(...notAllowed('/triggers/inbound/to/phoneNumber', raw.inbound.to.phoneNumber));
  }
  return triggers;
}

function safePattern(source: string): RegExp | undefined {
  try {
    return new RegExp(source);
  } catch {
    return undefined;
  }
}

function recipientProblems(target: Target): string[] {
  let pattern: RegExp;
  try {
    pattern = new RegExp(target.recipients.allowPattern);
  } catch (e) {
    return [`/recipients/allowPattern is not a regular expression: ${(e as Error).message}`];
  }
  return target.recipients.delivered.flatMap((to, i) => (pattern.test(to) ? [] : [`/recipients/delivered/${i} ${to} does not match /recipients/allowPattern`]));
}

/**
 * Every schema error as "pointer message". An unknown key close to a known one gets a "did you
 * mean", and then the required key it stands for is not reported missing a second time.
 */
function shapeProblems(errors: readonly ErrorObject[]): string[] {
  const suggested = new Set<string>();
  const problems: string[] = [];
  for (const e of errors) {
    if (e.keyword !== 'additionalProperties') continue;
    const key = (e.params as { additionalProperty: string }).additionalProperty;
    const known = Object.keys((e.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    const near = nearest(key, known);
    if (near) suggested.add(`${e.instancePath}/${near}`);
    problems.push(`${e.instancePath}/${key} is not a known key${near ? `: did you mean '${near}'?` : ` (known here: ${known.join(', ')})`}`);
  }
  for (const e of errors) {
    if (e.keyword === 'additionalProperties') continue;
    if (e.keyword === 'required') {
      const pointer = `${e.instancePath}/${(e.params as { missingProperty: string }).missingProperty}`;
      if (!suggested.has(pointer)) problems.push(`${pointer} is required`);
      continue;
    }
    if (e.keyword === 'discriminator') {
      const kinds = ((e.parentSchema as { oneOf?: Array<{ properties: { kind: { const: string } } }> }).oneOf ?? []).map((s) => s.properties.kind.const);
      problems.push(`${e.instancePath}/kind must be one of ${kinds.join(', ')}`);
      continue;
    }
    const extra = e.keyword === 'enum' ? ` (one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : '';
    problems.push(`${e.instancePath || '/'} ${e.message}${extra}`);
  }
  return [...new Set(problems)];
}

/** The known key a typo most likely meant: same letters in another case, or at most two edits away. */
function nearest(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  const same = known.find((k) => k.toLowerCase() === lower);
  if (same) return same;
  const scored = known.map((k) => ({ k, d: editDistance(lower, k.toLowerCase()) })).sort((a, b) => a.d - b.d);
  const best = scored[0];
  return best && best.d <= Math.min(2, Math.floor(key.length / 3)) ? best.k : undefined;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** ${VAR} in any string takes the environment's value; a missing variable is a problem, not ''. */
function interpolate(value: unknown, env: NodeJS.ProcessEnv, pointer: string, missing: string[]): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const v = env[name];
      if (v === undefined) missing.push(`${pointer || '/'} uses \${${name}}, which is not set in the environment`);
      return v ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, env, `${pointer}/${i}`, missing));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env, `${pointer}/${k}`, missing)]));
  }
  return value;
}

/** Secrets can come from the environment alone, so CI never writes them to a file. */
function applyEnvOverrides(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const c = structuredClone(value) as Record<string, any>;
  if (env.CONFORMANCE_BASE_URL) c.baseUrl = env.CONFORMANCE_BASE_URL;
  const clients = (c.clients ??= {});
  for (const role of ['primary', 'secondary'] as const) {
    const prefix = `CONFORMANCE_${role.toUpperCase()}_`;
    if (env[`${prefix}CLIENT_ID`] || env[`${prefix}CLIENT_SECRET`]) {
      clients[role] = { ...clients[role] };
      if (env[`${prefix}CLIENT_ID`]) clients[role].clientId = env[`${prefix}CLIENT_ID`];
      if (env[`${prefix}CLIENT_SECRET`]) clients[role].clientSecret = env[`${prefix}CLIENT_SECRET`];
    }
  }
  if (env.CONFORMANCE_WEBHOOK_SECRET) c.webhooks = { ...c.webhooks, secret: env.CONFORMANCE_WEBHOOK_SECRET };
  if (env.CONFORMANCE_CONTROL_TOKEN) c.hooks = { ...c.hooks, controlToken: env.CONFORMANCE_CONTROL_TOKEN };
  return c;
}

interface RawConfig {
  label?: string;
  baseUrl: string;
  profile?: 'reference' | 'none';
  clients: Target['clients'];
  numbers?: Target['numbers'];
  routes?: Partial<Record<'search' | 'update', Route>> & { whoami?: Route & { assignedCount?: string }; numbers?: Route & { itemsPath?: string | null } };
  mediaSample?: unknown[];
  recipients?: { allowPattern?: string; delivered?: string[]; failed?: string[] };
  sendCap?: number;
  webhooks?: Partial<Target['webhooks']>;
  hooks?: { controlUrl?: string; controlToken?: string; offers?: HookName[] };
  triggers?: {
    upstreamFailure?: Triggers['upstreamFailure'];
    expireToken?: { kind: 'wait'; client?: ClientCredentials; maxWaitSeconds?: number } | Control;
    clientWebhooks?: { kind: 'declared'; secondary?: ClientWebhookKind[]; secondaryHasNone?: boolean } | Control;
    inbound?: Triggers['inbound'];
    clientStatus?: Triggers['clientStatus'];
    failedDelivery?: Triggers['failedDelivery'];
  };
  timeouts?: { requestMs?: number };
  rateLimit?: { requestsPerSecond: number };
}

/** The JSON the reference server writes with --fixtures-out (ARCHITECTURE.md). */
export interface FixturesFile {
  baseUrl: string;
  controlUrl?: string;
  controlToken?: string;
  profile?: 'reference';
  clients: Array<{ role: string; clientId: string; clientSecret: string; webhookSecret?: string; numbers?: Array<{ numberId: string; phoneNumber?: string; campaignregId?: string | null; smsEnabled?: boolean }> }>;
}

/**
 * The bundled reference's inbound traffic as a vendor's sandbox brings it about: a send to one of
 * the primary client's own numbers (triggers.inbound kind loopback), so the harness's loopback
 * checks run on every certification of it. The number is the last of the primary's that can send
 * an SMS, leaving an earlier one to send from; undefined when there are not two.
 */
function loopbackInbound(f: FixturesFile): Triggers['inbound'] {
  const sending = (f.clients.find((c) => c.role === 'primary')?.numbers ?? []).filter((n) => typeof n.campaignregId === 'string' && n.campaignregId !== '' && n.smsEnabled !== false && n.phoneNumber !== undefined);
  const to = sending.length >= 2 ? sending.at(-1)! : undefined;
  return to && { kind: 'loopback', to: { phoneNumber: to.phoneNumber!, numberId: to.numberId } };
}

/**
 * The bundled reference as a target before it has started (its fixtures file does not exist
 * yet): what the plan of a run against it needs. Credentials are placeholders.
 */
export function referenceTargetPreview(baseUrl: string): Target {
  const client = (role: string) => ({ role, clientId: `${role}-client`, clientSecret: 'not-yet-known', webhookSecret: 'whsec_not-yet-known' });
  const raw = fromFixturesFile({ baseUrl, controlUrl: `${baseUrl}/_control`, profile: 'reference', clients: ['primary', 'secondary', 'special', 'brief'].map(client) }, 'the bundled reference');
  return resolveTarget(raw, 'the bundled reference', {});
}

/** The numberIds a fixtures file gives each of these roles, as numbers.pool; undefined when it gives none. */
function poolOf(f: FixturesFile, roles: ReadonlyArray<'primary' | 'secondary'>): { primary?: string[]; secondary?: string[] } | undefined {
  const pool = Object.fromEntries(roles.flatMap((role) => {
    const ids = f.clients.find((c) => c.role === role)?.numbers?.map((n) => n.numberId) ?? [];
    return ids.length > 0 ? [[role, ids]] : [];
  }));
  return Object.keys(pool).length > 0 ? pool : undefined;
}

function isFixturesFile(raw: unknown): raw is FixturesFile {
  return !!raw && typeof raw === 'object' && Array.isArray((raw as FixturesFile).clients);
}

/** A reference fixtures file as the config it stands for (the reference profile, every hook). */
export function fromFixturesFile(f: FixturesFile, origin: string): RawConfig {
  const byRole = (role: string) => f.clients.find((c) => c.role === role);
  const creds = (role: string): ClientCredentials | undefined => {
    const c = byRole(role);
    return c && { clientId: c.clientId, clientSecret: c.clientSecret, ...(c.webhookSecret && { webhookSecret: c.webhookSecret }) };
  };
  const primary = creds('primary');
  const brief = creds('brief');
  const inbound = loopbackInbound(f);
  if (!primary) throw new ConfigError(origin, ['/clients: no client with role "primary" (a reference fixtures file)']);
  return {
    label: 'reference server',
    baseUrl: f.baseUrl,
    profile: f.profile === 'reference' ? 'reference' : 'none',
    clients: {
      primary,
      ...(creds('secondary') && { secondary: creds('secondary') }),
      ...(creds('special') && { special: creds('special') }),
    },
    recipients: { delivered: ['+12025550100', '+12025550101', '+12025550102'] },
    // Its numbers, as a vendor names them in numbers.pool: the run knows every number each
    // client has, so a list that leaves one out is seen (NUM-001).
    ...(poolOf(f, ['primary', 'secondary']) && { numbers: { pool: poolOf(f, ['primary', 'secondary'])! } }),
    // The statuses of the reference's delivery events that are final (reference/README.md).
    webhooks: { finalStatuses: ['DELIVERED', 'FAILED'] },
    // The bundled reference is a local, disposable server: deep property runs may send freely.
    sendCap: 100_000,
    // The reference's recipients that end FAILED (reference/README.md). Its short-lived
    // client's tokens expire by waiting, control plane or not: the wait also sees whether a
    // token lives as long as its expires_in says (TOKEN-011), which expiring one at once cannot.
    triggers: {
      failedDelivery: { kind: 'request', recipients: ['+12025550150', '+12025550151'] },
      ...(brief && { expireToken: { kind: 'wait', client: brief } }),
      ...(inbound && { inbound }),
    },
    ...(f.controlUrl && {
      hooks: {
        controlUrl: f.controlUrl,
        ...(f.controlToken && { controlToken: f.controlToken }),
        offers: HOOK_NAMES.filter((hook) => !(brief && hook === 'expireToken') && !(inbound && hook === 'inbound')),
      },
    }),
  };
}
