// Running the CLIs the way a person does: from a directory of their own (npm tells the
// script where in INIT_CWD), with an environment of their own.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../../harness/settings.ts';
import type { Report } from '../../reports/types.ts';
import { test } from '@playwright/test';
import { runNode, tempDir, type ChildResult } from '../reports/run-fixture.ts';

export const EXAMPLES = join(REPO_ROOT, 'examples');

/** The ${VAR}s a file reads, each given a placeholder value. */
export function placeholderEnv(file: string): Record<string, string> {
  const names = [...readFileSync(file, 'utf8').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
  return Object.fromEntries(names.map((n) => [n, `placeholder-${n.toLowerCase()}`]));
}

export interface CliRun extends ChildResult {
  ms: number;
  /** report.json of --out, when one was written. */
  report?: Report;
  summary: string;
}

/** `npm run <script> -- ARGS` as run from `userDir`: node --import tsx FILE, with INIT_CWD set as npm sets it. */
export async function runCli(file: string, args: string[], options: { userDir?: string; env?: Record<string, string | undefined>; out?: string } = {}): Promise<CliRun> {
  const started = Date.now();
  const result = await runNode(['--import', 'tsx', join(REPO_ROOT, file), ...args], { INIT_CWD: options.userDir ?? REPO_ROOT, ...options.env });
  const reportFile = options.out ? join(options.out, 'report.json') : undefined;
  const report = reportFile && existsSync(reportFile) ? (JSON.parse(readFileSync(reportFile, 'utf8')) as Report) : undefined;
  return { ...result, ms: Date.now() - started, ...(report && { report }), summary: summaryOf(result.stdout) };
}

/** The summary line: the last line that starts with a verdict. */
export function summaryOf(stdout: string): string {
  return stdout.split('\n').filter((l) => /^(CONFORMANT|NOT CONFORMANT|PARTIAL|HARNESS ERROR)\b/.test(l)).at(-1) ?? '';
}

/** The bundled reference, fresh, on a free port; its fixtures file describes it. */
export interface Reference {
  baseUrl: string;
  fixtures: ReferenceFixtures;
  stop(): Promise<void>;
}

export interface ReferenceFixtures {
  baseUrl: string;
  clients: Array<{ role: string; clientId: string; clientSecret: string; webhookSecret?: string; numbers: Array<{ numberId: string }> }>;
}

/** `entry` is the reference's own unless a test starts it broken (faults/main.ts, with --faults among `args`). */
export async function startReference(dir: string, options: { port?: number; args?: string[]; entry?: string } = {}): Promise<Reference> {
  const fixturesFile = join(dir, 'fixtures.json');
  const args = ['--port', String(options.port ?? 0), '--fresh', '--db', join(dir, 'ref.db'), '--log-level', 'warn', '--allow-webhook-host', '127.0.0.1', '--fixtures-out', fixturesFile, ...(options.args ?? [])];
  const child = spawn(process.execPath, ['--import', 'tsx', options.entry ?? 'reference/main.ts', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Its stderr goes on to ours, and its end is kept for the message of a stop that fails.
  let stderrTail = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    stderrTail = (stderrTail + chunk.toString()).slice(-2000);
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the reference exited with ${code}`)));
  });
  const fixtures = JSON.parse(readFileSync(fixturesFile, 'utf8')) as ReferenceFixtures;
  return {
    baseUrl,
    fixtures,
    stop: () => stopChild(child, () => stderrTail),
  };
}

/** How long a stopped reference has to exit: its shutdown grace (5 s) and some room. */
const STOP_BOUND_MS = 20_000;

/**
 * SIGTERM, and the exit awaited. A child that has already exited is not waited for (its 'exit'
 * came before, and would never come again), and one still running after STOP_BOUND_MS is killed:
 * either way the stop fails saying which, with the end of the child's stderr. A reference that
 * crashes or does not stop has a defect of its own (its shutdown is tested in
 * test/reference/shutdown.test.ts); a hook timeout would hide which.
 */
async function stopChild(child: ChildProcess, stderrTail: () => string): Promise<void> {
  const said = () => (stderrTail() ? `; the end of its stderr:\n${stderrTail()}` : '');
  if (child.exitCode !== null || child.signalCode !== null) {
    // It stopped by itself, before anyone asked: a crash is the reference's own defect.
    if (child.exitCode === 0) return;
    throw new Error(`the reference (pid ${child.pid}) had exited by itself (${child.exitCode ?? child.signalCode}) before it was stopped${said()}`);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_BOUND_MS)));
  const outcome = await Promise.race([exited, bound]);
  clearTimeout(timer);
  if (outcome === 'late') {
    child.kill('SIGKILL');
    await exited;
    throw new Error(`the reference (pid ${child.pid}) was still running ${STOP_BOUND_MS / 1000} s after SIGTERM, and was killed${said()}`);
  }
}

/** A target config (YAML) for the reference, with some fields changed; returns its path. */
export function referenceConfig(dir: string, name: string, ref: ReferenceFixtures, change: (c: Record<string, any>) => void = () => {}): string {
  const creds = (role: string) => {
    const c = ref.clients.find((x) => x.role === role)!;
    return { clientId: c.clientId, clientSecret: c.clientSecret };
  };
  const config: Record<string, any> = { label: name, baseUrl: ref.baseUrl, profile: 'reference', clients: { primary: creds('primary'), secondary: creds('secondary') } };
  change(config);
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(config));
  return file;
}

/** A server that answers every request with `handler`, or never answers (handler null). */
export async function fakeServer(handler: ((req: IncomingMessage, res: ServerResponse) => void) | null): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (handler) handler(req, res);
    // else: keep the connection open and say nothing
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A fresh bundled reference for the tests of one file (per worker): started before them,
 * stopped after. Read `.reference` and `.dir` inside a test.
 */
export function referenceForFile(prefix: string): { reference: Reference; dir: string } {
  const shared = {} as { reference: Reference; dir: string };
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    shared.dir = tempDir(prefix);
    shared.reference = await startReference(shared.dir);
  });
  test.afterAll(async () => shared.reference?.stop());
  return shared;
}
