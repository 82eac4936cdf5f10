import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import type { ReferenceContext } from './context.ts';
import type { Db } from './db/open.ts';
import { lockDatabase, type DatabaseLock } from './db/lock.ts';
import { openDatabase } from './db/open.ts';
import { startWriter, type Writer } from './db/writer.ts';
import { SimulatedCarrier } from './delivery/carrier.ts';
import { TokenGuard } from './auth/tokenGuard.ts';
import { referenceBehaviour } from './behaviour.ts';
import { extendedBehaviour, type ReferenceExtension } from './extension.ts';
import { withClientWebhooks } from './fixtures/clientWebhooks.ts';
import { DEMO_FIXTURES } from './fixtures/demo.ts';
import { describeTarget, type TargetDescription } from './fixtures/out.ts';
import { seedFixtures, type SeededClient } from './fixtures/seed.ts';
import { SendRateLimit } from './send/rateLimit.ts';
import { newId } from './ids.ts';
import { LazyRequestLogger } from './log.ts';
import { startSweeper } from './maintenance.ts';
import { CORE_BODY_LIMIT_BYTES, DEFAULTS, PROFILE_WIRE_CHOICES, type ReferenceOptions } from './options.ts';
import { coreRoutes } from './routes/core.ts';
import { coreErrorHandler, coreNotFoundHandler } from './routes/coreErrorHandler.ts';
import { controlRoutes, newControlToken } from './routes/control.ts';
import { methodNotAllowedOnTokenPath, oauthErrorHandler, tokenRoutes } from './routes/token.ts';
import { connectionOptions, limitConnections, limitRequestsPerSource } from './http/limits.ts';
import { boundShutdown } from './http/shutdown.ts';
import { clientErrorHandler, expectationFailed, onTokenPath, registerEdgeHooks, trackPathsInFlight, type PathsInFlight } from './http/rejections.ts';
import { createAjv } from './spec/ajv.ts';
import { createStores } from './store/index.ts';
import { Writes } from './store/writes.ts';
import { UpstreamClient } from './upstream/client.ts';
import { startUpstreamSimulator, type UpstreamSimulator } from './upstream/simulator.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import { unsignedHeaders } from './webhooks/sign.ts';
import { WebhookTargets } from './webhooks/targets.ts';

/** What a caller of buildApp can see of the running reference (tests, main.ts). */
export interface ReferenceHandle {
  readonly seeded: readonly SeededClient[];
  readonly upstreamUrl: string;
  /** The control plane's bearer token (the operator's, or one made at start); undefined without --control. */
  readonly controlToken: string | undefined;
  /** The --fixtures-out document for a server reachable at baseUrl. */
  describe(baseUrl: string): TargetDescription;
}

declare module 'fastify' {
  interface FastifyInstance {
    reference: ReferenceHandle;
  }
}

/**
 * The options, each defaulted, and the extensions: code from outside that changes the server
 * (reference/extension.ts), applied in order; none as shipped.
 */
export type BuildOptions = Partial<ReferenceOptions> & { extensions?: readonly ReferenceExtension[] };

function withDefaults({ extensions: _, ...options }: BuildOptions): ReferenceOptions {
  return {
    dbPath: ':memory:',
    fresh: false,
    control: false,
    tokenTtlSeconds: DEFAULTS.tokenTtlSeconds,
    idempotencyTtlSeconds: DEFAULTS.idempotencyTtlSeconds,
    upstreamTimeoutMs: DEFAULTS.upstreamTimeoutMs,
    webhookRetryBaseMs: DEFAULTS.webhookRetryBaseMs,
    webhookTimeoutMs: DEFAULTS.webhookTimeoutMs,
    requestTimeoutMs: DEFAULTS.requestTimeoutMs,
    headersTimeoutMs: DEFAULTS.headersTimeoutMs,
    keepAliveTimeoutMs: DEFAULTS.keepAliveTimeoutMs,
    maxConnections: DEFAULTS.maxConnections,
    shutdownGraceMs: DEFAULTS.shutdownGraceMs,
    maxConnectionsPerSource: DEFAULTS.maxConnectionsPerSource,
    maxRequestsPerSource: DEFAULTS.maxRequestsPerSource,
    tokenLimits: DEFAULTS.tokenLimits,
    sendMessagesPerSecond: DEFAULTS.sendMessagesPerSecond,
    synchronous: 'FULL',
    allowWebhookHosts: [],
    clientWebhooks: [],
    logger: pino({ level: 'silent' }),
    wire: PROFILE_WIRE_CHOICES,
    ...options,
  };
}

