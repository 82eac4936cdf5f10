// Before any suite runs: is the run itself sound? Resolve the base URL's host, reach it over
// HTTP, obtain a token for every configured client through the documented token request, and
// list each client's numbers. A failure here is the run's problem — a wrong secret, a wrong
// URL, a server that is down or is not this interface — never a requirement failure of the
// target: the run stops within seconds, naming what failed, the answer received and what to
// check. The one exception is the bundled reference, whose config the harness wrote itself:
// there the failure is the server's, a note, and the suites judge it (stopOrNote). Also the
// first half of `init` (discovery): it returns what it found.
import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { request as undiciRequest } from 'undici';
import type { ClientRole } from './api-client.ts';
import { basicCredentials } from './basic-auth.ts';
import { itemsAt, PROFILE_ROUTES, type ClientCredentials, type Route, type Target } from './config.ts';
import { redactBody } from './evidence.ts';
import { HarnessStop } from './judgement.ts';
import { retryAfterMs } from './rate-limit.ts';
import { issueUnseen, type PrimaryIssuedEarly, type TokenIssuedEarly } from './triggers.ts';

type Method = 'JSON body' | 'form body' | 'HTTP Basic';

/** What one request got: an answer, or why there was none. */
export interface Answer {
  request: string;
  status?: number;
  contentType?: string;
  text?: string;
  json?: unknown;
  headers?: Record<string, string>;
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
  /** The tokens the clients obtained, for the probes after them (never printed). */
  tokens?: Partial<Record<ClientRole, string>>;
  /** Each client's listed numbers as the list shows them. */
  records?: Partial<Record<ClientRole, Array<Record<string, unknown>>>>;
  /** What was checked, a line each, for the log. */
  checked: string[];
  /** What a person should know that does not stop the run (no numbers, a token endpoint off its path). */
  notes: string[];
  clients: PreflightClient[];
  /** The token the preflight obtained for triggers.expireToken's client (kind wait), for the tests that wait it out. */
  tokenIssuedEarly?: TokenIssuedEarly;
  /** The primary client's token of the preflight, the run's oldest: TOKEN-011 presents it once the client has obtained many others. */
  primaryIssuedEarly?: PrimaryIssuedEarly;
  /**
   * A failure the preflight found that no config can cause (checkIdentities): once the server has
   * shown one, what the preflight finds after it may be its consequence, and is the server's too.
   */
  serverFailure?: string;
}

/**
 * A finding that stops a run of the user's target: the config may be what is wrong, and the run
 * cannot tell. On a target the harness started from its own fixtures the config cannot be wrong:
 * the finding is the server's, so it becomes a note and the run goes on, for the suites to judge
 * `judgedBy` (a mutant of the bundled reference that refuses its own credentials is a server that
 * fails TOKEN-001, not a user's mistake).
 */
