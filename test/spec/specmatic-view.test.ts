import { test, expect } from '@playwright/test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { operations } from './openapi-locations.ts';
import { isObject, OPENAPI_PATH, PROFILE_PATH, readYaml } from './spec-files.ts';
import { chosenStatus, specmaticView } from './specmatic-view.ts';

// The copy of the document that scripts/spec-tools.sh hands to Specmatic.
const doc = readYaml(OPENAPI_PATH);
const profile = readYaml(PROFILE_PATH);
const view = specmaticView(doc, profile);

function responseKeys(d: typeof doc, operationId: string): string[] {
  const op = operations(d).find((o) => o.operationId === operationId)?.operation;
  return Object.keys(isObject(op?.responses) ? op.responses : {});
}

test('the view has no status ranges, which Specmatic cannot read', () => {
  for (const { operationId } of operations(view)) {
    expect(responseKeys(view, operationId).filter((k) => /^[1-5]XX$/.test(k)), operationId).toEqual([]);
  }
});

test('success statuses are the reference profile\'s (send 202, the rest 200)', () => {
  expect(responseKeys(view, 'send')).toContain('202');
  expect(responseKeys(view, 'send')).not.toContain('200');
  for (const id of ['token', 'whoami', 'numbers', 'search', 'update']) expect(responseKeys(view, id), id).toContain('200');
});

test('every exact status of the document is kept, and other statuses fall to default', () => {
  for (const { operationId } of operations(doc)) {
    const exact = responseKeys(doc, operationId).filter((k) => /^\d{3}$/.test(k));
    expect(responseKeys(view, operationId), operationId).toEqual(expect.arrayContaining([...exact, 'default']));
  }
});

test('the view is still valid OpenAPI 3.1, and the document itself is untouched', async () => {
  expect((await new Validator().validate(view)).valid).toBe(true);
  expect(responseKeys(doc, 'send')).toContain('2XX');
});

test('a profile choice without a status is an error, not a guess', () => {
  expect(chosenStatus(profile, 'send.successStatus')).toBe('202');
  expect(() => chosenStatus({ choices: { 'x.route': { chose: 'GET /x' } } }, 'x.route')).toThrow(/names no HTTP status/);
});
