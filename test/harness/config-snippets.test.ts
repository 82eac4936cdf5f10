// The YAML the reporter, the dry run and init offer for what a target config lacks: each snippet,
// added to a config that lacks it, loads (config.schema.json and the loader's own checks) and
// supplies the need it is offered for; each reason a missing field gives finds its snippet.
import { expect, test } from '@playwright/test';
import { parse } from 'yaml';
import { CAPABILITIES, resolveTarget } from '../../harness/config.ts';
import { commentedTriggerStubs, outOfReach, snippetFor, snippetForReason } from '../../harness/config-snippets.ts';
import { reasonFor, suppliedBy } from '../../harness/plan.ts';

/** What a snippet's ${VAR}s stand for, as a vendor would fill them in. */
const ENV = {
  UPSTREAM_FAILURE_RATE_CENTER: 'SANDBOX-FAIL-503',
  SHORT_TOKEN_CLIENT_ID: 'brief',
  SHORT_TOKEN_CLIENT_SECRET: 'brief-secret',
  INBOUND_PHONE_NUMBER: '+12025550188',
  FAILING_RECIPIENT: '+12025550199',
  CONTROL_URL: 'https://sandbox.example.com/_control',
  CONFORMANCE_SECONDARY_CLIENT_ID: 'second',
  CONFORMANCE_SECONDARY_CLIENT_SECRET: 'second-secret',
  SPECIAL_CLIENT_ID: 'special:client+1',
  SPECIAL_CLIENT_SECRET: 'p@ss:w+rd',
  CONFORMANCE_WEBHOOK_SECRET: 'whsec_c2VjcmV0',
};
const BASE = { baseUrl: 'https://api.example.com', clients: { primary: { clientId: 'p', clientSecret: 'ps' } } };

function merged(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(extra)) {
    const was = out[k];
    out[k] = was && typeof was === 'object' && !Array.isArray(was) && v && typeof v === 'object' && !Array.isArray(v) ? merged(was as Record<string, unknown>, v as Record<string, unknown>) : v;
  }
  return out;
}

const NEEDS = [...CAPABILITIES, 'tokenLifetime', 'upstreamStall', 'secondClient', 'specialCharsClient', 'webhookSecret'];

for (const need of NEEDS) {
  test(`the snippet for ${need} loads into a config without it and supplies ${need}`, () => {
    const snippet = snippetFor(need);
    expect(snippet, need).toBeDefined();
    expect(suppliedBy(resolveTarget(BASE, 'base', {})).has(need), `the base config lacks ${need}`).toBe(false);
    const target = resolveTarget(merged(BASE, parse(snippet!.join('\n'))), `the snippet for ${need}`, ENV);
    expect(suppliedBy(target).has(need)).toBe(true);
    expect(snippetForReason(reasonFor(need)), 'found from the reason the run gives').toEqual(snippet);
  });
}

test('a reason the target\'s data gives has no snippet, and requirements are grouped by reason', () => {
  expect(snippetForReason('the second client has no numbers, so none could leak into the primary client\'s list')).toBeUndefined();
  const groups = outOfReach([
    { id: 'CTX-002', reasons: [reasonFor('secondClient')] },
    { id: 'NUM-003', reasons: [reasonFor('secondClient')] },
    { id: 'NUM-004', reasons: ['no listed number has a campaignregId'] },
  ]);
  expect(groups.map((g) => [g.ids, g.snippet !== undefined])).toEqual([[['CTX-002', 'NUM-003'], true], [['NUM-004'], false]]);
});

test("init's commented trigger stubs, uncommented, load and declare every capability", () => {
  const stubs = commentedTriggerStubs((c) => [`${c}-REQ`]);
  expect(stubs.every((l) => l.startsWith('#'))).toBe(true);
  for (const c of CAPABILITIES) expect(stubs.join('\n')).toContain(`# ${c} reaches ${c}-REQ; kinds: `);
  const yaml = stubs.map((l) => l.replace(/^# ?/, '')).filter((l) => !/^\s*#/.test(l)).join('\n');
  const target = resolveTarget(merged(BASE, parse(yaml)), 'the stubs', ENV);
  for (const c of CAPABILITIES) expect(suppliedBy(target).has(c), c).toBe(true);
});
