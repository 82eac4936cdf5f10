// The one table from a way of breaking the OpenAPI document to the requirement it breaks
// (harness/response-validator.ts) names requirements the catalogue has, checkable ones.
import { expect, test } from '@playwright/test';
import { isCheckable, loadCatalogue } from '../../harness/catalogue.ts';
import { ResponseValidator, VIOLATION_RULES } from '../../harness/response-validator.ts';

test('every requirement of the violation table is in spec/requirements.yaml, checkable and not withdrawn', () => {
  const byId = new Map(loadCatalogue().requirements.map((r) => [r.id, r]));
  const problems = Object.entries(VIOLATION_RULES).flatMap(([rule, id]) => {
    const r = byId.get(id);
    if (!r) return [`${rule}: ${id} is not in the catalogue`];
    if (r.withdrawn) return [`${rule}: ${id} is withdrawn`];
    if (!isCheckable(r)) return [`${rule}: ${id} is marked ${r.check}`];
    return [];
  });
  expect(problems).toEqual([]);
});

test('the validator judges by the table', () => {
  const validator = new ResponseValidator();
  const html = { status: 200, headers: { 'content-type': 'text/html' }, text: '<html></html>' };
  expect(validator.validate('whoami', html).map((v) => v.requirement)).toEqual([VIOLATION_RULES.notJson]);
  expect(validator.validate('token', { status: 404, headers: {}, text: '' }).map((v) => v.requirement)).toEqual([VIOLATION_RULES.tokenNotServed]);
  const json = (body: unknown, status = 200) => ({ status, headers: { 'content-type': 'application/json' }, text: JSON.stringify(body) });
  expect(new Set(validator.validate('token', json({ access_token: 'a', token_type: 'bearer' })).map((v) => v.requirement))).toEqual(new Set([VIOLATION_RULES.tokenResponse]));
  expect(new Set(validator.validate('send', json({}, 202)).map((v) => v.requirement))).toEqual(new Set([VIOLATION_RULES.sendBody]));
});
