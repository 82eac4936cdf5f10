// A first run with no config file: certify --base-url with the clients' credentials from the
// environment certifies what it can reach and reports the rest not testable here, naming the
// config field that would reach it.
import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { tempDir } from '../reports/run-fixture.ts';
import { referenceForFile, runCli } from './helpers.ts';

const shared = referenceForFile('base-url-');

const credentials = (role: string) => {
  const client = shared.reference.fixtures.clients.find((c) => c.role === role)!;
  return { [`CONFORMANCE_${role.toUpperCase()}_CLIENT_ID`]: client.clientId, [`CONFORMANCE_${role.toUpperCase()}_CLIENT_SECRET`]: client.clientSecret };
};

test('with the primary client from the environment, a second-client requirement is not testable here and names clients.secondary', async () => {
  test.setTimeout(180_000);
  const out = join(tempDir(), 'out');
  const run = await runCli('cli/certify.ts', ['--base-url', shared.reference.baseUrl, '--requirements', 'CTX-001,CTX-002', '--out', out], { out, env: credentials('primary') });
  expect(run.code, run.stdout.slice(-2000) + run.stderr).toBe(0);
  expect(run.report?.target.baseUrl).toBe(shared.reference.baseUrl);
  const verdict = (id: string) => run.report?.requirements.find((r) => r.id === id);
  expect(verdict('CTX-001')?.verdict).toBe('pass');
  expect(verdict('CTX-002')?.verdict).toBe('not testable here');
  expect(verdict('CTX-002')?.reasons.join(' ')).toContain('clients.secondary');
});

test('a second client from the environment makes the second-client requirement testable', async () => {
  test.setTimeout(180_000);
  const out = join(tempDir(), 'out');
  const run = await runCli('cli/certify.ts', ['--base-url', shared.reference.baseUrl, '--requirements', 'CTX-002', '--out', out], { out, env: { ...credentials('primary'), ...credentials('secondary') } });
  expect(run.code, run.stdout.slice(-2000) + run.stderr).toBe(0);
  expect(run.report?.requirements.find((r) => r.id === 'CTX-002')?.verdict).toBe('pass');
});

test('without the primary credentials, or with a URL that is not http(s), nothing runs and the input is named', async () => {
  const missing = await runCli('cli/certify.ts', ['--base-url', shared.reference.baseUrl]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('certify: --base-url: needs the primary client\'s credentials in the environment: set CONFORMANCE_PRIMARY_CLIENT_ID and CONFORMANCE_PRIMARY_CLIENT_SECRET');
  const notHttp = await runCli('cli/certify.ts', ['--base-url', 'ftp://example.com'], { env: credentials('primary') });
  expect(notHttp.code).toBe(2);
  expect(notHttp.stderr).toContain('certify: --base-url: takes the http(s) URL');
  const both = await runCli('cli/certify.ts', ['--base-url', shared.reference.baseUrl, '--config', 'examples/vendor.yaml'], { env: credentials('primary') });
  expect(both.code).toBe(2);
  expect(both.stderr).toContain('certify: --base-url: give either --config or --base-url, not both');
});
