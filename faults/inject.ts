import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Behaviour } from '../reference/behaviour.ts';
import type { ReferenceContext } from '../reference/context.ts';
import type { ReferenceExtension } from '../reference/extension.ts';
import { Readable } from 'node:stream';
import { keepRawBody, routeOf, type Answer, type FaultDefinition, type FaultDeps, type RequestHook } from './fault.ts';
import { DEFINITIONS, FAULT_NAMES, type FaultName } from './index.ts';

// How active faults reach the server: as one extension (reference/extension.ts), the reference's
// one way in for code from outside it, so nothing of the reference knows faults exist. Without
// faults there is no extension: the behaviour is the reference's own and no hook is registered.

const REQUEST_HOOKS = ['onRequest', 'preValidation', 'preHandler'] as const;

/** The active faults in catalogue order. */
function active(faults: ReadonlySet<FaultName>): FaultDefinition[] {
  return FAULT_NAMES.filter((name) => faults.has(name)).map((name) => {
    const fault: FaultDefinition = DEFINITIONS[name];
    if (fault.route === undefined && (fault.answer || fault.rawBody || fault.readBodyAs || REQUEST_HOOKS.some((hook) => fault[hook]))) throw new Error(`fault ${name} has hooks but no route`);
    return fault;
  });
}

/** The active faults as the reference's extension: buildApp's `extensions: [faultExtension(names)]`. */
export function faultExtension(names: Iterable<FaultName>): ReferenceExtension {
  const faults = new Set(names);
  return {
    name: `faults ${[...faults].join(', ')}`,
    behaviour: (behaviour, deps) => behaviourWith(faults, behaviour, deps),
    register: (app, ctx) => {
      ctx.logger.warn({ faults: [...faults] }, `FAULTS INJECTED: this server is deliberately broken (${[...faults].join(', ')}); never certify against it`);
      registerFaultHooks(app, ctx, faults);
    },
  };
}

/** The behaviour with the replacements of the active faults, applied in catalogue order. */
function behaviourWith(faults: ReadonlySet<FaultName>, behaviour: Behaviour, deps: FaultDeps): Behaviour {
  for (const fault of active(faults)) {
    if (fault.behaviour) behaviour = { ...behaviour, ...fault.behaviour(behaviour, deps) };
  }
  return behaviour;
}

function runsFor(fault: FaultDefinition, request: FastifyRequest): boolean {
  const route = routeOf(request);
  return typeof fault.route === 'string' ? fault.route === route : fault.route!.test(route);
}

/**
 * Registers the request and answer hooks of the active faults on the root instance, so they
 * run for every route (before the routes' own hooks). Call before the routes are registered.
 */
function registerFaultHooks(app: FastifyInstance, ctx: ReferenceContext, names: ReadonlySet<FaultName>): void {
  const faults = active(names);

  // The body as written, read before the parser and handed on unchanged, or as a fault reads it.
  const readers = faults.filter((fault) => fault.rawBody || fault.readBodyAs);
  if (readers.length > 0) {
    app.addHook('preParsing', async (request, _reply, payload) => {
      const running = readers.filter((fault) => runsFor(fault, request));
      if (running.length === 0) return payload;
      const chunks: Buffer[] = [];
      for await (const chunk of payload) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      keepRawBody(request, bytes.toString('utf8'));
      const read = running.reduce((text, fault) => fault.readBodyAs?.(text) ?? text, bytes.toString('utf8'));
      // The length received stays the one written, which fastify checks against Content-Length.
      const stream = Readable.from([read === bytes.toString('utf8') ? bytes : Buffer.from(read)]) as Readable & { receivedEncodedLength?: number };
      stream.receivedEncodedLength = bytes.length;
      return stream;
    });
  }

  for (const hook of REQUEST_HOOKS) {
    const hooks = faults.filter((fault) => fault[hook]).map((fault) => [fault, fault[hook]!] as [FaultDefinition, RequestHook]);
    if (hooks.length === 0) continue;
    app.addHook(hook, async (request: FastifyRequest) => {
      for (const [fault, run] of hooks) if (runsFor(fault, request)) await run(request, ctx);
    });
  }

  const rewrites = faults.filter((fault) => fault.answer);
  if (rewrites.length === 0) return;
  // onError runs before the error handler answers, so the rewrite can see what was thrown.
  const errors = new WeakMap<FastifyRequest, unknown>();
  app.addHook('onError', async (request, _reply, error) => {
    errors.set(request, error);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const matching = rewrites.filter((fault) => runsFor(fault, request));
    if (matching.length === 0 || typeof payload !== 'string') return payload;
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      return payload;
    }
    if (typeof body !== 'object' || body === null) return payload;
    const answer: Answer = { request, reply, status: reply.statusCode, body: body as Answer['body'], error: errors.get(request) };
    for (const fault of matching) await fault.answer!(answer, ctx);
    reply.code(answer.status);
    return answer.bytes ?? answer.text ?? JSON.stringify(answer.body);
  });
}