export function stopOrNote(stop: PreflightError, result: PreflightResult, ownFixtures: boolean | undefined, judgedBy: string): void {
  if (ownFixtures) {
    result.notes.push(`${stop.what} (${stop.answer}): the bundled reference was started from the harness's own fixtures, so this is the server's failure, for the suites to judge (${judgedBy})`);
  } else if (result.serverFailure !== undefined) {
    result.notes.push(`${stop.what} (${stop.answer}): the server had already failed in the preflight (${result.serverFailure}), which this may follow from, so it is taken as the server's failure too, for the suites to judge (${judgedBy}); if it persists once that is fixed, check: ${stop.check}`);
  } else {
    throw stop;
  }
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
  /**
   * The harness started the target itself, from fixtures it wrote (the bundled reference): no
   * config of the user's is involved and the receiver is on the same host, so what would stop
   * the run here is the server's failure, for the suites to judge (stopOrNote).
   */
  ownFixtures?: boolean;
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
      const requestedAt = Date.now();
      const token = await obtainToken(target, role, creds, timeoutMs, config, own, options.ownFixtures);
      const client: PreflightClient = { role, clientId: creds.clientId, tokenBy: token?.by ?? null, numbers: null };
      if (token) {
        own.tokens = { [role]: token.accessToken };
        if (role === 'primary') own.primaryIssuedEarly = { token: token.accessToken, expiresIn: token.expiresIn, requestedAt };
        const records = await listNumbers(target, role, token.accessToken, timeoutMs, config, own, options.ownFixtures);
        if (records !== null) {
          own.records = { [role]: records };
          client.numbers = records.map((n) => n.numberId).filter((id): id is string => typeof id === 'string');
        }
      }
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
            const token = await obtainToken(target, { name: 'expireToken trigger', fields: 'triggers.expireToken.client' }, expireToken.client, timeoutMs, config, own, options.ownFixtures);
            // Kept: its lifetime runs from now, beside the run's start, not from the first test that needs it expired.
            if (token) {
              const receivedAt = Date.now();
              const whoami = (bearer: string) => send(target.routes.whoami, target.baseUrl + target.routes.whoami.path, { authorization: `Bearer ${bearer}` }, undefined, timeoutMs);
              const accepted = await whoami(token.accessToken);
              // The unseen tokens' answers are not the preflight's to report: the one above was.
              const unseen = await issueUnseen(async () => (await obtainToken(target, { name: 'expireToken trigger', fields: 'triggers.expireToken.client' }, expireToken.client, timeoutMs, config, { checked: [], notes: [], clients: [] }))?.accessToken ?? null, whoami);
              const unseenReceivedAt = Date.now();
              if (accepted.status !== undefined) own.tokenIssuedEarly = { clientId: expireToken.client.clientId, token: token.accessToken, expiresIn: token.expiresIn, requestedAt, receivedAt, acceptedBefore: accepted.status, unseen, unseenReceivedAt };
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
    result.tokens = { ...result.tokens, ...check.value.tokens };
    result.records = { ...result.records, ...check.value.records };
    if (check.value.tokenIssuedEarly) result.tokenIssuedEarly = check.value.tokenIssuedEarly;
    if (check.value.primaryIssuedEarly) result.primaryIssuedEarly = check.value.primaryIssuedEarly;
  }
  await checkIdentities(target, result, timeoutMs);
  await checkConfiguredNumbers(target, result, config, timeoutMs, options.ownFixtures);
  const primaryToken = result.tokens?.primary;
  if (primaryToken !== undefined) await checkRoutes(target, primaryToken, result, config, timeoutMs, options.ownFixtures);
  return result;
}

/**
 * The primary and the secondary client are two clients (the config names them apart): a token
 * acts for the client it was issued to (section 5), and two clients see two apiClientIds (section
 * 4.2). Once both have tokens, each token's context is asked again: the same access token issued
 * to both, or both tokens acting for one apiClientId, is a failure no config can cause (a token
 * store keyed by something the clients share, a token overwritten by the other's), so it is the
 * server's, for the suites to judge (AUTH-007, CTX-002), and what the preflight finds after it is
 * taken as the server's too (stopOrNote). Answers that name no apiClientId tell nothing here.
 */
async function checkIdentities(target: Target, result: PreflightResult, timeoutMs: number): Promise<void> {
  const primary = result.tokens?.primary;
  const secondary = result.tokens?.secondary;
  if (primary === undefined || secondary === undefined) return;
  let failure: string | undefined;
  if (primary === secondary) {
    failure = 'the primary and the secondary client were issued the same access token';
  } else {
    const whoami = (bearer: string) => send(target.routes.whoami, target.baseUrl + target.routes.whoami.path, { authorization: `Bearer ${bearer}` }, undefined, timeoutMs);
    const [a, b] = await Promise.all([whoami(primary), whoami(secondary)]);
    const idOf = (answer: Answer) => (answer.status !== undefined && answer.status < 300 ? (answer.json as { apiClientId?: unknown } | undefined)?.apiClientId : undefined);
    const id = idOf(a);
    if (typeof id === 'string' && id === idOf(b)) failure = `the primary client's token and the secondary client's token both act for apiClientId ${JSON.stringify(id)} (${shown(a)}; ${shown(b)})`;
  }
  if (failure === undefined) return;
  result.serverFailure = failure;
  result.notes.push(`${failure}: a token acts for the client it was issued to, and two clients are two apiClientIds, whatever the config says, so this is the server's failure, for the suites to judge (AUTH-007, CTX-002); what the preflight finds after it is taken as the server's too`);
}

