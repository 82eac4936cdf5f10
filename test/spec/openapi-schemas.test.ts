import { test, expect } from '@playwright/test';
import { contractAjv, validatorAt } from './contract-ajv.ts';
import { componentSchemas, inlineSchemas } from './openapi-locations.ts';
import { OPENAPI_PATH, readYaml } from './spec-files.ts';

// Every schema compiles with Ajv (JSON Schema 2020-12, formats on, strict mode), $refs resolved
// inside the whole document. The harness validates live responses with these same schemas, so
// a schema that does not compile here would fail a certification run instead.
const doc = readYaml(OPENAPI_PATH);
const ajv = contractAjv(doc);

test.describe('components.schemas', () => {
  const schemas = componentSchemas(doc);
  test('the document names its schemas', () => {
    expect(schemas.map((s) => s.label)).toEqual(expect.arrayContaining(['TokenRequest', 'TokenResponse', 'OAuthError', 'CoreError', 'ClientContext', 'Number', 'SendRequest', 'SendResponse', 'SearchResult']));
  });
  for (const { pointer, label } of schemas) {
    test(`${label} compiles`, () => {
      expect(() => validatorAt(ajv, pointer)).not.toThrow();
    });
  }
});

test.describe('inline schemas (requests, responses, parameters, headers)', () => {
  const schemas = inlineSchemas(doc);
  test('the walk finds them', () => {
    // Request and response bodies, parameters and headers, in paths, webhooks and components.
    expect(schemas.length).toBeGreaterThanOrEqual(25);
  });
  for (const { pointer, label } of schemas) {
    test(`${label} compiles`, () => {
      expect(() => validatorAt(ajv, pointer)).not.toThrow();
    });
  }
});

test('strict mode is on: an unknown keyword is refused, not ignored', () => {
  const probe = contractAjv({ components: { schemas: { Typo: { type: 'object', requird: ['a'] } } } });
  expect(() => validatorAt(probe, '/components/schemas/Typo')).toThrow(/unknown keyword: "requird"/);
});