/**
 * The control plane is never open: with it on and no token of the operator's, the server makes
 * one (main.ts writes it to --fixtures-out, where the harness reads it).
 */
function withControlToken(options: ReferenceOptions): ReferenceOptions {
  if (!options.control) return { ...options, controlToken: undefined };
  return { ...options, controlToken: options.controlToken ?? newControlToken() };
}

/**
 * Builds the reference server without listening: opens and seeds the database, starts the
 * upstream simulator unless an upstream URL is given, and registers one plugin per resource.
 * Closing the instance stops everything it started, after committing queued writes.
 */
export async function buildApp(buildOptions: BuildOptions = {}): Promise<FastifyInstance> {
  const options = withControlToken(withDefaults(buildOptions));
  const extensions = buildOptions.extensions ?? [];
  const { logger } = options;
  if (extensions.length > 0) {
    const names = extensions.map((extension) => extension.name);
    logger.warn({ extensions: names }, `EXTENDED: this server's behaviour is changed by ${names.join(', ')}; it is not the reference as shipped`);
  }
  const webhookTargets = new WebhookTargets(options.allowWebhookHosts);
  const fixtures = await withClientWebhooks(options.fixtures ?? DEMO_FIXTURES, options.clientWebhooks, webhookTargets);
  // Before --fresh deletes anything: the file may be another server's.
  const lock: DatabaseLock | undefined = options.dbPath === ':memory:' ? undefined : lockDatabase(options.dbPath);
  // From here on the file is opened by its own name, whatever path named it (db/lock.ts).
  const dbPath = lock?.path ?? options.dbPath;
  let db: Db;
  try {
    db = openDatabase({ path: dbPath, fresh: options.fresh, synchronous: options.synchronous });
  } catch (error) {
    lock?.release();
    throw error;
  }
  let simulator: UpstreamSimulator | undefined;
  let writer: Writer | undefined;
  try {
    const stores = createStores(db);
    // Seeding writes on this connection, before the writer starts; from then on every write
    // goes through the writer.
    const seeded = await seedFixtures(db, stores, fixtures);
    writer = await startWriter({ path: dbPath, synchronous: options.synchronous }, stores, logger);
    const writes = new Writes(writer, stores);
    simulator = options.upstreamUrl === undefined ? await startUpstreamSimulator() : undefined;
    const upstreamUrl = options.upstreamUrl ?? simulator!.url;
    const behaviour = extendedBehaviour(extensions, referenceBehaviour(stores, webhookTargets), { stores, seeded });
    const ctx: ReferenceContext = {
      options,
      behaviour,
      logger,
      db,
      writes,
      stores,
      seeded,
      upstream: new UpstreamClient(upstreamUrl, options.upstreamTimeoutMs),
      // The webhook.signing choice: Standard Webhooks headers (the profile), or none.
      dispatcher: new WebhookDispatcher(writes, stores.outbox, logger, { ...behaviour.webhooks, ...(options.wire['webhook.signing'] === 'none' && { signedHeaders: unsignedHeaders }) }, webhookTargets, options.webhookRetryBaseMs, options.webhookTimeoutMs),
      webhookTargets,
      tokenGuard: new TokenGuard(options.tokenLimits),
      sendRateLimit: new SendRateLimit(options.sendMessagesPerSecond),
      carrier: new SimulatedCarrier(writes, stores.messages, logger),
    };
    return await assemble(ctx, extensions, upstreamUrl, simulator, lock);
  } catch (error) {
    await simulator?.close();
    await writer?.close();
    db.close();
    lock?.release();
    throw error;
  }
}