/**
 * The numberIds the config names (numbers.sms, .mms, .pool, .foreign) against the lists the clients
 * just returned. Where they disagree, whose mistake it is decides what happens: a legal answer
 * that contradicts the config is the config's (the run stops, naming the field); an answer the
 * document does not allow is the server's, and the suites judge it (a note, and the run goes on).
 * A send from the number tells them apart: the server accepting it from a client whose list
 * leaves the number out, or refusing it from a client whose list shows it, is the server's.
 */
async function checkConfiguredNumbers(target: Target, result: PreflightResult, config: string, timeoutMs: number, ownFixtures: boolean | undefined): Promise<void> {
  const listed = (role: ClientRole) => result.clients.find((c) => c.role === role)?.numbers ?? null;
  const primary = listed('primary');
  const lists = (ids: readonly string[]) => (ids.length === 0 ? 'none' : ids.join(', '));
  const sendsFrom = (role: ClientRole, numberId: string) => probeSend(target, result.tokens?.[role], numberId, timeoutMs);
  for (const field of ['sms', 'mms'] as const) {
    const numberId = target.numbers[field];
    if (numberId === undefined || primary === null || primary.includes(numberId)) continue;
    const probe = await sendsFrom('primary', numberId);
    if (probe !== null && probe.status !== undefined && probe.status >= 200 && probe.status < 300) {
      result.notes.push(`numbers.${field} (${numberId}) is missing from the primary client's list, yet a send from it was accepted (${shown(probe)}): the list leaves out a number the client has, which the suites judge (NUM-001)`);
      continue;
    }
    stopOrNote(new PreflightError(`numbers.${field} (${numberId}) is not one of the primary client's numbers`, `the primary client lists: ${lists(primary)}${probe ? `; a send from it: ${shown(probe)}` : ''}`, `numbers.${field} ${config}: name a numberId the primary client's list returns, or leave it out to use one found there`), result, ownFixtures, 'NUM-001');
  }
  // A pool's numbers likewise, each against its own client's list.
  for (const role of ['primary', 'secondary'] as const) {
    const list = listed(role);
    if (list === null) continue;
    for (const numberId of target.numbers.pool?.[role] ?? []) {
      if (list.includes(numberId)) continue;
      const probe = await sendsFrom(role, numberId);
      const status = probe?.status;
      if (status !== undefined && status >= 200 && status < 300) {
        result.notes.push(`numbers.pool.${role} names ${numberId}, which is missing from the ${role} client's list, yet a send from it was accepted (${shown(probe!)}): the list leaves out a number the client has, which the suites judge (NUM-001)`);
        continue;
      }
      // A pool may hold a number a send is refused from for its own state (no campaignregId):
      // refused for something other than ownership, and taken by an update that changes nothing,
      // it is the client's.
      const update = status !== undefined && status >= 400 && status < 500 && status !== 403 && status !== 404 ? await probeUpdate(target, result.tokens?.[role], numberId, timeoutMs) : null;
      if (update?.status !== undefined && update.status >= 200 && update.status < 300) {
        result.notes.push(`numbers.pool.${role} names ${numberId}, which is missing from the ${role} client's list, yet the client's update of it that changes nothing was accepted (${shown(update)}; a send from it: ${shown(probe!)}): the list leaves out a number the client has, which the suites judge (NUM-001)`);
        continue;
      }
      stopOrNote(new PreflightError(`numbers.pool.${role} names ${numberId}, which is not one of the ${role} client's numbers`, `the ${role} client lists: ${lists(list)}${probe ? `; a send from it: ${shown(probe)}` : ''}`, `numbers.pool.${role} ${config}: name only numberIds the ${role} client's list returns`), result, ownFixtures, 'NUM-001');
    }
  }
  const foreign = target.numbers.foreign;
  if (foreign === undefined) return;
  const secondary = listed('secondary');
  if (primary?.includes(foreign)) {
    // Both lists show it: the primary client's list shows another client's number (NUM-003).
    if (secondary?.includes(foreign)) {
      result.notes.push(`numbers.foreign (${foreign}) is in the secondary client's list and in the primary client's too: the primary client's list shows another client's number, which the suites judge (NUM-003)`);
      return;
    }
    const probe = secondary === null ? await sendsFrom('primary', foreign) : null;
    if (probe?.status === 403) {
      result.notes.push(`numbers.foreign (${foreign}) is in the primary client's list, yet a send from it is refused as not owned (${shown(probe)}): the list shows a number the client does not own, which the suites judge (NUM-003)`);
      return;
    }
    stopOrNote(new PreflightError(`numbers.foreign (${foreign}) is one of the primary client's own numbers`, `the primary client lists: ${lists(primary)}${secondary ? `; the secondary client lists: ${lists(secondary)}` : ''}${probe ? `; a send from it: ${shown(probe)}` : ''}`, `numbers.foreign ${config}: name a number of another client, which the primary client does not own`), result, ownFixtures, 'NUM-003');
    return;
  }
  if (secondary !== null && !secondary.includes(foreign)) {
    const probe = await sendsFrom('secondary', foreign);
    if (probe !== null && probe.status !== undefined && probe.status >= 200 && probe.status < 300) {
      result.notes.push(`numbers.foreign (${foreign}) is missing from the secondary client's list, yet a send from it by that client was accepted (${shown(probe)}): the list leaves out a number the client has, which the suites judge (NUM-001)`);
      return;
    }
    stopOrNote(new PreflightError(`numbers.foreign (${foreign}) is not one of the secondary client's numbers`, `the secondary client lists: ${lists(secondary)}${probe ? `; a send from it: ${shown(probe)}` : ''}`, `numbers.foreign ${config}: name a numberId the secondary client's list returns, or leave it out to use one found there`), result, ownFixtures, 'NUM-001');
  }
}

