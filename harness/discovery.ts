// What a target answers to the document's open choices, found by asking it: the token request
// styles it accepts, the client context route, the numbers route and its envelope (found by the
// document's schema: an array of objects with a numberId string), the search route, and the
// update route (from an Allow header, or by writing a number's own settings back to it and
// restoring anything that moved). It sends no message. `init` writes a config from it, and
// `certify --base-url` runs with the routes it found: one implementation of the discovery.
import { itemsAt, resolveTarget } from './config.ts';
import { obtainToken, PreflightError, type PreflightResult } from './preflight.ts';

export interface Route {
  method: string;
  path: string;
}

export interface Discovery {
  baseUrl: string;
  /** How the token request was accepted: "JSON body", "form body" or "HTTP Basic". */
  tokenBy: string;
  /** With the members of the context's assignedNumbers that hold a number, and their values. */
  whoami: (Route & { counts: Record<string, number> }) | null;
  numbers: (Route & { itemsPath: string | null; numbers: Array<Record<string, unknown>> }) | null;
  search: Route | null;
  update: (Route & { how: string }) | null;
}

/** A route discovery left open, and why: what `init` marks OPEN and `certify --base-url` refuses to guess. */
export interface OpenRoute {
  route: 'whoami' | 'numbers' | 'search' | 'update';
  why: string;
}

export class DiscoveryError extends Error {
  override name = 'DiscoveryError';
}

interface Answer {
  status: number;
  headers: Headers;
  json: unknown;
}

const field = (v: unknown, name: string): unknown => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[name] : undefined);

/** Where a numbers answer holds the list (the document's schema: an array of objects with a numberId string). */
export function numbersIn(json: unknown): { itemsPath: string | null; numbers: Array<Record<string, unknown>> } | null {
  const isList = (v: unknown): v is Array<Record<string, unknown>> => Array.isArray(v) && v.every((x) => typeof field(x, 'numberId') === 'string');
  if (isList(json)) return { itemsPath: null, numbers: json };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return null;
  // The envelope is open (4.3): a property of the answer, or of an object in it ("data.items").
  const paths = Object.entries(json).flatMap(([k, v]) => [k, ...(v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).map((inner) => `${k}.${inner}`) : [])]);
  const path = paths.find((p) => isList(itemsAt(json, p)));
  return path === undefined ? null : { itemsPath: path, numbers: itemsAt(json, path) as Array<Record<string, unknown>> };
}

/** Candidate routes, tried in order; the document shows none of them for certain. */
const WHOAMI_PATHS = ['/api/core/whoami', '/api/core/me', '/api/core/client', '/api/core/context'];
const NUMBERS_PATHS = ['/api/core/numbers', '/api/core/numbers/list'];
const SEARCH_PATHS = ['/api/core/numbers/search', '/api/core/search', '/api/core/numbers/available'];
const SETTINGS_FIELDS = ['campaignregId', 'smsEnabled', 'mmsEnabled', 'webhookInboundOverride', 'webhookDeliveryOverride'];

/**
 * Ask the target at `baseUrl` with the primary client's credentials. Throws DiscoveryError when no
 * token is obtained (PreflightError's message when the target does not answer like the interface).
 */
export async function discover(baseUrl: string, primary: { clientId: string; clientSecret: string }, timeoutMs = 15_000): Promise<Discovery> {
  async function ask(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer | null> {
    try {
      const res = await fetch(baseUrl + path, { method, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json', ...init.headers }, ...(init.body !== undefined && { body: init.body }) });
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

  // ---- the token: every request style the document allows, as the preflight tries them ------
  const target = resolveTarget({ baseUrl, clients: { primary } }, '--base-url', {});
  const tokenResult: PreflightResult = { checked: [], notes: [], clients: [] };
  let obtained: Awaited<ReturnType<typeof obtainToken>>;
  try {
    obtained = await obtainToken(target, 'primary', primary, timeoutMs, 'in the environment', tokenResult);
  } catch (e) {
    if (e instanceof PreflightError) throw new DiscoveryError(e.message);
    throw e;
  }
  if (obtained === null) throw new DiscoveryError(`no token: ${tokenResult.notes.join('; ')}`);
  const bearer = { authorization: `Bearer ${obtained.accessToken}` };

  // ---- the client context, the numbers list, the update and search routes --------------------
  let whoami: Discovery['whoami'] = null;
  for (const path of WHOAMI_PATHS) {
    const answer = await ask('GET', path, { headers: bearer });
    if (answer?.status === 200 && typeof field(answer.json, 'apiClientId') === 'string') {
      const summary = field(answer.json, 'assignedNumbers');
      const counts = summary !== null && typeof summary === 'object' && !Array.isArray(summary) ? Object.fromEntries(Object.entries(summary).filter((e): e is [string, number] => typeof e[1] === 'number')) : {};
      whoami = { method: 'GET', path, counts };
      break;
    }
  }

  let numbers: Discovery['numbers'] = null;
  for (const path of NUMBERS_PATHS) {
    const answer = await ask('GET', path, { headers: bearer });
    const list = answer?.status === 200 ? numbersIn(answer.json) : null;
    if (list) {
      numbers = { method: 'GET', path, ...list };
      break;
    }
  }

  let update: Discovery['update'] = null;
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
    const settingsOf = (n: Record<string, unknown>) => Object.fromEntries(SETTINGS_FIELDS.filter((k) => k in n).map((k) => [k, n[k]]));
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

  let search: Route | null = null;
  for (const path of SEARCH_PATHS) {
    // A search sends nothing and changes nothing: a route that exists answers in JSON, not 404 or 405.
    const answer = await ask('POST', path, { headers: { ...bearer, 'content-type': 'application/json' }, body: '{}' });
    if (answer !== null && answer.json !== undefined && answer.status !== 404 && answer.status !== 405) {
      search = { method: 'POST', path };
      break;
    }
  }

  return { baseUrl, tokenBy: obtained.by, whoami, numbers, search, update };
}

/** The routes discovery could not find, each with how it looked. */
export function openRoutes(d: Discovery): OpenRoute[] {
  const open: OpenRoute[] = [];
  if (!d.whoami) open.push({ route: 'whoami', why: `no GET of ${WHOAMI_PATHS.join(', ')} answered 200 with an apiClientId` });
  if (!d.numbers) open.push({ route: 'numbers', why: `no GET of ${NUMBERS_PATHS.join(', ')} answered 200 with an array of objects with a numberId string` });
  if (!d.search) open.push({ route: 'search', why: `no POST of an empty search to ${SEARCH_PATHS.join(', ')} answered in JSON` });
  if (!d.update) {
    open.push({ route: 'update', why: d.numbers && d.numbers.numbers.length > 0 ? "no Allow header, and no method took the number's own settings" : 'the numbers list shows no number to try it on' });
  }
  return open;
}

/** The routes a target config would name, as config.schema.json takes them. */
export function routesOf(d: Discovery): Record<string, unknown> {
  return {
    ...(d.whoami && { whoami: { method: d.whoami.method, path: d.whoami.path } }),
    ...(d.numbers && { numbers: { method: d.numbers.method, path: d.numbers.path, itemsPath: d.numbers.itemsPath } }),
    ...(d.search && { search: { method: d.search.method, path: d.search.path } }),
    ...(d.update && { update: { method: d.update.method, path: d.update.path } }),
  };
}
