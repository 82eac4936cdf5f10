import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';

/** An error in the target configuration: the message names the file and the bad field. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type HookName = 'upstreamFailure' | 'expireToken' | 'inbound' | 'clientWebhooks';
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

/** The configuration after defaults: what option fixtures hand to tests. */
export interface Target {
  label: string;
  baseUrl: string;
  profile: 'reference' | 'none';
  clients: { primary: ClientCredentials; secondary?: ClientCredentials; special?: ClientCredentials };
  numbers: { sms?: string; mms?: string; foreign?: string };
  routes: Record<OperationId, Route> & { numbersItemsPath: string | null };
  mediaSample: unknown[];
  recipients: { allowPattern: string; delivered: string[]; failed: string[] };
  sendCap: number;
  webhooks: { listenHost: string; listenPort: number; publicUrl?: string; timeoutMs: number; secret?: string };
  hooks: { controlUrl?: string; controlToken?: string; offers: HookName[] };
  timeouts: { requestMs: number };
}

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

export const PROFILE_MEDIA_SAMPLE = [{ url: 'https://cdn.example.com/conformance/pixel.png', contentType: 'image/png' }];

/** NANP fictional numbers 555-0100..0199 (standards guide, E.164): safe to send to. */
export const FICTIONAL_NANP_PATTERN = '^\\+1[2-9]\\d{2}55501\\d{2}$';

export const CONFIG_SCHEMA_PATH = new URL('./config.schema.json', import.meta.url);
const ajv = new Ajv2020({ allErrors: true });
const validateShape = ajv.compile(JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')));

/**
 * Load a target config: a harness config file (YAML or JSON, see config.schema.json) or a
 * reference server fixtures file (`--fixtures-out`), which describes a target completely.
 * `env` supplies ${VAR} values and the CONFORMANCE_* overrides for secrets.
 */
export function loadTarget(path: string, env: NodeJS.ProcessEnv = process.env): Target {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`config ${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    throw new ConfigError(`config ${path}: not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  if (isFixturesFile(raw)) raw = fromFixturesFile(raw);
  return resolveTarget(raw, path, env);
}

/** Validate an already-parsed config object and apply defaults and environment overrides. */
export function resolveTarget(raw: unknown, origin: string, env: NodeJS.ProcessEnv = process.env): Target {
  const interpolated = interpolate(raw, origin, env, '');
  const withOverrides = applyEnvOverrides(interpolated, env);
  if (!validateShape(withOverrides)) {
    const first = validateShape.errors![0]!;
    const where = first.instancePath || '/';
    const extra =
      first.keyword === 'additionalProperties'
        ? ` '${(first.params as { additionalProperty: string }).additionalProperty}'`
        : first.keyword === 'enum'
          ? ` (one of ${(first.params as { allowedValues: unknown[] }).allowedValues.join(', ')})`
          : '';
    throw new ConfigError(`config ${origin}: ${where} ${first.message}${extra}`);
  }
  const c = withOverrides as RawConfig;
  const target: Target = {
    label: c.label ?? c.baseUrl,
    baseUrl: c.baseUrl.replace(/\/+$/, ''),
    profile: c.profile ?? 'none',
    clients: c.clients,
    numbers: c.numbers ?? {},
    routes: {
      ...PROFILE_ROUTES,
      ...(c.routes?.whoami && { whoami: c.routes.whoami }),
      ...(c.routes?.search && { search: c.routes.search }),
      ...(c.routes?.update && { update: c.routes.update }),
      ...(c.routes?.numbers && { numbers: { method: c.routes.numbers.method, path: c.routes.numbers.path } }),
      numbersItemsPath: c.routes?.numbers?.itemsPath !== undefined ? c.routes.numbers.itemsPath : PROFILE_ROUTES.numbersItemsPath,
    },
    mediaSample: c.mediaSample ?? PROFILE_MEDIA_SAMPLE,
    recipients: {
      allowPattern: c.recipients?.allowPattern ?? FICTIONAL_NANP_PATTERN,
      delivered: c.recipients?.delivered ?? ['+12025550100', '+12025550101', '+12025550102'],
      failed: c.recipients?.failed ?? [],
    },
    sendCap: c.sendCap ?? 2000,
    webhooks: {
      listenHost: c.webhooks?.listenHost ?? '127.0.0.1',
      listenPort: c.webhooks?.listenPort ?? 0,
      publicUrl: c.webhooks?.publicUrl,
      timeoutMs: c.webhooks?.timeoutMs ?? 10_000,
      secret: c.webhooks?.secret ?? c.clients.primary.webhookSecret,
    },
    hooks: { controlUrl: c.hooks?.controlUrl, controlToken: c.hooks?.controlToken, offers: c.hooks?.offers ?? [] },
    timeouts: { requestMs: c.timeouts?.requestMs ?? 15_000 },
  };
  checkRecipients(target, origin);
  if (target.hooks.offers.length > 0 && !target.hooks.controlUrl) {
    throw new ConfigError(`config ${origin}: /hooks/offers names hooks but /hooks/controlUrl is missing`);
  }
  return target;
}

function checkRecipients(target: Target, origin: string): void {
  let pattern: RegExp;
  try {
    pattern = new RegExp(target.recipients.allowPattern);
  } catch (e) {
    throw new ConfigError(`config ${origin}: /recipients/allowPattern is not a regular expression: ${(e as Error).message}`);
  }
  for (const [list, values] of [['delivered', target.recipients.delivered], ['failed', target.recipients.failed]] as const) {
    values.forEach((to, i) => {
      if (!pattern.test(to)) throw new ConfigError(`config ${origin}: /recipients/${list}/${i} ${to} does not match /recipients/allowPattern`);
    });
  }
}

/** ${VAR} in any string takes the environment's value; a missing variable is an error, not ''. */
function interpolate(value: unknown, origin: string, env: NodeJS.ProcessEnv, pointer: string): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const v = env[name];
      if (v === undefined) throw new ConfigError(`config ${origin}: ${pointer || '/'} uses \${${name}}, which is not set in the environment`);
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, origin, env, `${pointer}/${i}`));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, origin, env, `${pointer}/${k}`)]));
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
  routes?: Partial<Record<'whoami' | 'search' | 'update', Route>> & { numbers?: Route & { itemsPath?: string | null } };
  mediaSample?: unknown[];
  recipients?: { allowPattern?: string; delivered?: string[]; failed?: string[] };
  sendCap?: number;
  webhooks?: Partial<Target['webhooks']>;
  hooks?: { controlUrl?: string; controlToken?: string; offers?: HookName[] };
  timeouts?: { requestMs?: number };
}

