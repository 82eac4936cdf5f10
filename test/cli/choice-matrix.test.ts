// The choice matrix (cli/choice-matrix.ts) certifies the reference under every legal answer it
// can give to the document's open choices: its combinations must reach every value, and the
// config written for each must be a valid target config naming the routes the reference serves.
import { expect, test } from '@playwright/test';
import { CHOICE_COMBINATIONS, choiceFlags, vendorConfig, wireOf } from '../../cli/choice-combinations.ts';
import { resolveTarget } from '../../harness/config.ts';
import { parseCommandLine } from '../../reference/cli/args.ts';
import { WIRE_CHOICES, type WireChoiceName } from '../../reference/options.ts';

const fixtures = {
  baseUrl: 'http://127.0.0.1:9',
  controlUrl: 'http://127.0.0.1:9/_control',
  profile: 'reference' as const,
  clients: ['primary', 'secondary', 'special'].map((role) => ({
    role,
    apiClientId: `${role}-id`,
    clientId: `${role}-id`,
    clientSecret: `${role}-secret`,
    webhookSecret: 'whsec_AAAA',
    numbers: [{ numberId: `num_${role}`, phoneNumber: '+12025550142', campaignregId: 'C1', smsEnabled: true, mmsEnabled: true, webhookInboundOverride: null, webhookDeliveryOverride: null }],
  })),
};

test('the combinations give every value of every open choice at least once', () => {
  const missing = Object.entries(WIRE_CHOICES).flatMap(([name, values]) =>
    values.filter((value) => !CHOICE_COMBINATIONS.some(({ choices }) => wireOf(choices)[name as WireChoiceName] === value)).map((value) => `${name}=${value}`),
  );
  expect(missing, 'values no combination of cli/choice-combinations.ts gives').toEqual([]);
});

test('the combinations have distinct names and each differs from the reference profile', () => {
  const names = CHOICE_COMBINATIONS.map((c) => c.name);
  expect(new Set(names).size).toBe(names.length);
  for (const { name, choices } of CHOICE_COMBINATIONS) expect(Object.keys(choices).length, name).toBeGreaterThan(0);
});

for (const { name, choices } of CHOICE_COMBINATIONS) {
  test(`the reference takes the flags of ${name}, and its vendor config declares no profile and the routes chosen`, () => {
    expect(parseCommandLine(choiceFlags(choices)).wire).toEqual(wireOf(choices));
    const target = resolveTarget(vendorConfig(name, fixtures, wireOf(choices)), name, {});
    const wire = wireOf(choices);
    expect(target.profile).toBe('none');
    expect(`${target.routes.whoami.method} ${target.routes.whoami.path}`).toBe(`${wire['whoami.method']} /api/core/whoami`);
    expect(`${target.routes.numbers.method} ${target.routes.numbers.path}`).toBe(`${wire['numbers.method']} /api/core/numbers`);
    expect(target.routes.numbersItemsPath).toBe(wire['numbers.envelope'] === 'array' ? null : wire['numbers.envelope']);
    expect(`${target.routes.search.method} ${target.routes.search.path}`).toBe(wire['search.route']);
    expect(`${target.routes.update.method} ${target.routes.update.path}`).toBe(wire['update.route']);
    expect(Object.keys(target.triggers).length, 'the control plane reaches the hard paths').toBeGreaterThan(0);
    // A list that shows numberIds alone does not say which number sends SMS: the vendor names them.
    expect(target.webhooks.secret, 'a vendor that does not sign callbacks gives no secret').toBe(wire['webhook.signing'] === 'none' ? undefined : 'whsec_AAAA');
    // Every config names its numbers as a pool, as the reference's own does (NUM-001 reads it).
    const pool = { primary: ['num_primary'], secondary: ['num_secondary'] };
    expect(target.numbers).toEqual(wire['numbers.record'] === 'id-only' ? { pool, sms: 'num_primary', mms: 'num_primary', foreign: 'num_secondary' } : { pool });
  });
}
