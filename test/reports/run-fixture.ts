// Runs the fixture suite (test/reports/fixture-suite) in a child Playwright process, the way a
// real conformance run uses the reporter, and returns its exit code, output and report.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConformanceReporterOptions } from '../../reports/reporter.ts';
import type { Report, Verdict } from '../../reports/types.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURE_CONFIG = join(ROOT, 'test/reports/fixture-suite/playwright.config.ts');
const PLAYWRIGHT_CLI = join(ROOT, 'node_modules/@playwright/test/cli.js');

export const FIXTURE_TARGET = { label: 'fixture server', baseUrl: 'http://fixture.invalid', profile: 'reference' };

export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface FixtureRun extends ChildResult {
  outDir: string;
  report: Report | undefined;
}

export function tempDir(prefix = 'reports-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The parent runner's own variables would steer the child Playwright: leave them out. */
export function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(PW_|PLAYWRIGHT_|TEST_|CONFORMANCE_|FIXTURE_)/.test(k)) env[k] = v;
  }
  env.FORCE_COLOR = '0';
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function runNode(args: string[], env: Record<string, string | undefined> = {}, cwd = ROOT): Promise<ChildResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, env: childEnv(env), maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `node --import tsx FILE ARGS` (what `npm run verify` etc. do, minus npm's start-up). */
export function runTsx(file: string, args: string[], cwd = ROOT): Promise<ChildResult> {
  return runNode(['--import', 'tsx', join(ROOT, file), ...args], {}, cwd);
}

export interface FixtureOptions {
  /** Extra Playwright CLI arguments (--grep, --shard, --reporter). */
  args?: string[];
  /** Extra environment (FIXTURE_BREAK…). */
  env?: Record<string, string | undefined>;
  /** Reporter options beside outDir and catalogue (default target: FIXTURE_TARGET). */
  reporter?: Omit<ConformanceReporterOptions, 'target'> & { target?: unknown };
  outDir?: string;
  /** `merge-reports DIR` instead of `test`. */
  mergeFrom?: string;
}

export async function runFixture(options: FixtureOptions = {}): Promise<FixtureRun> {
  const outDir = options.outDir ?? tempDir();
  const command = options.mergeFrom ? ['merge-reports', '-c', FIXTURE_CONFIG, options.mergeFrom] : ['test', '-c', FIXTURE_CONFIG];
  const result = await runNode([PLAYWRIGHT_CLI, ...command, ...(options.args ?? [])], {
    FIXTURE_REPORTER: JSON.stringify({ target: FIXTURE_TARGET, ...options.reporter }),
    FIXTURE_OUT: outDir,
    ...options.env,
  });
  const file = join(outDir, 'report.json');
  const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Report) : undefined;
  return { ...result, outDir, report };
}

export function verdicts(report: Report | undefined): Record<string, Verdict> {
  if (!report) throw new Error('the run wrote no report.json');
  return Object.fromEntries(report.requirements.map((r) => [r.id, r.verdict]));
}

/** What the fixture suite yields for a target declaring the reference profile, not strict. */
export const EXPECTED_VERDICTS: Record<string, Verdict> = {
  'FIX-001': 'pass',
  'FIX-002': 'fail',
  'FIX-003': 'not testable here',
  'FIX-004': 'not run',
  'FIX-005': 'not run',
  'FIX-006': 'fail',
  'FIX-007': 'not testable here',
  'FIX-008': 'pass',
  'FIX-101': 'non-strict fail',
  'FIX-102': 'pass',
  'FIX-201': 'pass',
  'FIX-202': 'fail',
};

/** The last line a run prints: the summary. */
export function lastLine(s: string): string {
  return s.trimEnd().split('\n').at(-1) ?? '';
}
