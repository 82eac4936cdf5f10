// Before any suite runs: is the run itself sound? Resolve the base URL's host, reach it over
// HTTP, obtain a token for every configured client through the documented token request, and
// list each client's numbers. A failure here is the run's problem — a wrong secret, a wrong
// URL, a server that is down or is not this interface — never a requirement failure of the
// target: the run stops within seconds, naming what failed, the answer received and what to
// check. Also the first half of a future `init` (discovery) command: it returns what it found.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { request as undiciRequest } from 'undici';
import type { ClientRole } from './api-client.ts';
import { basicCredentials } from './basic-auth.ts';
import { itemsAt, type ClientCredentials, type Route, type Target } from './config.ts';
import { redactBody } from './evidence.ts';
import { HarnessStop } from './judgement.ts';
import type { TokenIssuedEarly } from './triggers.ts';

type Method = 'JSON body' | 'form body' | 'HTTP Basic';

/** What one request got: an answer, or why there was none. */
interface Answer {
  request: string;
  status?: number;
  contentType?: string;
  text?: string;
  json?: unknown;
  /** Transport failure: no answer at all. */
  error?: { code: string; message: string };
}

export interface PreflightClient {
  role: ClientRole;
  clientId: string;
  /** How the token was obtained; null when the endpoint is not served at the document's path (the suites judge that). */
  tokenBy: Method | null;
  /** numberIds the client lists; null when they could not be listed without a token. */
  numbers: string[] | null;
}

export interface PreflightResult {
  /** What was checked, a line each, for the log. */
  checked: string[];
  /** What a person should know that does not stop the run (no numbers, a token endpoint off its path). */
  notes: string[];
  clients: PreflightClient[];
  /** The token the preflight obtained for triggers.expireToken's client (kind wait), for the tests that wait it out. */
  tokenIssuedEarly?: TokenIssuedEarly;
}

/** The run cannot go on: `what` failed, `answer` is the evidence, `check` says what to fix. */
export class PreflightError extends HarnessStop {
  override name = 'PreflightError';
  constructor(
    readonly what: string,
    readonly answer: string,
    readonly check: string,
  ) {
    super(`${what}\n  answer: ${answer}\n  check:  ${check}`);
    // a reader needs the message, not where in the harness it was raised
    this.stack = `${this.name}: ${this.message}`;
  }
}

export interface PreflightOptions {
  /** Where the config came from, to name in "check" lines. */
  origin: string;
  /** Per request; default the target's timeouts.requestMs. */
  timeoutMs?: number;
}

export async function preflight(target: Target, options: PreflightOptions): Promise<PreflightResult> {
  const timeoutMs = options.timeoutMs ?? target.timeouts.requestMs;
  const config = `in ${options.origin}`;
  const result: PreflightResult = { checked: [], notes: [], clients: [] };
  const base = new URL(target.baseUrl);

  if (isIP(base.hostname.replace(/^\[|\]$/g, '')) === 0) {
    try {
      const { address } = await lookup(base.hostname);
      result.checked.push(`${base.hostname} resolves to ${address}`);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      throw new PreflightError(`the host of baseUrl, ${base.hostname}, does not resolve`, `${code}`, `baseUrl ${config} (${target.baseUrl})`);
    }
  }

  // The clients are checked at once: a server may spend a deliberate key derivation on each
  // client's first token. What was found, and the failure that stops the run, are still given in
  // role order, as if the clients had been checked one after another.
  const roles = (['primary', 'secondary', 'special'] as const).filter((r) => target.clients[r]);
  const expireToken = target.triggers.expireToken;
  const checks = await Promise.allSettled([
    ...roles.map(async (role) => {
      const own: PreflightResult = { checked: [], notes: [], clients: [] };
      const creds = target.clients[role]!;
      const token = await obtainToken(target, role, creds, timeoutMs, config, own);
      const client: PreflightClient = { role, clientId: creds.clientId, tokenBy: token?.by ?? null, numbers: null };
      if (token) client.numbers = await listNumbers(target, role, token.accessToken, timeoutMs, config, own);
      own.clients.push(client);
      return own;
    }),
    // The sandbox client of triggers.expireToken comes from the config too: a wrong secret is the
    // run's problem, found now rather than as a failure of the tests that wait for its token.
    ...(expireToken?.kind === 'wait'
      ? [
          (async () => {
            const own: PreflightResult = { checked: [], notes: [], clients: [] };
            const requestedAt = Date.now();
            const token = await obtainToken(target, { name: 'expireToken trigger', fields: 'triggers.expireToken.client' }, expireToken.client, timeoutMs, config, own);
            // Kept: its lifetime runs from now, beside the run's start, not from the first test that needs it expired.
            if (token) {
              const receivedAt = Date.now();
              const whoami = await send(target.routes.whoami, target.baseUrl + target.routes.whoami.path, { authorization: `Bearer ${token.accessToken}` }, undefined, timeoutMs);
              if (whoami.status !== undefined) own.tokenIssuedEarly = { clientId: expireToken.client.clientId, token: token.accessToken, expiresIn: token.expiresIn, requestedAt, receivedAt, acceptedBefore: whoami.status };
            }
            return own;
          })(),
        ]
      : []),
  ]);
  for (const check of checks) {
    if (check.status === 'rejected') throw check.reason;
    result.checked.push(...check.value.checked);
    result.notes.push(...check.value.notes);
    result.clients.push(...check.value.clients);
    if (check.value.tokenIssuedEarly) result.tokenIssuedEarly = check.value.tokenIssuedEarly;
  }
  checkConfiguredNumbers(target, result.clients, config);
  return result;
}

