// Facts about the harness itself that a certificate must carry: which harness (package.json)
// at which revision, so a customer can tell what code produced a verdict.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT } from '../harness/settings.ts';
import type { Report } from './types.ts';

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null; // not a git checkout (a release tarball) or git missing: the report says null
  }
}

export function harnessInfo(): Report['harness'] {
  let name = 'unknown';
  let version = '0.0.0';
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name?: string; version?: string };
    name = pkg.name ?? name;
    version = pkg.version ?? version;
  } catch {
    // keep the placeholders: a report without a harness version is still a report
  }
  // An installed harness sits in node_modules, perhaps inside the user's own checkout: only a
  // checkout of the harness itself names the harness's revision.
  const top = git(['rev-parse', '--show-toplevel']);
  const revision = top !== null && resolve(top) === REPO_ROOT ? git(['rev-parse', 'HEAD']) : null;
  const status = revision === null ? null : git(['status', '--porcelain', '--untracked-files=no']);
  return { name, version, gitRevision: revision && /^[0-9a-f]{40,64}$/.test(revision) ? revision : null, gitDirty: status === null ? null : status !== '' };
}
