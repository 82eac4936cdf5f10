// A requirement's `needs` in spec/requirements.yaml are what any of its tests needs: then the
// dry run's "not testable here" list (from `needs`) is the one the run reports (from the tests).
// Checked on what the spec files ask for: the secondClient fixture and the triggers
// (harness/triggers.ts) each TriggerSet method reaches.
import { expect, test } from '@playwright/test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadCatalogue } from '../../harness/catalogue.ts';
import { REPO_ROOT } from '../../harness/settings.ts';

/** The capability each TriggerSet method reaches. */
const TRIGGER_OF: Record<string, string> = {
  upstreamFailures: 'upstreamFailure',
  upstreamStall: 'upstreamStall',
  expiredToken: 'expireToken',
  withClientWebhook: 'clientWebhooks',
  inbound: 'inbound',
  failingRecipients: 'failedDelivery',
  whileSuspended: 'clientStatus',
  // what a waited-out token showed of its lifetime: nothing without kind wait, and the test is then not testable
  tokenLifetime: 'tokenLifetime',
  // the same where a check uses it only when there is one: it reaches the expireToken trigger
  watchedLifetime: 'expireToken',
};

function specFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? specFiles(p) : p.endsWith('.spec.ts') ? [p] : [];
  });
}

test('every test that asks for a second client or a hook is tagged only with requirements that need it', () => {
  const needs = new Map(loadCatalogue().requirements.map((r) => [r.id, new Set(r.needs ?? [])]));
  const problems: string[] = [];
  for (const file of specFiles(join(REPO_ROOT, 'suites'))) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const starts = lines.flatMap((l, i) => (/^\s*test\(\s*[`'"]/.test(l) ? [i] : []));
    starts.forEach((start, k) => {
      const head = lines.slice(start, start + 3).join(' ');
      const body = lines.slice(start, starts[k + 1] ?? lines.length).join('\n');
      const tags = [...(/tag:\s*\[([^\]]*)\]/.exec(head)?.[1] ?? '').matchAll(/@([A-Z][A-Z0-9]*-\d{3})/g)].map((m) => m[1]!);
      const calls = [...body.matchAll(/triggers\.(\w+)\(('(\w+)')?/g)];
      const asked = new Set(calls.map((m) => (m[1] === 'require' ? m[3]! : TRIGGER_OF[m[1]!] ?? `an unknown trigger method ${m[1]}`)));
      if (/async\s*\(\s*\{[^}]*\bsecondClient\b/.test(head)) asked.add('secondClient');
      for (const id of tags) {
        const missing = [...asked].filter((n) => !needs.get(id)?.has(n));
        if (missing.length) problems.push(`${relative(REPO_ROOT, file)}:${start + 1} @${id} asks for ${missing.join(', ')}, which its needs do not list`);
      }
    });
  }
  expect(problems).toEqual([]);
});