/**
 * The numberIds the config names (numbers.sms, .mms, .foreign) against the lists the clients
 * just returned: a number the primary client does not list cannot be sent from (the document:
 * the listed numberIds are the ones to use as sendFrom), and a "foreign" number the primary
 * client owns is no foreign number. Either would fail the send and ownership checks on the
 * config's mistake; say so now instead.
 */
function checkConfiguredNumbers(target: Target, clients: readonly PreflightClient[], config: string): void {
  const listed = (role: ClientRole) => clients.find((c) => c.role === role)?.numbers ?? null;
  const primary = listed('primary');
  const lists = (ids: readonly string[]) => (ids.length === 0 ? 'none' : ids.join(', '));
  for (const field of ['sms', 'mms'] as const) {
    const numberId = target.numbers[field];
    if (numberId === undefined || primary === null || primary.includes(numberId)) continue;
    throw new PreflightError(`numbers.${field} (${numberId}) is not one of the primary client's numbers`, `the primary client lists: ${lists(primary)}`, `numbers.${field} ${config}: name a numberId the primary client's list returns, or leave it out to use one found there`);
  }
  const foreign = target.numbers.foreign;
  if (foreign === undefined) return;
  if (primary?.includes(foreign)) {
    throw new PreflightError(`numbers.foreign (${foreign}) is one of the primary client's own numbers`, `the primary client lists: ${lists(primary)}`, `numbers.foreign ${config}: name a number of another client, which the primary client does not own`);
  }
  const secondary = listed('secondary');
  if (secondary !== null && !secondary.includes(foreign)) {
    throw new PreflightError(`numbers.foreign (${foreign}) is not one of the secondary client's numbers`, `the secondary client lists: ${lists(secondary)}`, `numbers.foreign ${config}: name a numberId the secondary client's list returns, or leave it out to use one found there`);
  }
}

/** Whose credentials a token request presents: a configured client, or a trigger's own client (its name and config fields). */
type TokenClient = ClientRole | { name: string; fields: string };

