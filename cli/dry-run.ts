// certify --dry-run: what a run with these settings would do, before anything is sent.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { planOf } from '../harness/plan.ts';
import { loadRunTarget, REPO_ROOT, type RunSettings } from '../harness/settings.ts';

export async function dryRun(settings: RunSettings, env: NodeJS.ProcessEnv): Promise<number> {
  const target = settings.target.source.kind === 'config' ? loadRunTarget(settings, env) : undefined;
  process.stdout.write(planOf(target).join('\n') + '\n\n');
  const listed = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '--list', '-c', 'playwright.config.ts'], { stdio: 'inherit', env, cwd: REPO_ROOT });
  process.stdout.write('\nDry run: nothing was sent.\n');
  return listed.status === 0 ? 0 : 2;
}
