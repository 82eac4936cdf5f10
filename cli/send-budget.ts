// npm run send-budget: measure how many messages each test sends, and write the table the
// plan sizes a run's send cap from (harness/send-budget.json). Certifies the bundled reference
// twice, at two property depths, and reads each test's sends from the reports: a test's sends
// are a fixed part plus a part per property case.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../harness/settings.ts';
import { SEND_BUDGET_FILE, formatSendBudget, type SendBudget } from '../harness/plan.ts';
import type { Report } from '../reports/types.ts';

const RUNS = [25, 50] as const;

function sendsPerTest(runs: number): Map<string, { file: string; title: string; sends: number }> {
  const out = mkdtempSync(join(tmpdir(), 'send-budget-'));
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'cli/certify.ts'), '--runs', String(runs), '--out', out, '--quiet'], { stdio: 'inherit', cwd: REPO_ROOT });
  if (run.status !== 0) throw new Error(`the reference run at --runs ${runs} did not pass (exit ${run.status}): measure on a conformant run`);
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
  const tests = new Map<string, { file: string; title: string; sends: number }>();
  for (const t of report.requirements.flatMap((r) => r.tests)) {
    tests.set(`${t.file}\u0000${t.title}`, { file: t.file, title: t.title, sends: t.attempts.reduce((n, a) => Math.max(n, a.sends ?? 0), 0) });
  }
  return tests;
}

const [low, high] = RUNS.map(sendsPerTest) as [ReturnType<typeof sendsPerTest>, ReturnType<typeof sendsPerTest>];
const budget: SendBudget = { about: '', measuredWith: { runs: [...RUNS] }, files: {} };
for (const [key, { file, title, sends }] of low) {
  const more = high.get(key)?.sends ?? sends;
  const perCase = Math.max(0, Math.round(((more - sends) / (RUNS[1] - RUNS[0])) * 100) / 100);
  const fixed = Math.max(0, Math.round(sends - perCase * RUNS[0]));
  (budget.files[file] ??= {})[title] = [fixed, perCase];
}
writeFileSync(SEND_BUDGET_FILE, formatSendBudget(budget));
process.stdout.write(`wrote ${SEND_BUDGET_FILE}\n`);
