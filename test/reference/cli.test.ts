import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { test, expect } from '@playwright/test';
import { runServer } from './serverProcess.ts';

// The operator CLI (npm run serve): flags, fixtures, a real listening server, redacted logs.

let dir: string;
test.beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reference-cli-'));
});
test.afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('--help prints the usage and exits 0', async () => {
  const server = runServer(['--help']);
  expect(await server.exited).toBe(0);
  expect(server.stdout()).toContain('Usage: npm run serve');
  expect(server.stdout()).toContain('--fixtures-out FILE');
});

const badInvocations: Array<[string, string[], RegExp]> = [
  ['an unknown flag', ['--bogus'], /Unknown option '--bogus'/],
  ['a non-numeric port', ['--port', 'abc'], /--port must be a whole number/],
  ['a bad log level', ['--log-level', 'loud'], /--log-level must be one of/],
  ['a bad upstream URL', ['--upstream-url', 'nope'], /--upstream-url must be an absolute http\(s\) URL/],
  ['a zero token lifetime', ['--token-ttl', '0'], /--token-ttl must be a whole number/],
  ['a retry base that is not a number of seconds', ['--webhook-retry-base', '0'], /--webhook-retry-base must be a positive number of seconds, got "0"/],
  ['a webhook timeout that is not a number of seconds', ['--webhook-timeout', 'soon'], /--webhook-timeout must be a positive number of seconds, got "soon"/],
  ['a control token without --control', ['--control-token', 'x'], /--control-token needs --control/],
  ['--control without a token or a file to write the made one to', ['--control'], /^error: --control without --control-token needs --fixtures-out FILE, where the server writes the control token it makes\n/],
  ['--control on an interface other machines reach, without a token', ['--control', '--host', '0.0.0.0', '--fixtures-out', '/tmp/never-written.json'], /^error: --control on --host 0\.0\.0\.0, which other machines may reach, needs --control-token TOKEN\n/],
  ['--control on an IPv6 interface other machines reach, without a token', ['--control', '--host', '::', '--fixtures-out', '/tmp/never-written.json'], /^error: --control on --host ::, which other machines may reach, needs --control-token TOKEN\n/],
  ['an unknown open choice', ['--choice', 'send.colour=blue'], /--choice: unknown choice "send.colour"; known: whoami.method, /],
  ['a value an open choice does not have', ['--choice', 'send.successStatus=204'], /--choice send.successStatus: "204" is not one of "202", "200", "201"/],
  ['an open choice given twice', ['--choice', 'send.unsafeRetry=422', '--choice', 'send.unsafeRetry=409'], /--choice send.unsafeRetry is given twice/],
  ['a missing fixtures file', ['--fixtures', '/nonexistent/fixtures.json'], /cannot read fixtures file \/nonexistent\/fixtures.json: ENOENT/],
];
for (const [name, args, message] of badInvocations) {
  test(`${name} is a one-line error, exit code 2, no stack trace`, async () => {
    const server = runServer(args);
    expect(await server.exited).toBe(2);
    expect(server.stderr()).toMatch(message);
    expect(server.stderr()).not.toMatch(/\n\s+at /);
    expect(server.stderr().trimEnd().split('\n'), 'the problem on one line, then where the flags are listed').toHaveLength(2);
  });
}

const badFixtures: Array<[string, string, RegExp]> = [
  ['invalid JSON', '{"clients": [', /is not valid JSON or YAML/],
  ['no clients', '{"clients": []}', /\/clients must NOT have fewer than 1 items/],
  ['a client without secret', '{"clients": [{"clientId": "a", "numbers": []}]}', /\/clients\/0 must have required property 'clientSecret'/],
  ['a non-E.164 phone number', '{"clients": [{"clientId": "a", "clientSecret": "s", "numbers": [{"phoneNumber": "202-555-0100"}]}]}', /\/clients\/0\/numbers\/0\/phoneNumber must match pattern/],
  ['an E.164 numberId', '{"clients": [{"clientId": "a", "clientSecret": "s", "numbers": [{"numberId": "+12025550100", "phoneNumber": "+12025550100"}]}]}', /numberId must NOT be valid/],
  ['a key of an earlier version (deliveryWebhookUrl, now webhooks.delivery)', '{"clients": [{"clientId": "a", "clientSecret": "s", "deliveryWebhookUrl": null, "numbers": []}]}', /\/clients\/0 must NOT have additional properties \("deliveryWebhookUrl"\)/],
  ['a token lifetime of zero', '{"clients": [{"clientId": "a", "clientSecret": "s", "tokenTtlSeconds": 0, "numbers": []}]}', /\/clients\/0\/tokenTtlSeconds must be >= 1/],
  ['a repeated clientId', '{"clients": [{"clientId": "a", "clientSecret": "s", "numbers": []}, {"clientId": "a", "clientSecret": "t", "numbers": []}]}', /\/clients\/1\/clientId "a" is repeated/],
];
for (const [name, content, message] of badFixtures) {
  test(`a fixtures file with ${name} is named in the error, exit code 2`, async () => {
    const path = join(dir, 'fixtures.json');
    writeFileSync(path, content);
    const server = runServer(['--fixtures', path, '--db', join(dir, 'db.sqlite')]);
    expect(await server.exited).toBe(2);
    expect(server.stderr()).toContain(path);
    expect(server.stderr()).toMatch(message);
  });
}