export async function obtainToken(
  target: Target,
  client: TokenClient,
  creds: ClientCredentials,
  timeoutMs: number,
  config: string,
  result: PreflightResult,
): Promise<{ accessToken: string; by: Method; expiresIn: unknown } | null> {
  const role = typeof client === 'string' ? client : client.name;
  const fields = typeof client === 'string' ? `clients.${client}` : client.fields;
  const url = target.baseUrl + target.routes.token.path;
  const grant = { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret };
  // Every way the document allows to present the credentials: a server that refuses one of
  // them is for the suites to judge (TOKEN-003..005); one that refuses all of them is refusing
  // the credentials.
  const attempts: Array<[Method, () => Promise<Answer>]> = [
    ['JSON body', () => send(target.routes.token, url, { 'content-type': 'application/json' }, JSON.stringify(grant), timeoutMs)],
    ['form body', () => send(target.routes.token, url, { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams(grant).toString(), timeoutMs)],
    [
      'HTTP Basic',
      () =>
        send(target.routes.token, url, { 'content-type': 'application/x-www-form-urlencoded', authorization: basicCredentials(creds.clientId, creds.clientSecret) }, 'grant_type=client_credentials', timeoutMs),
    ],
  ];
  const refused: string[] = [];
  for (const [by, attempt] of attempts) {
    const answer = await attempt();
    stopUnlessAnswered(answer, target, config);
    const status = answer.status!;
    if (status >= 500) throw new PreflightError(`the token endpoint fails (${role} client, ${by})`, shown(answer), 'the server and its logs; the run can only start once it answers');
    if (status >= 300 && status < 400) throw new PreflightError(`the token endpoint redirects (${role} client)`, shown(answer), `baseUrl ${config}: the harness does not follow redirects (http or https, a missing path prefix?)`);
    if (answer.json === undefined) {
      throw new PreflightError(`the token endpoint does not answer JSON (${role} client, ${by}): this is not the interface at this URL`, shown(answer), `baseUrl ${config} (${target.baseUrl}): it should point at the server, not at a web page or proxy`);
    }
    if (status === 404 || status === 405) return tokenEndpointMissing(target, role, answer, timeoutMs, config, result);
    if (status < 300) {
      const accessToken = (answer.json as { access_token?: unknown } | null)?.access_token;
      if (typeof accessToken === 'string' && accessToken !== '') {
        result.checked.push(`the ${role} client (${creds.clientId}) obtained a token (${by})`);
        return { accessToken, by, expiresIn: (answer.json as { expires_in?: unknown }).expires_in };
      }
      // Accepted without a usable token: the suites judge the token response (TOKEN-002).
      result.notes.push(`the ${role} client's token request was accepted without an access_token (${shown(answer)}); tests that need a token will fail on the token response`);
      return null;
    }
    refused.push(`${by} → ${status} ${excerpt(answer.text ?? '', 120)}`);
  }
  throw new PreflightError(
    `the ${role} client (${creds.clientId}) could not obtain a token: every way of presenting its credentials was refused`,
    `POST ${url}: ${refused.join('; ')}`,
    `${fields}.clientId and ${fields}.clientSecret ${config} (or the environment variables they name), and that the client is active on ${target.baseUrl}`,
  );
}

/**
 * A JSON 404 at the document's token path is either a wrong baseUrl or a server that serves
 * the token endpoint elsewhere (VER-001). A core route that answers tells them apart: then the
 * base URL is right and the suites judge the server.
 */
async function tokenEndpointMissing(target: Target, role: string, answer: Answer, timeoutMs: number, config: string, result: PreflightResult): Promise<null> {
  const probe = await send(target.routes.whoami, target.baseUrl + target.routes.whoami.path, {}, undefined, timeoutMs);
  if (probe.status === 401 || probe.status === 403) {
    result.notes.push(`the token endpoint is not served at ${answer.request} (${answer.status}) although ${probe.request} answers ${probe.status}: tests that need a token will fail on VER-001`);
    return null;
  }
  throw new PreflightError(`nothing serves the token endpoint at the document's path (${role} client)`, `${shown(answer)}; and ${shown(probe)}`, `baseUrl ${config} (${target.baseUrl}): the interface's paths (/api/auth/token, /api/core/…) are appended to it`);
}

async function listNumbers(target: Target, role: ClientRole, token: string, timeoutMs: number, config: string, result: PreflightResult): Promise<string[]> {
  const route = target.routes.numbers;
  const answer = await send(route, target.baseUrl + route.path, { authorization: `Bearer ${token}` }, undefined, timeoutMs);
  stopUnlessAnswered(answer, target, config);
  const status = answer.status!;
  const what = `the ${role} client's numbers`;
  if (status >= 500) throw new PreflightError(`listing ${what} fails`, shown(answer), 'the server and its logs; the run can only start once it answers');
  if (status === 404 || status === 405) throw new PreflightError(`listing ${what}: nothing answers at ${route.method} ${route.path}`, shown(answer), `routes.numbers ${config}`);
  if (status === 401 || status === 403) throw new PreflightError(`listing ${what}: the token the server just issued is refused`, shown(answer), `that clients.${role} ${config} belongs to ${target.baseUrl}, and the server's logs`);
  if (answer.json === undefined) throw new PreflightError(`listing ${what} does not answer JSON: this is not the interface at this URL`, shown(answer), `baseUrl and routes.numbers ${config}`);
  if (status >= 300) throw new PreflightError(`listing ${what} is refused`, shown(answer), `routes.numbers ${config}`);
  const itemsPath = target.routes.numbersItemsPath;
  const items = itemsAt(answer.json, itemsPath);
  if (!Array.isArray(items)) {
    const keys = answer.json && typeof answer.json === 'object' && !Array.isArray(answer.json) ? Object.keys(answer.json) : [];
    throw new PreflightError(
      `listing ${what}: the list is not where the config says (${itemsPath === null ? 'the answer itself' : `property "${itemsPath}"`})`,
      shown(answer),
      `routes.numbers.itemsPath ${config}${keys.length ? ` (the answer has: ${keys.join(', ')})` : Array.isArray(answer.json) ? ' (the answer is the array itself: itemsPath: null)' : ''}`,
    );
  }
  const ids = items.map((n) => (n as { numberId?: unknown } | null)?.numberId).filter((id): id is string => typeof id === 'string');
  result.checked.push(`the ${role} client lists ${items.length} number${items.length === 1 ? '' : 's'}`);
  if (items.length === 0) result.notes.push(`the ${role} client has no numbers: tests that send or change settings will be not testable`);
  return ids;
}

/** No answer at all is the run's problem: say which, and what to check. */
function stopUnlessAnswered(answer: Answer, target: Target, config: string): void {
  if (!answer.error) return;
  const { code, message } = answer.error;
  if (code === 'timeout') {
    throw new PreflightError(`${answer.request} got no answer within ${message}`, 'none (the connection stayed open, nothing came back)', `that the server at ${target.baseUrl} is up and not stalled; timeouts.requestMs ${config} if it is only slow`);
  }
  const refused = code === 'ECONNREFUSED';
  throw new PreflightError(
    refused ? `nothing answers at ${new URL(target.baseUrl).origin}` : `${answer.request} failed before any answer`,
    `${code}: ${message}`,
    `that the server is running and baseUrl ${config} (${target.baseUrl}) names its host and port`,
  );
}

async function send(route: Route, url: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number): Promise<Answer> {
  const requestLine = `${route.method} ${url}`;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await undiciRequest(url, { method: route.method as 'GET', headers: { accept: 'application/json', ...headers }, body, signal: controller.signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    const text = await res.body.text();
    const contentType = String(res.headers['content-type'] ?? '');
    // A JSON body under the wrong Content-Type is still the interface answering (ERR-004 is for
    // the suites to judge); a body that is not JSON at all is not the interface.
    let json: unknown;
    try {
      json = text.trim() === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { request: requestLine, status: res.statusCode, contentType, text, json };
  } catch (e) {
    const err = e as Error & { code?: string; cause?: { code?: string } };
    const code = controller.signal.aborted || err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT' ? 'timeout' : err.code ?? err.cause?.code ?? err.name;
    return { request: requestLine, error: { code, message: code === 'timeout' ? `${timeoutMs} ms` : err.message } };
  } finally {
    clearTimeout(timer);
  }
}

/** An answer as evidence: status, type and the start of the body, secrets redacted. */
function shown(answer: Answer): string {
  if (answer.error) return `${answer.request}: no answer (${answer.error.code})`;
  let body: unknown = answer.text ?? '';
  if (answer.json !== undefined) body = JSON.stringify(redactBody(answer.json));
  const type = answer.contentType || '(no content type)';
  return `${answer.request} → ${answer.status} ${type} ${excerpt(String(body), 200)}`;
}

function excerpt(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat || '(empty body)';
}