/** A valid SMS from `numberId` with `token`, to the first recipient the target delivers to: whether the server takes the number as the client's. */
async function probeSend(target: Target, token: string | undefined, numberId: string, timeoutMs: number): Promise<Answer | null> {
  const to = target.recipients.delivered[0];
  if (token === undefined || to === undefined) return null;
  const body = { sendFrom: numberId, to: [to], messageType: 'SMS', text: 'Conformance preflight: is this number the client\'s?', externalReference: `conformance-preflight-${randomUUID().slice(0, 8)}` };
  return send(target.routes.send, target.baseUrl + target.routes.send.path, { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, JSON.stringify(body), timeoutMs);
}

/** An update of the number that changes nothing ({}: every field is optional), by the client whose token it is. */
async function probeUpdate(target: Target, token: string | undefined, numberId: string, timeoutMs: number): Promise<Answer | null> {
  if (token === undefined) return null;
  const path = target.routes.update.path.replace(/\{(\w+)\}/g, () => encodeURIComponent(numberId));
  return send(target.routes.update, target.baseUrl + path, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, '{}', timeoutMs);
}

/**
 * The routes the config leaves to the reference profile where the document does not fix them
 * (whoami's method, the search's and the update's method and path): one the target does not
 * serve (404, 405) is a gap in the config, not the target's failure, and the run stops naming
 * it. A route the config names is the target's to serve: the suites judge it.
 */
async function checkRoutes(target: Target, token: string, result: PreflightResult, config: string, timeoutMs: number, ownFixtures: boolean | undefined): Promise<void> {
  const numberId = result.clients.find((c) => c.role === 'primary')?.numbers?.[0];
  const probes: Array<{ op: 'whoami' | 'search' | 'update'; pathFixed: boolean; body?: string; params?: Record<string, string> }> = [
    // The document fixes whoami's path: only its method is open.
    { op: 'whoami', pathFixed: true },
    // A search and an update that change nothing: an empty search, an empty update of the client's own number.
    { op: 'search', pathFixed: false, body: '{}' },
    ...(numberId !== undefined ? [{ op: 'update' as const, pathFixed: false, body: '{}', params: { numberId } }] : []),
  ];
  for (const { op, pathFixed, body, params } of probes) {
    if (target.routesNamed.includes(op)) continue;
    const route = target.routes[op];
    const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params?.[name] ?? ''));
    const answer = await send(route, target.baseUrl + path, { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) }, body, timeoutMs);
    if (!answered(answer, target, config, result, ownFixtures, op === 'whoami' ? 'CTX-001' : op === 'search' ? 'SEARCH-001' : 'UPD-001')) continue;
    const gap = answer.status === 405 || (answer.status === 404 && !pathFixed);
    if (!gap) continue;
    if (op === 'update' && answer.status === 404 && params?.numberId !== undefined && !(await listedAlone(target, token, params.numberId, timeoutMs))) {
      // The number came from a list read beside other clients' lists; asked alone, the client
      // does not list it: the first list was another client's (NUM-003), and the 404 is about
      // the number, not the route. The suites judge the list.
      result.notes.push(`the update of ${params.numberId} was answered 404, and the primary client, asked alone, does not list that number, which its list showed when read beside the other clients': the suites judge the lists (NUM-003)`);
      continue;
    }
    stopOrNote(
      new PreflightError(
        `routes.${op} is not set, and the reference profile's ${route.method} ${route.path} is not served by the target`,
        shown(answer),
        `routes.${op} ${config}: the document leaves its ${pathFixed ? 'method' : 'method and path'} open; set them to your server's (init finds them: messaging-conformance init --base-url …)`,
      ),
      result,
      ownFixtures,
      op === 'whoami' ? 'CTX-001' : op === 'search' ? 'SEARCH-001' : 'UPD-001',
    );
  }
}

