// Every example we ship loads: a person copying examples/*.yaml starts from a valid config.
import { expect, test } from '@playwright/test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadTarget } from '../../harness/config.ts';
import { isCheckable, loadCatalogue } from '../../harness/catalogue.ts';
import { CAPABILITIES } from '../../harness/config.ts';
import { loadSendBudget, sendsNeeded, suppliedBy, unmetNeeds } from '../../harness/plan.ts';
import { RUNS_BY_DEPTH } from '../../harness/settings.ts';
import { EXAMPLES, placeholderEnv } from './helpers.ts';

const examples = readdirSync(EXAMPLES).filter((f) => /\.(ya?ml|json)$/.test(f));

test('there are examples to load', () => {
  expect(examples).toContain('vendor.yaml');
});

for (const name of examples) {
  test(`examples/${name} loads as a target config`, () => {
    const file = join(EXAMPLES, name);
    const target = loadTarget(file, placeholderEnv(file));
    expect(target.baseUrl).toMatch(/^https?:\/\//);
  });
}

test('examples/vendor.yaml keeps what the README promises: routes, secrets from the environment', () => {
  const file = join(EXAMPLES, 'vendor.yaml');
  const target = loadTarget(file, placeholderEnv(file));
  expect(target.routes.update).toEqual({ method: 'PUT', path: '/api/core/numbers/{numberId}/settings' });
  expect(target.clients.primary.clientSecret).toBe('placeholder-vendor_client_secret');
});

test('examples/vendor.yaml sets a sendCap the whole suite fits under at the default depth', () => {
  const file = join(EXAMPLES, 'vendor.yaml');
  const target = loadTarget(file, placeholderEnv(file));
  const budget = loadSendBudget();
  const everyTest = Object.entries(budget.files).flatMap(([f, tests]) => Object.keys(tests).map((title) => ({ file: f, line: 0, title, requirements: [] })));
  expect(target.sendCap).toBeGreaterThanOrEqual(sendsNeeded(everyTest, RUNS_BY_DEPTH.quick, budget));
});

test('examples/vendor.yaml shows a trigger for every capability', () => {
  const file = join(EXAMPLES, 'vendor.yaml');
  const target = loadTarget(file, placeholderEnv(file));
  expect(Object.keys(target.triggers).sort()).toEqual([...CAPABILITIES].sort());
});

test('examples/reference-triggers.yaml reaches every document-level requirement through triggers alone, without the control plane', () => {
  const file = join(EXAMPLES, 'reference-triggers.yaml');
  const target = loadTarget(file, placeholderEnv(file));
  expect(target.hooks.controlUrl).toBeUndefined();
  expect(Object.values(target.triggers).map((t) => t.kind)).not.toContain('control');
  const supplied = suppliedBy(target);
  const outOfReach = loadCatalogue()
    .requirements.filter((r) => r.level === 'document' && isCheckable(r) && !r.withdrawn)
    .flatMap((r) => unmetNeeds(r, supplied).map((u) => `${r.id}: ${u.reason}`));
  expect(outOfReach).toEqual([]);
});
