import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { ConfigError } from '../errors.ts';
import { CLIENT_WEBHOOK_KINDS, type ClientWebhookSetting } from '../fixtures/clientWebhooks.ts';
import { DEFAULTS, parseWireChoice, PROFILE_WIRE_CHOICES, WIRE_CHOICES, type ReferenceOptions, type WireChoiceName, type WireChoices } from '../options.ts';
import { parseAllowedHost } from '../webhooks/targets.ts';

export const USAGE = `Usage: npm run serve -- [options]

Starts the reference messaging server (interface 0.2.0, reference profile).

Options:
  --host HOST                 interface to listen on (default ${DEFAULTS.host})
  --port PORT                 port to listen on; 0 picks a free one (default ${DEFAULTS.port})
  --db FILE                   SQLite database file (default ${DEFAULTS.dbPath})
  --fresh                     start from an empty database (deletes FILE and its WAL first)
  --fixtures FILE             seed clients and numbers from FILE (JSON or YAML); a built-in demo set when absent
  --fixtures-out FILE         write base URL, credentials, webhook secrets and numbers as JSON once listening
  --control                   enable the test-control plane under /_control, guarded by a bearer token:
                              --control-token's, or one the server makes and writes to --fixtures-out
                              (a made token needs --fixtures-out and a loopback --host)
  --control-token TOKEN       the token /_control requires ("Authorization: Bearer TOKEN")
  --token-ttl SECONDS         access-token lifetime (default ${DEFAULTS.tokenTtlSeconds})
  --idempotency-ttl SECONDS   idempotency-key retention (default ${DEFAULTS.idempotencyTtlSeconds})
  --upstream-url URL          inventory provider; default: start the bundled simulator on a loopback port
  --upstream-timeout SECONDS  bound on a provider call before answering 502 (default ${DEFAULTS.upstreamTimeoutMs / 1000})
  --webhook-retry-base SECONDS  the first retry of a failed webhook comes after half to all of this, each
                              later one after twice the last (default ${DEFAULTS.webhookRetryBaseMs / 1000})
  --webhook-timeout SECONDS   how long a webhook attempt waits for the receiver's answer before it counts
                              as failed and is retried (default ${DEFAULTS.webhookTimeoutMs / 1000})
  --allow-webhook-host HOST   allow webhook targets at HOST: an IP address, a CIDR range (10.0.0.0/8) or a
                              host name; repeatable. Loopback, private and link-local targets are refused
                              without it; the server's own port always is
  --client-webhook ROLE:KIND=URL  set the delivery or inbound webhook (KIND) of the fixtures client with
                              ROLE when the server starts, checked like a webhook override; repeatable
  --request-timeout SECONDS   a whole request, headers and body, must arrive within this; else 408
                              (default ${DEFAULTS.requestTimeoutMs / 1000})
  --headers-timeout SECONDS   the headers of a request must arrive within this; else 408 (default ${DEFAULTS.headersTimeoutMs / 1000})
  --keep-alive-timeout SECONDS  an idle keep-alive connection is closed after this (default ${DEFAULTS.keepAliveTimeoutMs / 1000})
  --shutdown-grace SECONDS    after SIGTERM or SIGINT, requests in progress have this long to finish; then every
                              connection still open is closed (default ${DEFAULTS.shutdownGraceMs / 1000})
  --max-connections N         open connections at most; one beyond is closed at once (default ${DEFAULTS.maxConnections})
  --max-connections-per-source N  open connections at most from one source address (an IPv6 /64); one beyond
                              is closed at once (default ${DEFAULTS.maxConnectionsPerSource})
  --max-requests-per-source N requests in progress at once from one source address; one beyond is 429
                              (default ${DEFAULTS.maxRequestsPerSource})
  --token-requests-per-minute N   token requests per minute from one source address; beyond, 429
                              (default ${DEFAULTS.tokenLimits.requestsPerSourcePerMinute})
  --token-failures-per-source N   failed client authentications per minute from one source address
                              (default ${DEFAULTS.tokenLimits.failuresPerSourcePerMinute})
  --token-failures-per-client N   failed client authentications per minute for one client id; beyond, only
                              sources that have not failed for it in 10 minutes are heard
                              (default ${DEFAULTS.tokenLimits.failuresPerClientPerMinute})
  --send-messages-per-second N  messages (one per recipient) each API client may send a second, bursts up to
                              twice as many; beyond, 429 (default ${DEFAULTS.sendMessagesPerSecond})
  --log-level LEVEL           fatal, error, warn, info, debug, trace or silent (default ${DEFAULTS.logLevel})
  --choice NAME=VALUE         answer an open choice of the document otherwise than the reference profile, as
                              another vendor may (repeatable; the first value is the default):
${Object.entries(WIRE_CHOICES).map(([name, values]) => `                                ${name}: ${values.map((v) => (v.includes(' ') ? `"${v}"` : v)).join(' | ')}`).join('\n')}
  --help                      show this help
`;