async function assemble(ctx: ReferenceContext, extensions: readonly ReferenceExtension[], upstreamUrl: string, simulator: UpstreamSimulator | undefined, lock: DatabaseLock | undefined): Promise<FastifyInstance> {
  const pathsInFlight: PathsInFlight = new WeakMap();
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    bodyLimit: CORE_BODY_LIMIT_BYTES,
    genReqId: () => newId('req'),
    childLoggerFactory: (logger, bindings, options) => new LazyRequestLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger,
    // A request id is ours to assign: a client-sent x-request-id is not trusted.
    requestIdHeader: false,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    ...connectionOptions(ctx.options),
    // What Node's parser refuses, and requests during shutdown, in the contract's body
    // (http/rejections.ts) instead of fastify's flat one.
    clientErrorHandler: clientErrorHandler(ctx.behaviour.paths.token, pathsInFlight),
    return503OnClosing: false,
    // The router's own refusals (an over-long path parameter, a malformed URL) are client
    // errors too, and every /api/core answer is in the CORE wrapper: never fastify's flat body.
    frameworkErrors: ctx.behaviour.frameworkErrors,
  });
  limitConnections(app.server, ctx.options);
  boundShutdown(app, ctx.options.shutdownGraceMs);
  trackPathsInFlight(app.server, pathsInFlight);
  app.server.on('checkExpectation', expectationFailed(ctx.behaviour.paths.token));
  // A delivery to this machine on the port the server listens on is refused (the control plane).
  ctx.webhookTargets.listeningPort = () => {
    const address = app.server.address();
    return app.server.listening && typeof address === 'object' && address ? address.port : undefined;
  };
  const ajv = createAjv();
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema));
  app.decorateRequest('apiClient', null);
  app.decorateRequest('idempotencyKey', null);
  app.decorate('reference', {
    seeded: ctx.seeded,
    upstreamUrl,
    controlToken: ctx.options.controlToken,
    describe: (baseUrl: string) => describeTarget(ctx.seeded, ctx.stores, baseUrl, ctx.options.controlToken),
  } satisfies ReferenceHandle);

  registerEdgeHooks(app);
  limitRequestsPerSource(app, ctx.options.maxRequestsPerSource);
  for (const extension of extensions) extension.register?.(app, ctx);
  // What no route's own handler answers (a request no route takes, the hooks that run before
  // routing) is in the contract of its path too: the OAuth body on the token path as the router
  // reads it (percent-encoded or not), the CORE wrapper elsewhere.
  const tokenPath = ctx.behaviour.paths.token;
  app.setErrorHandler((error: FastifyError, request, reply) => (onTokenPath(request.url, tokenPath) ? oauthErrorHandler(error, request, reply) : coreErrorHandler(error, request, reply)));
  // A core path asked with a method its route does not take is 404 (no 405, so no Allow to give: ERR-104);
  // fastify serves HEAD on every GET route (ERR-105).
  app.setNotFoundHandler(coreNotFoundHandler);
  app.addHook('onRequest', methodNotAllowedOnTokenPath(ctx.behaviour.paths.token));
  await app.register(tokenRoutes, { ctx });
  await app.register(coreRoutes, { ctx, prefix: '/api/core' });
  if (ctx.options.control) await app.register(controlRoutes, { ctx, prefix: '/_control' });

  let stopSweeper: (() => void) | undefined;
  app.addHook('onReady', async () => {
    // Finish what an earlier process accepted but did not complete.
    ctx.carrier.resume();
    ctx.dispatcher.resume();
    stopSweeper = startSweeper(ctx.writes, ctx.logger);
  });
  app.addHook('onClose', async () => {
    stopSweeper?.();
    await ctx.dispatcher.close();
    await ctx.upstream.close();
    await simulator?.close();
    ctx.carrier.close();
    await ctx.writes.close();
    ctx.db.close();
    lock?.release();
  });
  return app;
}
