// Running the CLIs the way a person does: from a directory of their own (npm tells the
// script where in INIT_CWD), with an environment of their own.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../harness/settings.ts';
import type { Report } from '../../reports/types.ts';
import { runNode, type ChildResult } from '../reports/run-fixture.ts';

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
