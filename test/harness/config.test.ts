import { expect, test } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, itemsAt, loadTarget, PROFILE_ROUTES, resolveTarget } from '../../harness/config.ts';

const dir = mkdtempSync(join(tmpdir(), 'config-test-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
const minimal = { baseUrl: 'https://api.example.com', clients: { primary: { clientId: 'a', clientSecret: 'b' } } };

test('a minimal config gets the reference profile routes and safe recipients', () => {
  const target = resolveTarget(minimal, 'inline', {});
  expect(target.routes.search).toEqual(PROFILE_ROUTES.search);
  expect(target.profile).toBe('none');
  expect(target.recipients.delivered.every((r) => new RegExp(target.recipients.allowPattern).test(r))).toBe(true);
});

test('the vendor overrides the open routes and the numbers envelope', () => {
  const target = resolveTarget(
    { ...minimal, routes: { search: { method: 'GET', path: '/api/core/inventory' }, numbers: { method: 'GET', path: '/api/core/numbers', itemsPath: null } } },
    'inline',
    {},
  );
  expect(target.routes.search).toEqual({ method: 'GET', path: '/api/core/inventory' });
  expect(target.routes.numbersItemsPath).toBeNull();
});

const badConfigs: Array<[string, unknown, RegExp]> = [
  ['missing baseUrl', { clients: minimal.clients }, /\/baseUrl is required/],
  ['a misspelt field', { ...minimal, baseURL: 'x' }, /\/baseURL is not a known key: did you mean 'baseUrl'\?/],
  ['an unknown profile', { ...minimal, profile: 'gold' }, /\/profile must be equal to one of the allowed values \(one of reference, none\)/],
  ['a numeric secret', { ...minimal, clients: { primary: { clientId: 'a', clientSecret: 5 } } }, /\/clients\/primary\/clientSecret must be string/],
  ['a relative route path', { ...minimal, routes: { update: { method: 'PATCH', path: 'numbers/{numberId}' } } }, /\/routes\/update\/path must match pattern/],
  ['a recipient outside the allowed pattern', { ...minimal, recipients: { delivered: ['+447700900123'] } }, /\/recipients\/delivered\/0 \+447700900123 does not match/],
  ['hooks with no control URL', { ...minimal, hooks: { offers: ['inbound'] } }, /\/hooks\/offers \(inbound\) uses the control plane but \/hooks\/controlUrl is missing/],
  ['a control trigger with no control URL', { ...minimal, triggers: { expireToken: { kind: 'control' } } }, /\/triggers\/expireToken uses the control plane but \/hooks\/controlUrl is missing/],
  ['a capability declared twice', { ...minimal, hooks: { controlUrl: 'http://x', offers: ['inbound'] }, triggers: { inbound: { kind: 'control' } } }, /\/hooks\/offers names inbound, which \/triggers\/inbound declares too/],
  ['an unknown trigger kind', { ...minimal, triggers: { expireToken: { kind: 'sleep' } } }, /\/triggers\/expireToken\/kind must be one of wait, control/],
  ['a trigger kind with a field of another kind', { ...minimal, triggers: { inbound: { kind: 'loopback' } } }, /\/triggers\/inbound\/to is required/],
  ['declared client webhooks with a free receiver port', { ...minimal, triggers: { clientWebhooks: { kind: 'declared' } } }, /\/webhooks\/listenPort must be a fixed port/],
  ['a loopback number the run may not send to', { ...minimal, triggers: { inbound: { kind: 'loopback', to: { phoneNumber: '+447700900123' } } } }, /\/triggers\/inbound\/to\/phoneNumber \+447700900123 does not match/],
  ['a failing recipient the run may not send to', { ...minimal, triggers: { failedDelivery: { kind: 'request', recipients: ['+447700900123'] } } }, /\/triggers\/failedDelivery\/recipients\/0 \+447700900123 does not match/],
  ['an unknown hook', { ...minimal, hooks: { controlUrl: 'http://x', offers: ['teleport'] } }, /\/hooks\/offers\/0 must be equal to one of the allowed values/],
];
test('every trigger kind is read, with its defaults, and the shorthands fold into triggers', () => {
  const target = resolveTarget(
    {
      ...minimal,
      webhooks: { listenPort: 8787 },
      recipients: { failed: ['+12025550150'] },
      hooks: { controlUrl: 'http://x/_control', offers: ['upstreamFailure'] },
      triggers: {
        expireToken: { kind: 'wait' },
        clientWebhooks: { kind: 'declared', secondaryHasNone: true },
        inbound: { kind: 'loopback', to: { phoneNumber: '+12025550143' } },
      },
    },
    'inline',
    {},
  );
  expect(target.triggers).toEqual({
    upstreamFailure: { kind: 'control' },
    expireToken: { kind: 'wait', client: minimal.clients.primary, maxWaitSeconds: 30 },
    clientWebhooks: { kind: 'declared', secondary: [] },
    inbound: { kind: 'loopback', to: { phoneNumber: '+12025550143' } },
    failedDelivery: { kind: 'request', recipients: ['+12025550150'] },
  });
  const byRequest = resolveTarget({ ...minimal, triggers: { upstreamFailure: { kind: 'request', requests: [{ body: { rateCenter: 'X' }, headers: { 'x-fail': '503' }, providerStatus: 503 }] } } }, 'inline', {});
  expect(byRequest.triggers.upstreamFailure).toEqual({ kind: 'request', requests: [{ body: { rateCenter: 'X' }, headers: { 'x-fail': '503' }, providerStatus: 503 }] });
});

test('declared client webhooks say which kinds the secondary client has; secondaryHasNone is the older spelling of none', () => {
  const declared = (clientWebhooks: Record<string, unknown>) =>
    resolveTarget({ ...minimal, clients: { ...minimal.clients, secondary: { clientId: 'c', clientSecret: 'd' } }, webhooks: { listenPort: 8787 }, triggers: { clientWebhooks } }, 'inline', {}).triggers.clientWebhooks;
  expect(declared({ kind: 'declared' })).toEqual({ kind: 'declared' });
  expect(declared({ kind: 'declared', secondaryHasNone: false })).toEqual({ kind: 'declared' });
  expect(declared({ kind: 'declared', secondaryHasNone: true })).toEqual({ kind: 'declared', secondary: [] });
  expect(declared({ kind: 'declared', secondary: ['delivery'] })).toEqual({ kind: 'declared', secondary: ['delivery'] });
  expect(declared({ kind: 'declared', secondary: ['inbound', 'delivery'] })).toEqual({ kind: 'declared', secondary: ['delivery', 'inbound'] });
  expect(() => declared({ kind: 'declared', secondary: ['delivery'], secondaryHasNone: true })).toThrow(/\/triggers\/clientWebhooks gives both secondary and secondaryHasNone: keep secondary/);
  expect(() => declared({ kind: 'declared', secondary: ['sms'] })).toThrow(/\/triggers\/clientWebhooks\/secondary\/0 must be equal to one of the allowed values/);
  expect(() => declared({ kind: 'declared', secondary: ['delivery', 'delivery'] })).toThrow(/\/triggers\/clientWebhooks\/secondary/);
  const withoutSecondary = { ...minimal, webhooks: { listenPort: 8787 }, triggers: { clientWebhooks: { kind: 'declared', secondary: ['delivery'] } } };
  expect(() => resolveTarget(withoutSecondary, 'inline', {})).toThrow(/\/triggers\/clientWebhooks\/secondary says which webhooks the secondary client has, but \/clients\/secondary is missing/);
});

for (const [what, raw, message] of badConfigs) {
  test(`${what} is a ConfigError naming the field`, () => {
    expect(() => resolveTarget(raw, 'vendor.yaml', {})).toThrow(ConfigError);
    expect(() => resolveTarget(raw, 'vendor.yaml', {})).toThrow(message);
  });
}

test('rateLimit caps requests per second; absent, there is no cap, and a rate of 0 is refused', () => {
  expect(resolveTarget(minimal, 'inline', {}).rateLimit).toEqual({ requestsPerSecond: null });
  expect(resolveTarget({ ...minimal, rateLimit: { requestsPerSecond: 2.5 } }, 'inline', {}).rateLimit).toEqual({ requestsPerSecond: 2.5 });
  expect(() => resolveTarget({ ...minimal, rateLimit: { requestsPerSecond: 0 } }, 'inline', {})).toThrow(/\/rateLimit\/requestsPerSecond/);
  expect(() => resolveTarget({ ...minimal, rateLimit: {} }, 'inline', {})).toThrow(/requestsPerSecond/);
});

test('every problem is reported at once, each with its JSON pointer', () => {
  const raw = { baseURL: 'https://api.example.com', clients: { primary: { clientId: 'a' }, tertiary: {} }, sendcap: 5, profile: 'gold' };
  let error: ConfigError | undefined;
  try {
    resolveTarget(raw, '/abs/vendor.yaml', {});
  } catch (e) {
    error = e as ConfigError;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect([...error!.problems].sort()).toEqual(
    [
      "/baseURL is not a known key: did you mean 'baseUrl'?",
      "/sendcap is not a known key: did you mean 'sendCap'?",
      '/clients/tertiary is not a known key (known here: primary, secondary, special)',
      '/clients/primary/clientSecret is required',
      '/profile must be equal to one of the allowed values (one of reference, none)',
    ].sort(),
  );
  // the near-miss key is the hint; the key it stands for is not also reported missing
  expect(error!.message).not.toContain('/baseUrl is required');
  expect(error!.message).toMatch(/^config \/abs\/vendor\.yaml: 5 problems:\n {2}\//);
});

test('every unset ${VAR} is named at once', () => {
  const raw = { ...minimal, clients: { primary: { clientId: '${A_ID}', clientSecret: '${A_SECRET}' } } };
  expect(() => resolveTarget(raw, 'vendor.yaml', {})).toThrow(/2 problems:\n {2}\/clients\/primary\/clientId uses \$\{A_ID\}.*\n {2}\/clients\/primary\/clientSecret uses \$\{A_SECRET\}/);
});

test('${VAR} takes secrets from the environment, and a missing one is an error, not empty', () => {
  const raw = { ...minimal, clients: { primary: { clientId: 'a', clientSecret: '${VENDOR_SECRET}' } } };
  expect(resolveTarget(raw, 'vendor.yaml', { VENDOR_SECRET: 's3' }).clients.primary.clientSecret).toBe('s3');
  expect(() => resolveTarget(raw, 'vendor.yaml', {})).toThrow(/\/clients\/primary\/clientSecret uses \$\{VENDOR_SECRET\}, which is not set/);
});

test('CONFORMANCE_* environment variables override secrets in the file', () => {
  const target = resolveTarget(minimal, 'inline', { CONFORMANCE_PRIMARY_CLIENT_SECRET: 'from-env', CONFORMANCE_SECONDARY_CLIENT_ID: 'c2', CONFORMANCE_SECONDARY_CLIENT_SECRET: 's2' });
  expect(target.clients.primary.clientSecret).toBe('from-env');
  expect(target.clients.secondary).toEqual({ clientId: 'c2', clientSecret: 's2' });
});

test('YAML files load; unreadable and malformed files are clear errors', () => {
  const good = file('good.yaml', 'baseUrl: https://api.example.com\nclients:\n  primary: { clientId: a, clientSecret: b }\nprofile: reference\n');
  expect(loadTarget(good, {}).profile).toBe('reference');
  expect(() => loadTarget(join(dir, 'absent.yaml'), {})).toThrow(`config ${join(dir, 'absent.yaml')}: no such file`);
  const broken = file('broken.yaml', 'baseUrl: [unclosed\n');
  expect(() => loadTarget(broken, {})).toThrow(/broken\.yaml: not valid YAML or JSON/);
});

test('a reference fixtures file is a complete target, with its hooks', () => {
  const path = file(
    'fixtures.json',
    JSON.stringify({
      baseUrl: 'http://127.0.0.1:9999',
      controlUrl: 'http://127.0.0.1:9999/_control',
      profile: 'reference',
      clients: [
        { role: 'primary', clientId: 'p', clientSecret: 'ps', webhookSecret: 'whsec_AAAA', numbers: [] },
        { role: 'secondary', clientId: 's', clientSecret: 'ss', numbers: [] },
      ],
    }),
  );
  const target = loadTarget(path, {});
  expect(target.profile).toBe('reference');
  expect(target.clients.secondary?.clientId).toBe('s');
  expect(target.webhooks.secret).toBe('whsec_AAAA');
  expect(target.triggers.upstreamFailure).toEqual({ kind: 'control' });
  expect(target.triggers.failedDelivery).toEqual({ kind: 'request', recipients: ['+12025550150', '+12025550151'] });
});

test('the primary client\'s webhook secret given twice, differently, is an error; the environment overrides both', () => {
  const clients = { primary: { clientId: 'a', clientSecret: 'b', webhookSecret: 'whsec_one' } };
  const error = (() => {
    try {
      resolveTarget({ baseUrl: 'https://api.example.com', clients, webhooks: { secret: 'whsec_two' } }, 'x.yaml', {});
    } catch (e) {
      return e as ConfigError;
    }
  })();
  expect(error?.problems).toContain("/webhooks/secret and /clients/primary/webhookSecret differ: they name the same secret (the primary client's webhook signing secret), so give it once");
  expect(resolveTarget({ baseUrl: 'https://api.example.com', clients, webhooks: { secret: 'whsec_one' } }, 'x.yaml', {}).webhooks.secret).toBe('whsec_one');
  expect(resolveTarget({ baseUrl: 'https://api.example.com', clients, webhooks: { secret: 'whsec_two' } }, 'x.yaml', { CONFORMANCE_WEBHOOK_SECRET: 'whsec_env' }).webhooks.secret).toBe('whsec_env');
});

test('routes.numbers.itemsPath reaches the list at the top level, in a property, or in a nested one', () => {
  const list = [{ numberId: 'n1' }];
  expect(itemsAt(list, null)).toBe(list);
  expect(itemsAt({ numbers: list }, 'numbers')).toBe(list);
  expect(itemsAt({ data: { items: list } }, 'data.items')).toBe(list);
  expect(itemsAt({ data: list }, 'data.items')).toBeUndefined();
  expect(itemsAt(null, 'numbers')).toBeUndefined();
});

test('a choice init left OPEN refuses to start, naming each such field', () => {
  const open = { ...minimal, routes: { search: 'OPEN', update: 'OPEN' } };
  expect(() => resolveTarget(open, 'open.yaml', {})).toThrow(ConfigError);
  try {
    resolveTarget(open, 'open.yaml', {});
  } catch (e) {
    expect((e as ConfigError).problems).toEqual([
      '/routes/search is still OPEN (init could not discover it): set it to what your server does',
      '/routes/update is still OPEN (init could not discover it): set it to what your server does',
    ]);
  }
});

test('the routes a config names are told apart from the profile routes it leaves to the defaults', () => {
  expect(resolveTarget(minimal, 'a.yaml', {}).routesNamed).toEqual([]);
  expect(resolveTarget({ ...minimal, routes: { search: { method: 'GET', path: '/api/core/inventory' } } }, 'a.yaml', {}).routesNamed).toEqual(['search']);
});