/** Whether the client whose token this is lists `numberId`, asked alone (one request, nothing else in flight for it). */
async function listedAlone(target: Target, token: string, numberId: string, timeoutMs: number): Promise<boolean> {
  const route = target.routes.numbers;
  const answer = await send(route, target.baseUrl + route.path, { authorization: `Bearer ${token}` }, undefined, timeoutMs);
  const items = itemsAt(answer.json, target.routes.numbersItemsPath);
  return Array.isArray(items) && items.some((n) => (n as { numberId?: unknown } | null)?.numberId === numberId);
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
  ownFixtures?: boolean,
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
    if (!answered(answer, target, config, result, ownFixtures, 'TOKEN-001')) return null;
    const status = answer.status!;
    if (status >= 500) {
      stopOrNote(new PreflightError(`the token endpoint fails (${role} client, ${by})`, shown(answer), 'the server and its logs; the run can only start once it answers'), result, ownFixtures, 'TOKEN-001');
      return null;
    }
    if (status >= 300 && status < 400) {
      stopOrNote(new PreflightError(`the token endpoint redirects (${role} client)`, shown(answer), `baseUrl ${config}: the harness does not follow redirects (http or https, a missing path prefix?)`), result, ownFixtures, 'TOKEN-001');
      return null;
    }
    if (answer.json === undefined) {
      stopOrNote(new PreflightError(`the token endpoint does not answer JSON (${role} client, ${by}): this is not the interface at this URL`, shown(answer), `baseUrl ${config} (${target.baseUrl}): it should point at the server, not at a web page or proxy`), result, ownFixtures, 'TOKEN-002');
      return null;
    }
    if (status === 404 || status === 405) return tokenEndpointMissing(target, role, answer, timeoutMs, config, result, ownFixtures);
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
  stopOrNote(
    new PreflightError(
      `the ${role} client (${creds.clientId}) could not obtain a token: every way of presenting its credentials was refused`,
      `POST ${url}: ${refused.join('; ')}`,
      `${fields}.clientId and ${fields}.clientSecret ${config} (or the environment variables they name), and that the client is active on ${target.baseUrl}`,
    ),
    result,
    ownFixtures,
    'TOKEN-001',
  );
  return null;
}

/**
 * A JSON 404 at the document's token path is either a wrong baseUrl or a server that serves
 * the token endpoint elsewhere (VER-001). A core route that answers tells them apart: then the
 * base URL is right and the suites judge the server.
 */
async function tokenEndpointMissing(target: Target, role: string, answer: Answer, timeoutMs: number, config: string, result: PreflightResult, ownFixtures: boolean | undefined): Promise<null> {
  const probe = await send(target.routes.whoami, target.baseUrl + target.routes.whoami.path, {}, undefined, timeoutMs);
  if (probe.status === 401 || probe.status === 403) {
    result.notes.push(`the token endpoint is not served at ${answer.request} (${answer.status}) although ${probe.request} answers ${probe.status}: tests that need a token will fail on VER-001`);
    return null;
  }
  stopOrNote(new PreflightError(`nothing serves the token endpoint at the document's path (${role} client)`, `${shown(answer)}; and ${shown(probe)}`, `baseUrl ${config} (${target.baseUrl}): the interface's paths (/api/auth/token, /api/core/…) are appended to it`), result, ownFixtures, 'VER-001');
  return null;
}

