// init probes a target without sending a message or changing a setting and writes a commented
// config; against the bundled reference it finds every route (scripts/check-package.sh then
// certifies with that config, from the installed package).
import { expect, test } from '@playwright/test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CAPABILITIES, loadTarget, PROFILE_ROUTES } from '../../harness/config.ts';
import { suppliedBy } from '../../harness/plan.ts';
import { tempDir } from '../reports/run-fixture.ts';
import { referenceForFile, runCli } from './helpers.ts';

const shared = referenceForFile('init-');

const credentials = (...roles: string[]) =>
  Object.fromEntries(
    roles.flatMap((role) => {
      const client = shared.reference.fixtures.clients.find((c) => c.role === role)!;
      return [[`CONFORMANCE_${role.toUpperCase()}_CLIENT_ID`, client.clientId], [`CONFORMANCE_${role.toUpperCase()}_CLIENT_SECRET`, client.clientSecret]];
    }),
  );

/** The primary client's numbers as the reference lists them, to compare before and after. */
async function numbersList(): Promise<unknown> {
  const { clientId, clientSecret } = shared.reference.fixtures.clients.find((c) => c.role === 'primary')!;
  const token = await (await fetch(`${shared.reference.baseUrl}/api/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }) })).json();
  return (await fetch(`${shared.reference.baseUrl}/api/core/numbers`, { headers: { authorization: `Bearer ${(token as { access_token: string }).access_token}` } })).json();
}

test('against the reference, init finds every route, marks what it cannot know, and leaves every setting as it was', async () => {
  test.setTimeout(120_000);
  const dir = tempDir('init-user-');
  const before = await numbersList();
  const env = credentials('primary', 'secondary');
  const run = await runCli('cli/init.ts', ['--base-url', shared.reference.baseUrl], { userDir: dir, env });
  expect(run.code, run.stderr).toBe(0);
  expect(await numbersList()).toEqual(before);
  const file = join(dir, 'conformance.yaml');
  expect(run.stdout).toContain(`wrote ${file}`);
  expect(run.stdout).toContain('next: npm run certify -- --config conformance.yaml --dry-run');
  const text = readFileSync(file, 'utf8');
  expect(text).not.toContain(env.CONFORMANCE_PRIMARY_CLIENT_SECRET!);
  expect(text).toContain('# OPEN: webhooks.publicUrl');
  const target = loadTarget(file, env);
  expect(target.baseUrl).toBe(shared.reference.baseUrl);
  expect(target.clients.secondary?.clientId).toBe(env.CONFORMANCE_SECONDARY_CLIENT_ID);
  // the reference's routes are the profile's: init found each one
  expect(target.routes).toEqual(PROFILE_ROUTES);
  expect(text).not.toMatch(/# OPEN: routes\.(?!whoami\.assignedCount)/);
  // The reference's primary client has every number SMS-enabled: total and smsEnabled both equal
  // the list's length, so which one counts the numbers is left open, naming both.
  expect(text).toMatch(/# OPEN: routes\.whoami\.assignedCount: .*each of total, smsEnabled/);

  // every trigger, each with its kinds, and the webhook secret are commented stubs; filled in
  // (uncommented, their ${VAR}s set), the config loads and supplies each of them
  expect(text).toContain('    # webhookSecret: ${CONFORMANCE_WEBHOOK_SECRET}');
  for (const capability of CAPABILITIES) expect(text).toMatch(new RegExp(`^# {3}# ${capability} reaches [A-Z]+-\\d{3}.*; kinds: `, 'm'));
  const lines = text.split('\n');
  const stubs = lines.findIndex((l) => l.startsWith('# webhooks:'));
  const filled = lines.map((l, i) => {
    if (/^ {4}# webhookSecret:/.test(l)) return l.replace('# ', '');
    if (i < stubs || !l.startsWith('# ')) return l;
    // a comment inside the stubs (what a trigger reaches) stays a comment
    return /^\s*#/.test(l.slice(2)) ? l : l.slice(2);
  });
  writeFileSync(join(dir, 'filled.yaml'), filled.join('\n'));
  const stubEnv = { ...env, CONFORMANCE_WEBHOOK_SECRET: 'whsec_c2VjcmV0', UPSTREAM_FAILURE_RATE_CENTER: 'FAIL', SHORT_TOKEN_CLIENT_ID: 'b', SHORT_TOKEN_CLIENT_SECRET: 'bs', INBOUND_PHONE_NUMBER: '+12025550188', FAILING_RECIPIENT: '+12025550199', CONTROL_URL: 'http://127.0.0.1:9/_control' };
  const stubbed = loadTarget(join(dir, 'filled.yaml'), stubEnv);
  const supplied = suppliedBy(stubbed);
  for (const need of [...CAPABILITIES, 'webhookSecret', 'tokenLifetime', 'finalStatuses']) expect(supplied.has(need), need).toBe(true);
});

test('init refuses missing credentials, a URL that is not http(s), and an existing file without --force', async () => {
  const dir = tempDir('init-user-');
  const missing = await runCli('cli/init.ts', ['--base-url', shared.reference.baseUrl], { userDir: dir });
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("init: needs the primary client's credentials in the environment: set CONFORMANCE_PRIMARY_CLIENT_ID and CONFORMANCE_PRIMARY_CLIENT_SECRET");
  expect((await runCli('cli/init.ts', ['--base-url', 'ftp://x'], { userDir: dir, env: credentials('primary') })).stderr).toContain('init: --base-url takes an http(s) URL');
  const first = await runCli('cli/init.ts', ['--base-url', shared.reference.baseUrl, '--out', 'one.yaml'], { userDir: dir, env: credentials('primary') });
  expect(first.code, first.stderr).toBe(0);
  expect(readFileSync(join(dir, 'one.yaml'), 'utf8')).toContain('# OPEN: a second client');
  const again = await runCli('cli/init.ts', ['--base-url', shared.reference.baseUrl, '--out', 'one.yaml'], { userDir: dir, env: credentials('primary') });
  expect(again.code).toBe(2);
  expect(again.stderr).toContain('one.yaml exists: give --force');
  expect(existsSync(join(dir, 'conformance.yaml'))).toBe(false);
});