/** The command line: the app's own options as flags, plus what only the entry point uses. */
export interface CliOptions
  extends Pick<
    ReferenceOptions,
    | 'dbPath'
    | 'fresh'
    | 'control'
    | 'controlToken'
    | 'tokenTtlSeconds'
    | 'idempotencyTtlSeconds'
    | 'upstreamUrl'
    | 'upstreamTimeoutMs'
    | 'webhookRetryBaseMs'
    | 'webhookTimeoutMs'
    | 'allowWebhookHosts'
    | 'clientWebhooks'
    | 'requestTimeoutMs'
    | 'headersTimeoutMs'
    | 'keepAliveTimeoutMs'
    | 'maxConnections'
    | 'shutdownGraceMs'
    | 'maxConnectionsPerSource'
    | 'maxRequestsPerSource'
    | 'tokenLimits'
    | 'sendMessagesPerSecond'
    | 'wire'
  > {
  help: boolean;
  host: string;
  port: number;
  fixturesPath?: string;
  fixturesOutPath?: string;
  logLevel: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Whether a server bound to HOST is reachable from this machine only: localhost or a loopback address. */
export function isLoopbackHost(host: string): boolean {
  const address = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (address === 'localhost') return true;
  if (isIP(address) === 4) return address.startsWith('127.');
  if (isIP(address) === 6) return /^(0{0,4}:){0,7}:?0{0,3}1$/.test(address) || /^::ffff:127\./.test(address);
  return false;
}

function integer(flag: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(`--${flag} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return Number(value);
}

function seconds(flag: string, value: string | undefined, fallbackSeconds: number): number {
  if (value === undefined) return fallbackSeconds;
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0) throw new ConfigError(`--${flag} must be a positive number of seconds, got "${value}"`);
  return Number(value);
}

function httpUrl(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`--${flag} must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`--${flag} must be an http(s) URL, got "${value}"`);
  return value;
}

/** --client-webhook ROLE:KIND=URL; whether ROLE exists is known only once the fixtures are (reference/fixtures/clientWebhooks.ts). */
function clientWebhooks(values: readonly string[]): ClientWebhookSetting[] {
  const settings = values.map((value) => {
    const match = /^([^:=]+):([^=]*)=(.*)$/.exec(value);
    if (!match) throw new ConfigError(`--client-webhook must be ROLE:KIND=URL with KIND delivery or inbound, got "${value}"`);
    const [, role, kind, url] = match as unknown as [string, string, string, string];
    if (!(CLIENT_WEBHOOK_KINDS as readonly string[]).includes(kind)) throw new ConfigError(`--client-webhook KIND must be delivery or inbound, got "${kind}" in "${value}"`);
    return { role, kind: kind as ClientWebhookSetting['kind'], url: httpUrl('client-webhook', url)! };
  });
  settings.forEach(({ role, kind }, index) => {
    if (settings.findIndex((other) => other.role === role && other.kind === kind) !== index) throw new ConfigError(`--client-webhook ${role}:${kind} is given more than once`);
  });
  return settings;
}

/** The --choice flags over the profile's answers; a choice given twice is refused, not silently overridden. */
function wireChoices(flags: readonly string[]): WireChoices {
  const wire: Record<string, string> = { ...PROFILE_WIRE_CHOICES };
  const given = new Set<WireChoiceName>();
  for (const flag of flags) {
    const [name, value] = parseWireChoice(flag);
    if (given.has(name)) throw new ConfigError(`--choice ${name} is given twice`);
    given.add(name);
    wire[name] = value;
  }
  return wire as WireChoices;
}

/** Reads the command line; any problem is a ConfigError naming the flag. */
export function parseCommandLine(argv: string[]): CliOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        host: { type: 'string' },
        port: { type: 'string' },
        db: { type: 'string' },
        fresh: { type: 'boolean' },
        fixtures: { type: 'string' },
        'fixtures-out': { type: 'string' },
        control: { type: 'boolean' },
        'control-token': { type: 'string' },
        'token-ttl': { type: 'string' },
        'idempotency-ttl': { type: 'string' },
        'upstream-url': { type: 'string' },
        'upstream-timeout': { type: 'string' },
        'webhook-retry-base': { type: 'string' },
        'webhook-timeout': { type: 'string' },
        'allow-webhook-host': { type: 'string', multiple: true },
        'client-webhook': { type: 'string', multiple: true },
        'request-timeout': { type: 'string' },
        'headers-timeout': { type: 'string' },
        'keep-alive-timeout': { type: 'string' },
        'max-connections': { type: 'string' },
        'shutdown-grace': { type: 'string' },
        'max-connections-per-source': { type: 'string' },
        'max-requests-per-source': { type: 'string' },
        'token-requests-per-minute': { type: 'string' },
        'token-failures-per-source': { type: 'string' },
        'token-failures-per-client': { type: 'string' },
        'send-messages-per-second': { type: 'string' },
        'log-level': { type: 'string' },
        choice: { type: 'string', multiple: true },
      },
    }));
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const logLevel = values['log-level'] ?? DEFAULTS.logLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  if (values['control-token'] !== undefined && !values.control) throw new ConfigError('--control-token needs --control');
  if (values['control-token'] === '') throw new ConfigError('--control-token must not be empty');
  const host = values.host ?? DEFAULTS.host;
  // The control plane is never open. Without the operator's token the server makes one, which
  // only the --fixtures-out file tells; on an interface other machines reach, the operator gives it.
  if (values.control && values['control-token'] === undefined) {
    if (!isLoopbackHost(host)) throw new ConfigError(`--control on --host ${host}, which other machines may reach, needs --control-token TOKEN`);
    if (values['fixtures-out'] === undefined) throw new ConfigError('--control without --control-token needs --fixtures-out FILE, where the server writes the control token it makes');
  }
  const requestTimeoutMs = Math.round(seconds('request-timeout', values['request-timeout'], DEFAULTS.requestTimeoutMs / 1000) * 1000);
  const headersTimeoutMs = Math.round(seconds('headers-timeout', values['headers-timeout'], DEFAULTS.headersTimeoutMs / 1000) * 1000);
  // Node refuses a headers timeout longer than the request timeout.
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError('--headers-timeout must not be longer than --request-timeout');
  const allowWebhookHosts = values['allow-webhook-host'] ?? [];
  // A bad entry is a ConfigError naming it.
  for (const entry of allowWebhookHosts) parseAllowedHost(entry);
  return {
    help: values.help ?? false,
    host,
    port: integer('port', values.port, DEFAULTS.port, 0, 65535),
    dbPath: values.db ?? DEFAULTS.dbPath,
    fresh: values.fresh ?? false,
    fixturesPath: values.fixtures,
    fixturesOutPath: values['fixtures-out'],
    control: values.control ?? false,
    controlToken: values['control-token'],
    tokenTtlSeconds: integer('token-ttl', values['token-ttl'], DEFAULTS.tokenTtlSeconds, 1, 365 * 24 * 3600),
    idempotencyTtlSeconds: integer('idempotency-ttl', values['idempotency-ttl'], DEFAULTS.idempotencyTtlSeconds, 1, 365 * 24 * 3600),
    upstreamUrl: httpUrl('upstream-url', values['upstream-url']),
    upstreamTimeoutMs: Math.round(seconds('upstream-timeout', values['upstream-timeout'], DEFAULTS.upstreamTimeoutMs / 1000) * 1000),
    webhookRetryBaseMs: Math.round(seconds('webhook-retry-base', values['webhook-retry-base'], DEFAULTS.webhookRetryBaseMs / 1000) * 1000),
    webhookTimeoutMs: Math.round(seconds('webhook-timeout', values['webhook-timeout'], DEFAULTS.webhookTimeoutMs / 1000) * 1000),
    allowWebhookHosts,
    clientWebhooks: clientWebhooks(values['client-webhook'] ?? []),
    requestTimeoutMs,
    headersTimeoutMs,
    keepAliveTimeoutMs: Math.round(seconds('keep-alive-timeout', values['keep-alive-timeout'], DEFAULTS.keepAliveTimeoutMs / 1000) * 1000),
    shutdownGraceMs: Math.round(seconds('shutdown-grace', values['shutdown-grace'], DEFAULTS.shutdownGraceMs / 1000) * 1000),
    maxConnections: integer('max-connections', values['max-connections'], DEFAULTS.maxConnections, 1, 1_000_000),
    maxConnectionsPerSource: integer('max-connections-per-source', values['max-connections-per-source'], DEFAULTS.maxConnectionsPerSource, 1, 1_000_000),
    maxRequestsPerSource: integer('max-requests-per-source', values['max-requests-per-source'], DEFAULTS.maxRequestsPerSource, 1, 1_000_000),
    tokenLimits: {
      requestsPerSourcePerMinute: integer('token-requests-per-minute', values['token-requests-per-minute'], DEFAULTS.tokenLimits.requestsPerSourcePerMinute, 1, 1_000_000),
      failuresPerSourcePerMinute: integer('token-failures-per-source', values['token-failures-per-source'], DEFAULTS.tokenLimits.failuresPerSourcePerMinute, 1, 1_000_000),
      failuresPerClientPerMinute: integer('token-failures-per-client', values['token-failures-per-client'], DEFAULTS.tokenLimits.failuresPerClientPerMinute, 1, 1_000_000),
    },
    sendMessagesPerSecond: integer('send-messages-per-second', values['send-messages-per-second'], DEFAULTS.sendMessagesPerSecond, 1, 1_000_000),
    logLevel,
    wire: wireChoices(values.choice ?? []),
  };
}