async function listNumbers(target: Target, role: ClientRole, token: string, timeoutMs: number, config: string, result: PreflightResult, ownFixtures?: boolean): Promise<Array<Record<string, unknown>> | null> {
  const route = target.routes.numbers;
  const answer = await send(route, target.baseUrl + route.path, { authorization: `Bearer ${token}` }, undefined, timeoutMs);
  if (!answered(answer, target, config, result, ownFixtures, 'NUM-001')) return null;
  const status = answer.status!;
  const what = `the ${role} client's numbers`;
  const named = target.routesNamed.includes('numbers');
  if (status >= 500) {
    stopOrNote(new PreflightError(`listing ${what} fails`, shown(answer), 'the server and its logs; the run can only start once it answers'), result, ownFixtures, 'NUM-001');
    return null;
  }
  // The document fixes the path (4.3) and leaves the method open: a method the target does not
  // take, where the config left it to the profile, is the config's gap.
  if (status === 405 && !named) {
    stopOrNote(new PreflightError(`listing ${what}: the target does not take ${route.method} ${route.path}`, shown(answer), `routes.numbers ${config}: the document leaves its method open; set it to your server's`), result, ownFixtures, 'NUM-001');
    return null;
  }
  // A token the server has just issued and now refuses, or its own documented path unserved: the
  // server's failure, which the suites judge (AUTH-005, NUM-001), not the config's.
  if (status === 401 || status === 403 || status === 404 || status === 405) {
    result.notes.push(`listing ${what}: ${shown(answer)}: the suites judge it (AUTH-005, NUM-001); tests that need the numbers are not testable`);
    return null;
  }
  if (answer.json === undefined) {
    stopOrNote(new PreflightError(`listing ${what} does not answer JSON: this is not the interface at this URL`, shown(answer), `baseUrl and routes.numbers ${config}`), result, ownFixtures, 'NUM-001');
    return null;
  }
  if (status >= 300) {
    result.notes.push(`listing ${what} is refused: ${shown(answer)}: the suites judge it (NUM-001)`);
    return null;
  }
  const itemsPath = target.routes.numbersItemsPath;
  const items = itemsAt(answer.json, itemsPath);
  if (!Array.isArray(items)) {
    // A list of numbers elsewhere in the answer is the config's to name; none anywhere is the server's failure (NUM-001).
    const elsewhere = listPaths(answer.json);
    // A target that claims the reference profile and leaves this route to it has promised the
    // profile's envelope: a list elsewhere is its failure (NUM-201), for the suites to judge.
    if (elsewhere.length > 0 && target.profile === 'reference' && !named) {
      result.notes.push(`listing ${what}: the list is not where the reference profile puts it (property "${PROFILE_ROUTES.numbersItemsPath}"; the answer holds one at: ${elsewhere.map((p) => p ?? 'the answer itself').join(', ')}): the suites judge it; tests that need the numbers are not testable`);
      return null;
    }
    if (elsewhere.length > 0) {
      stopOrNote(
        new PreflightError(
          `listing ${what}: the list is not where the config says (${itemsPath === null ? 'the answer itself' : `property "${itemsPath}"`})`,
          shown(answer),
          `routes.numbers.itemsPath ${config} (the answer holds a list of numbers at: ${elsewhere.map((p) => (p === null ? 'the answer itself: itemsPath: null' : p)).join(', ')})`,
        ),
        result,
        ownFixtures,
        'NUM-001',
      );
      return null;
    }
    result.notes.push(`listing ${what}: the answer holds no list of numbers (${shown(answer)}): the suites judge it (NUM-001)`);
    return null;
  }
  result.checked.push(`the ${role} client lists ${items.length} number${items.length === 1 ? '' : 's'}`);
  if (items.length === 0) result.notes.push(`the ${role} client has no numbers: tests that send or change settings will be not testable`);
  return items.filter((n): n is Record<string, unknown> => n !== null && typeof n === 'object');
}

/** Where an answer holds an array of objects with a numberId string: the answer itself (null), a property, or one of a property ("data.items"). */
function listPaths(json: unknown): Array<string | null> {
  const isList = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof (x as { numberId?: unknown } | null)?.numberId === 'string');
  if (isList(json)) return [null];
  if (json === null || typeof json !== 'object') return [];
  const paths = Object.entries(json).flatMap(([k, v]) => [k, ...(v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).map((inner) => `${k}.${inner}`) : [])]);
  return paths.filter((p) => isList(itemsAt(json, p)));
}

