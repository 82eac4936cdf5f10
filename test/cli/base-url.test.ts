// A first run with no config file: certify --base-url with the clients' credentials from the
// environment certifies what it can reach and reports the rest not testable here, naming the
// config field that would reach it.
import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { tempDir } from '../reports/run-fixture.ts';
import { referenceForFile, runCli, startReference, type Reference } from './helpers.ts';

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

test.describe('where the routes or the numbers envelope are not the reference profile\'s', () => {
  let other: Reference;
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    other = await startReference(tempDir('base-url-other-'), { args: ['--choice', 'numbers.envelope=data', '--choice', 'update.route=PUT /api/core/numbers/{numberId}/settings'] });
  });
  test.afterAll(async () => other?.stop());

  test('--base-url finds the envelope and the routes as init does, and the run uses them', async () => {
    test.setTimeout(180_000);
    const out = join(tempDir(), 'out');
    const primary = other.fixtures.clients.find((c) => c.role === 'primary')!;
    const env = { CONFORMANCE_PRIMARY_CLIENT_ID: primary.clientId, CONFORMANCE_PRIMARY_CLIENT_SECRET: primary.clientSecret };
    const run = await runCli('cli/certify.ts', ['--base-url', other.baseUrl, '--requirements', 'NUM-001,UPD-001', '--out', out], { out, env });
    expect(run.code, run.stdout.slice(-2000) + run.stderr).toBe(0);
    expect(run.report?.requirements.find((r) => r.id === 'NUM-001')?.verdict).toBe('pass');
    expect(run.report?.requirements.find((r) => r.id === 'UPD-001')?.verdict).toBe('pass');
  });
});

test('--base-url whose search route is none init can find exits 2 naming the route and pointing at init', async () => {
  test.setTimeout(180_000);
  const odd = await startReference(tempDir('base-url-odd-'), { args: ['--choice', 'search.route=POST /api/core/inventory/search'] });
  try {
    const primary = odd.fixtures.clients.find((c) => c.role === 'primary')!;
    const env = { CONFORMANCE_PRIMARY_CLIENT_ID: primary.clientId, CONFORMANCE_PRIMARY_CLIENT_SECRET: primary.clientSecret };
    const run = await runCli('cli/certify.ts', ['--base-url', odd.baseUrl], { env });
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toContain(`certify: --base-url ${odd.baseUrl}: routes.search was not found (no POST of an empty search to `);
    expect(run.stderr).toContain(`certify: --base-url: run npm run init -- --base-url ${odd.baseUrl}: it writes ./conformance.yaml`);
    expect(run.summary).toBe('HARNESS ERROR  nothing was run: fix the input above');
  } finally {
    await odd.stop();
  }
});