/** The JSON the reference server writes with --fixtures-out (ARCHITECTURE.md). */
interface FixturesFile {
  baseUrl: string;
  controlUrl?: string;
  controlToken?: string;
  profile?: 'reference';
  clients: Array<{ role: string; clientId: string; clientSecret: string; webhookSecret?: string; numbers?: Array<{ numberId: string }> }>;
}

function isFixturesFile(raw: unknown): raw is FixturesFile {
  return !!raw && typeof raw === 'object' && Array.isArray((raw as FixturesFile).clients);
}

function fromFixturesFile(f: FixturesFile): RawConfig {
  const byRole = (role: string) => f.clients.find((c) => c.role === role);
  const creds = (role: string): ClientCredentials | undefined => {
    const c = byRole(role);
    return c && { clientId: c.clientId, clientSecret: c.clientSecret, ...(c.webhookSecret && { webhookSecret: c.webhookSecret }) };
  };
  const primary = creds('primary');
  if (!primary) throw new ConfigError('fixtures file: no client with role "primary"');
  return {
    label: 'reference server',
    baseUrl: f.baseUrl,
    profile: f.profile === 'reference' ? 'reference' : 'none',
    clients: {
      primary,
      ...(creds('secondary') && { secondary: creds('secondary') }),
      ...(creds('special') && { special: creds('special') }),
    },
    recipients: { delivered: ['+12025550100', '+12025550101', '+12025550102'], failed: ['+12025550150', '+12025550151'] },
    // The bundled reference is a local, disposable server: deep property runs may send freely.
    sendCap: 100_000,
    ...(f.controlUrl && {
      hooks: {
        controlUrl: f.controlUrl,
        ...(f.controlToken && { controlToken: f.controlToken }),
        offers: ['upstreamFailure', 'expireToken', 'inbound', 'clientWebhooks'] as HookName[],
      },
    }),
  };
}