/**
 * No answer at all is the run's problem: say which, and what to check. On the bundled reference,
 * which answered the harness before (it wrote its fixtures once it listened), a request it
 * leaves unanswered is its own failure (stopOrNote): false, and the caller goes on without it.
 */
function answered(answer: Answer, target: Target, config: string, result: PreflightResult, ownFixtures: boolean | undefined, judgedBy: string): boolean {
  if (!answer.error) return true;
  const { code, message } = answer.error;
  const refused = code === 'ECONNREFUSED';
  const stop =
    code === 'timeout'
      ? new PreflightError(`${answer.request} got no answer within ${message}`, 'none (the connection stayed open, nothing came back)', `that the server at ${target.baseUrl} is up and not stalled; timeouts.requestMs ${config} if it is only slow`)
      : new PreflightError(
          refused ? `nothing answers at ${new URL(target.baseUrl).origin}` : `${answer.request} failed before any answer`,
          `${code}: ${message}`,
          connectionHint(code, target.baseUrl, config),
        );
  stopOrNote(stop, result, ownFixtures, judgedBy);
  return false;
}

/** TLS errors of a certificate this machine does not trust (Node's codes). */
const UNTRUSTED_CERTIFICATE = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT', 'CERT_UNTRUSTED']);

/**
 * What to check when a connection failed before any answer, by the failure's code: a
 * certificate this machine does not trust, a name that does not resolve, and plain HTTP where
 * baseUrl says https each have their own fix; anything else is a server that is not up where
 * baseUrl says. The harness never turns certificate checks off: a certificate from the vendor's
 * own authority is trusted through NODE_EXTRA_CA_CERTS, which Node reads when it starts.
 */
export function connectionHint(code: string, baseUrl: string, config: string): string {
  const { hostname, protocol } = new URL(baseUrl);
  if (UNTRUSTED_CERTIFICATE.has(code)) {
    return `the server's TLS certificate, which this machine does not trust: if your own certificate authority issued it, start certify with NODE_EXTRA_CA_CERTS=/path/to/ca.pem (a PEM file of that authority's certificate)`;
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return `the server's TLS certificate, which is outside its validity period (${code}): renew it on the server`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `that baseUrl ${config} names the host its TLS certificate is for: ${hostname} is not among the certificate's names`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `that ${hostname} (baseUrl ${config}) is the server's host name and resolves from this machine (${code === 'EAI_AGAIN' ? 'the name server did not answer' : 'no such name'})`;
  if (protocol === 'https:' && (code === 'EPROTO' || code === 'ERR_SSL_WRONG_VERSION_NUMBER')) return `that the server speaks TLS on that port: baseUrl ${config} (${baseUrl}) says https, and the answer was not TLS (try http://)`;
  return `that the server is running and baseUrl ${config} (${baseUrl}) names its host and port`;
}

/**
 * One request of the preflight. A 429 with Retry-After is waited out and the same request sent
 * again, as the run's own transport does (harness/rate-limit.ts), at most 4 times: a target
 * that limits its token endpoint or its sends must not make the preflight blame the config.
 */
export async function send(route: Route, url: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const answer = await sendOnce(route, url, headers, body, timeoutMs);
    const wait = answer.status === 429 ? retryAfterMs(answer.headers?.['retry-after']) : null;
    if (wait === null || attempt >= 3 || wait > 60_000) return answer;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

async function sendOnce(route: Route, url: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number): Promise<Answer> {
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
    return { request: requestLine, status: res.statusCode, contentType, text, json, headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')])) };
  } catch (e) {
    const err = e as Error & { code?: string; cause?: { code?: string } };
    const code = controller.signal.aborted || err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT' ? 'timeout' : err.code ?? err.cause?.code ?? err.name;
    return { request: requestLine, error: { code, message: code === 'timeout' ? `${timeoutMs} ms` : err.message } };
  } finally {
    clearTimeout(timer);
  }
}

/** An answer as evidence: status, type and the start of the body, secrets redacted. */
export function shown(answer: Answer): string {
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
