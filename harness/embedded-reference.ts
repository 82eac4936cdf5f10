// The bundled reference as a run's target: how it is started (one command line, whoever starts
// it), and how the global setup waits for one that certify started beside Playwright.
//
// certify starts it itself (cli/certify.ts) right after it starts Playwright, so its start
// (compiling and loading the server, opening a fresh database, seeding) overlaps Playwright's
// own start and the loading of the config, which take longer; the global setup then waits for
// the fixtures file the reference writes once it listens. A bare `npx playwright test` has no certify around it:
// playwright.config.ts's webServer starts the same command, from the TypeScript sources.
import { buildSync } from 'esbuild';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REFERENCE_ENTRY, referenceDatabase, referenceFixturesFile, REPO_ROOT, type TargetSource } from './settings.ts';

type ReferenceSource = Extract<TargetSource, { kind: 'reference' }>;

/** How long the global setup waits for a reference certify started (it is usually up in 2 s). */
export const REFERENCE_START_TIMEOUT_MS = 60_000;

/** `node` runs an entry's TypeScript sources through tsx's loader, as `npm run serve` does. */
export const fromSource = (entry: string): readonly string[] => ['--import', 'tsx', entry];

/** The reference's sources, run as `npm run serve` runs them. */
export const REFERENCE_FROM_SOURCE = fromSource(REFERENCE_ENTRY);

/**
 * Where `compiledReference` writes an entry's server: inside the harness, one folder below the
 * entry's (reference/.compiled/) like the sources' own folders, so that what its modules find
 * from import.meta.url (spec/openapi.yaml, the writer thread's module) and its packages
 * (node_modules) resolve as they do from the sources.
 */
export const compiledDir = (entry: string): string => join(REPO_ROOT, dirname(entry), '.compiled');

const compiled = new Map<string, readonly string[]>();

/**
 * `node` arguments that run the reference compiled: its TypeScript (not its packages) in one
 * module by esbuild, written afresh once per process that asks (about 50 ms), so it is never
 * older than the sources. Node then loads one file instead of about a hundred, each through
 * tsx's loader: the server listens about half a second sooner and its start costs as much less
 * CPU (bench/certify-time.ts). Files are written whole (renamed into place), so runs starting
 * together read complete ones. Where the harness cannot be written to (an installed package in
 * a read-only place) the reference runs from its sources as before: the same server, slower to
 * start.
 */
export function compiledReference(entry = REFERENCE_ENTRY): readonly string[] {
  if (!compiled.has(entry)) compiled.set(entry, compileReference(entry));
  return compiled.get(entry)!;
}

/** Compiles `entry` into `dir` (tests give another); the sources' arguments when it cannot. */
export function compileReference(entry = REFERENCE_ENTRY, dir = compiledDir(entry)): readonly string[] {
  try {
    const { outputFiles } = buildSync({
      absWorkingDir: REPO_ROOT,
      entryPoints: [entry, 'reference/db/writerThread.ts'],
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outdir: dir,
      entryNames: '[name]',
      outExtension: { '.js': '.mjs' },
      // an error's stack names the TypeScript file and line it came from
      sourcemap: 'linked',
      write: false,
      logLevel: 'silent',
    });
    mkdirSync(dir, { recursive: true });
    for (const file of outputFiles) {
      const partial = `${file.path}.${process.pid}.tmp`;
      writeFileSync(partial, file.contents);
      renameSync(partial, file.path);
    }
    return ['--enable-source-maps', relative(REPO_ROOT, join(dir, 'main.mjs'))];
  } catch {
    return fromSource(entry);
  }
}

/** `node` arguments that start the bundled reference for a run, run from REPO_ROOT. */
export function referenceArgs(source: ReferenceSource, entry: readonly string[] = compiledReference(source.entry)): string[] {
  return [
    ...entry,
    // What the entry adds of its own (none for the reference's).
    ...source.entryArgs,
    '--host', '127.0.0.1',
    '--port', String(source.port),
    '--db', referenceDatabase(source),
    // The harness's webhook receiver listens on loopback, which the reference refuses unless allowed.
    '--fresh', '--control', '--log-level', 'warn', '--allow-webhook-host', '127.0.0.1',
    // Waits the suites sit out, shortened from the operator's defaults (run time, not behaviour):
    // a stalled upstream (SEARCH-203) is given up after 0.2 s instead of 2, and a failed webhook
    // attempt (WH-103, WH-104) is retried after 50-100 ms instead of 250-500.
    '--upstream-timeout', '0.2',
    '--webhook-retry-base', '0.1',
    // and a receiver that does not answer (WH-104) is given up after 3 s instead of 10 (longer
    // than WH-009's test waits to call a send held back by its callback's answer).
    '--webhook-timeout', '3',
    // The suites fail client authentication on purpose, thousands of times at --deep: the
    // reference's per-minute token limits (sized for an exposed server, and tested in
    // test/reference/token-limits.test.ts) would make the run wait minutes for nothing.
    '--token-failures-per-source', '100000', '--token-failures-per-client', '100000', '--token-requests-per-minute', '100000',
    // And it sends up to about 1,500 messages a run, a few hundred a second at its busiest (eight
    // property cases at once): far above what it needs, so that a run never waits out a 429 of
    // the send rate limit (tested in test/reference/send-rate.test.ts).
    '--send-messages-per-second', '1000000',
    '--fixtures-out', referenceFixturesFile(source),
  ];
}

/**
 * The same, as the shell command Playwright's webServer runs. From the sources: the config that
 * holds it is loaded by every worker too, and none of them should write the compiled server.
 */
export function referenceCommand(source: ReferenceSource): string {
  return ['node', ...referenceArgs(source, fromSource(source.entry))].map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** Starts the bundled reference for a run (compiled, `referenceArgs`), from REPO_ROOT; its stderr is piped for the caller. */
export function startReference(source: ReferenceSource): ChildProcess {
  return spawn(process.execPath, referenceArgs(source), { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Stops a reference started for a run, once the run is over (SIGTERM: it closes its database cleanly), SIGKILL after 5 s. */
export async function stopReference(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** How certify says the bundled reference exited before it ever served (mutation runs tell such a mutant apart by it). */
export const REFERENCE_DID_NOT_START = 'the bundled reference did not start';

/**
 * How certify says the bundled reference, having served, ended on its own before the run did:
 * followed by its exit code (a number: it failed; a signal: something stopped it) and why the run
 * stops. Mutation runs count a mutant whose reference ended with an exit code as caught.
 */
export const REFERENCE_EXITED = 'the bundled reference exited';

/**
 * Resolves once the reference certify started has written its fixtures file, which it does
 * after it listens. Throws when that takes longer than `timeoutMs` (certify stops the run
 * sooner, with the reference's own error, when the reference exits).
 */
export async function awaitReference(source: ReferenceSource, timeoutMs = REFERENCE_START_TIMEOUT_MS): Promise<void> {
  const file = referenceFixturesFile(source);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      JSON.parse(readFileSync(file, 'utf8'));
      return;
    } catch {
      // not written yet, or being written
    }
    if (Date.now() > deadline) {
      throw new Error(`the bundled reference did not start within ${timeoutMs / 1000} s: no ${file} (started by certify on port ${source.port}, from ${REPO_ROOT})`);
    }
    await sleep(20);
  }
}
