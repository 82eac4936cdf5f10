import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../reference/auth/bearer.ts';
import { tokenHash } from '../reference/auth/tokenHash.ts';
import type { Behaviour } from '../reference/behaviour.ts';
import type { ReferenceContext } from '../reference/context.ts';
import type { ExtensionDeps } from '../reference/extension.ts';

/** A fault's entry in the catalogue (FAULTS). */
export interface Fault {
  /** The one requirement (spec/requirements.yaml) the fault breaks. */
  breaks: [string];
  /** What the broken server does, as a reader of the kill matrix needs to know it. */
  description: string;
}

/** What a fault may use when it replaces a member of the behaviour: the server's seeded state. */
export type FaultDeps = ExtensionDeps;

/**
 * A route as fastify registered it, `METHOD /path` (`PATCH /api/core/numbers/:numberId`), or a
 * pattern matched against that.
 */
export type Route = string | RegExp;

/** An answer on its way out, its JSON body parsed; a fault rewrites status, body and headers in place. */
export interface Answer {
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  status: number;
  /** The parsed JSON body; the fault knows its shape from the route it names. */
  body: Record<string, any>;
  /** What the route or one of its hooks threw, when this is an error answer. */
  readonly error: unknown;
  /** Set to answer this text instead of the body (with the content type the fault sets on reply). */
  text?: string;
  /** Set to answer these bytes instead of the body: an encoding other than UTF-8. */
  bytes?: Buffer;
}

/** A hook before the route's handler: it may change the request, or refuse it by throwing. */
export type RequestHook = (request: FastifyRequest, ctx: ReferenceContext) => void | Promise<void>;

/**
 * A fault: its catalogue entry and the code that breaks the server, which leaves the clean code
 * paths alone in one of two ways.
 * - `behaviour` replaces members of the behaviour object (reference/behaviour.ts) that the
 *   routes and services read. It is given the behaviour so far, so it may wrap a member.
 * - Hooks around `route`: `onRequest`, `preValidation` and `preHandler` (fastify's hooks of those
 *   names: before authentication, before the body schema, before the handler) change or refuse
 *   the request; `answer` rewrites the answer (fastify's onSend). They are registered only on a
 *   server with an active fault that has one.
 */
export interface FaultDefinition extends Fault {
  behaviour?: (behaviour: Behaviour, deps: FaultDeps) => Partial<Behaviour>;
  /** The route the hooks below run for; required with any of them. */
  route?: Route;
  onRequest?: RequestHook;
  preValidation?: RequestHook;
  preHandler?: RequestHook;
  answer?: (answer: Answer, ctx: ReferenceContext) => void | Promise<void>;
  /** Keep the request body as written, for the hooks above to read (rawBodyOf); only with a route. */
  rawBody?: boolean;
  /** The body as the server's parser is given it, from the body as written (fastify's preParsing); only with a route. */
  readBodyAs?: (written: string) => string;
}

/** The body of a request as written, kept for a fault that declared `rawBody` on its route. */
const rawBodies = new WeakMap<FastifyRequest, string>();

export function keepRawBody(request: FastifyRequest, text: string): void {
  rawBodies.set(request, text);
}

export function rawBodyOf(request: FastifyRequest): string | undefined {
  return rawBodies.get(request);
}

/** The members of a request's body when it is a JSON object; undefined for any other body (an array, null, a scalar, form fields). */
export function objectBodyOf(request: FastifyRequest): Record<string, unknown> | undefined {
  const body = request.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

/** The route of a request as faults name it, `METHOD /pattern` (`GET undefined` when no route matched). */
export const routeOf = (request: FastifyRequest): string => `${request.method} ${request.routeOptions.url}`;

/** The bearer token a request presents, if its Authorization header is one. */
export const tokenOf = (request: FastifyRequest): string | undefined => bearerToken(request.headers.authorization ?? '');

/** The members of the behaviour that are groups of members (paths, schemas, send, webhooks). */
type Group = { [K in keyof Behaviour]: Behaviour[K] extends (...args: never[]) => unknown ? never : Behaviour[K] extends object ? K : never }[keyof Behaviour];

/** A fault's `behaviour` that replaces one member of a group, given the member it replaces. */
export function replaceMember<G extends Group, M extends keyof Behaviour[G]>(
  group: G,
  member: M,
  replace: (current: Behaviour[G][M], deps: FaultDeps) => Behaviour[G][M],
): NonNullable<FaultDefinition['behaviour']> {
  return (behaviour, deps) => ({ [group]: { ...behaviour[group], [member]: replace(behaviour[group][member], deps) } });
}

/**
 * A preHandler that keeps "the current client" the way a handler with a module-level variable
 * does: it stores the authenticated client there, waits as a database round trip would, and
 * carries on as whichever client the variable names by then. Alone a request gets its own
 * client back; among concurrent requests of several clients, often another's.
 */
export function currentClientAfterAwait(waitMs = 15): RequestHook {
  let current: FastifyRequest['apiClient'] = null;
  return async (request) => {
    current = request.apiClient;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    request.apiClient = current;
  };
}

/** A fault's state kept per server (its context or its stores): this server's entry of `map`, made by `make` the first time. */
export function ofServer<K extends object, T>(map: WeakMap<K, T>, server: K, make: () => T): T {
  let value = map.get(server);
  if (value === undefined) map.set(server, (value = make()));
  return value;
}

/** The hashes of the tokens issued to a client that authenticated with HTTP Basic, per server (the faults that treat those tokens apart). */
const basicTokens = new WeakMap<object, Set<string>>();
export const basicTokensOf = (stores: object): Set<string> => ofServer(basicTokens, stores, () => new Set<string>());

/** An `answer` hook of the token endpoint that files each token it issues after HTTP Basic (basicTokensOf). */
export function fileBasicTokens({ request, status, body }: Answer, { stores }: ReferenceContext): void {
  if (status === 200 && typeof body.access_token === 'string' && /^\s*basic\s/i.test(request.headers.authorization ?? '')) basicTokensOf(stores).add(tokenHash(body.access_token));
}

/** Whether the request's bearer token was issued after HTTP Basic (fileBasicTokens). */
export function carriesBasicToken(request: FastifyRequest, { stores }: ReferenceContext): boolean {
  const token = tokenOf(request);
  return token !== undefined && basicTokensOf(stores).has(tokenHash(token));
}
