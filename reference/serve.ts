import { chmodSync, writeFileSync } from 'node:fs';
import { buildApp } from './app.ts';
import { parseCommandLine, USAGE } from './cli/args.ts';
import { ConfigError } from './errors.ts';
import type { ReferenceExtension } from './extension.ts';
import { loadFixturesFile } from './fixtures/load.ts';
import { createLogger } from './log.ts';

// The server's command line, run to its end: `npm run serve -- [options]` (reference/main.ts).
// Exit codes: 0 after a clean stop, 2 for a bad flag or fixtures file, 1 when the server cannot
// start (for example, the port is taken). An entry from outside the package may hand it
// extensions (reference/extension.ts); the reference's own entry hands none.

/** Serves with the options `argv` gives until SIGINT or SIGTERM; resolves to the exit code. */
export async function serve(argv: readonly string[], extensions: readonly ReferenceExtension[] = []): Promise<0 | 1 | 2> {
  let cli;
  let fixtures;
  try {
    cli = parseCommandLine([...argv]);
    if (cli.help) {
      process.stdout.write(USAGE);
      return 0;
    }
    fixtures = cli.fixturesPath === undefined ? undefined : loadFixturesFile(cli.fixturesPath);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // One line naming the problem (reference/README.md), and where the flags are listed.
    process.stderr.write(`error: ${error.message}\n(npm run serve -- --help lists the flags)\n`);
    return 2;
  }

  const logger = createLogger(cli.logLevel);
  let app;
  try {
    app = await buildApp({
      dbPath: cli.dbPath,
      fresh: cli.fresh,
      fixtures,
      control: cli.control,
      controlToken: cli.controlToken,
      tokenTtlSeconds: cli.tokenTtlSeconds,
      idempotencyTtlSeconds: cli.idempotencyTtlSeconds,
      upstreamUrl: cli.upstreamUrl,
      upstreamTimeoutMs: cli.upstreamTimeoutMs,
      webhookRetryBaseMs: cli.webhookRetryBaseMs,
      webhookTimeoutMs: cli.webhookTimeoutMs,
      allowWebhookHosts: cli.allowWebhookHosts,
      clientWebhooks: cli.clientWebhooks,
      requestTimeoutMs: cli.requestTimeoutMs,
      headersTimeoutMs: cli.headersTimeoutMs,
      keepAliveTimeoutMs: cli.keepAliveTimeoutMs,
      maxConnections: cli.maxConnections,
      shutdownGraceMs: cli.shutdownGraceMs,
      maxConnectionsPerSource: cli.maxConnectionsPerSource,
      maxRequestsPerSource: cli.maxRequestsPerSource,
      tokenLimits: cli.tokenLimits,
      sendMessagesPerSecond: cli.sendMessagesPerSecond,
      logger,
      extensions,
      wire: cli.wire,
    });
    await app.listen({ host: cli.host, port: cli.port });
  } catch (error) {
    const code = error instanceof ConfigError ? 2 : 1;
    process.stderr.write(`error: cannot start the reference server: ${(error as Error).message}\n`);
    await app?.close();
    return code;
  }

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : cli.port;
  const host = cli.host.includes(':') ? `[${cli.host}]` : cli.host;
  const baseUrl = `http://${host}:${port}`;
  if (cli.fixturesOutPath !== undefined) {
    // It holds every client secret and webhook secret: readable by the server's own user only.
    writeFileSync(cli.fixturesOutPath, `${JSON.stringify(app.reference.describe(baseUrl), null, 2)}\n`, { mode: 0o600 });
    chmodSync(cli.fixturesOutPath, 0o600);
  }
  // The made token is told only by the file (0600), never by the log.
  if (cli.control && cli.controlToken === undefined) {
    logger.info({ fixturesOut: cli.fixturesOutPath }, `the control plane requires a token made at start; it is in ${cli.fixturesOutPath} (controlToken)`);
  }
  process.stdout.write(`reference server listening on ${baseUrl}\n`);

  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  logger.info({ signal }, `${signal}: stopping; requests in progress have ${cli.shutdownGraceMs / 1000} s, then open connections are closed`);
  await app.close();
  return 0;
}

/** Runs `serve` as the process's command: its exit code is the process's. */
export function serveAsCommand(argv: readonly string[], extensions: readonly ReferenceExtension[] = []): void {
  serve(argv, extensions).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