test('a real listening server: fixtures-out, token, whoami, and logs without secrets or tokens', async () => {
  const fixturesIn = join(dir, 'in.json');
  writeFileSync(
    fixturesIn,
    JSON.stringify({
      clients: [{ role: 'primary', clientId: 'acme', clientSecret: 'very-secret-value', numbers: [{ numberId: 'num_acme1', phoneNumber: '+12025550111', campaignregId: 'C1' }] }],
    }),
  );
  const out = join(dir, 'out.json');
  const server = runServer(['--port', '0', '--db', join(dir, 'db.sqlite'), '--fresh', '--fixtures', fixturesIn, '--fixtures-out', out, '--control', '--log-level', 'info']);
  try {
    const baseUrl = await server.listening;
    expect(server.stdout().trim().split('\n')).toEqual([`reference server listening on ${baseUrl}`]);
    const described = JSON.parse(readFileSync(out, 'utf8'));
    expect(described).toEqual({
      baseUrl,
      controlUrl: `${baseUrl}/_control`,
      controlToken: expect.stringMatching(/^[\w-]{43}$/),
      profile: 'reference',
      clients: [
        {
          role: 'primary',
          apiClientId: 'acme',
          clientId: 'acme',
          clientSecret: 'very-secret-value',
          webhookSecret: expect.stringMatching(/^whsec_/),
          numbers: [{ numberId: 'num_acme1', phoneNumber: '+12025550111', campaignregId: 'C1', smsEnabled: true, mmsEnabled: false, webhookInboundOverride: null, webhookDeliveryOverride: null }],
        },
      ],
    });
    const tokenResponse = await request(`${baseUrl}/api/auth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('acme:very-secret-value').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(tokenResponse.statusCode).toBe(200);
    const { access_token: token } = (await tokenResponse.body.json()) as { access_token: string };
    const whoami = await request(`${baseUrl}/api/core/whoami`, { headers: { authorization: `Bearer ${token}` } });
    expect(whoami.statusCode).toBe(200);
    expect(((await whoami.body.json()) as { apiClientId: string }).apiClientId).toBe('acme');
    await request(`${baseUrl}/api/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'acme', client_secret: 'very-secret-value' }) }).then((r) => r.body.dump());

    // The control plane takes the token the server made and wrote to the file, and nothing else.
    const control = (authorization?: string) =>
      request(`${baseUrl}/_control/upstream`, { method: 'POST', headers: { 'content-type': 'application/json', ...(authorization && { authorization }) }, body: '{"mode":"ok"}' }).then(async (r) => (await r.body.dump(), r.statusCode));
    expect(await control()).toBe(401);
    expect(await control(`Bearer ${described.controlToken}`)).toBe(200);

    await expect.poll(() => server.stderr()).toContain('request completed');
    expect(server.stderr()).toContain(`the control plane requires a token made at start; it is in ${out} (controlToken)`);
    expect(server.stderr()).not.toContain(described.controlToken);
    expect(server.stderr()).not.toContain('very-secret-value');
    expect(server.stderr()).not.toContain(token);
    expect(server.stderr()).not.toContain(described.clients[0].webhookSecret);
  } finally {
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }
});

test('the files that hold secrets are readable by the server\'s user only (0600): the database, its WAL and shared memory, and --fixtures-out', async () => {
  const db = join(dir, 'db.sqlite');
  const out = join(dir, 'out.json');
  // An existing world-readable file is narrowed too, not only a new one.
  writeFileSync(out, '{}', { mode: 0o644 });
  const server = runServer(['--port', '0', '--db', db, '--fresh', '--fixtures-out', out, '--log-level', 'warn']);
  try {
    await server.listening;
    const files = [db, `${db}-wal`, `${db}-shm`, out];
    for (const file of files) expect(existsSync(file), file).toBe(true);
    expect(Object.fromEntries(files.map((file) => [file, (statSync(file).mode & 0o777).toString(8)]))).toEqual(Object.fromEntries(files.map((file) => [file, '600'])));
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
});
