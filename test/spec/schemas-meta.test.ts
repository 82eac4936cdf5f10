import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { CONFIG_SCHEMA_PATH } from '../../harness/config.ts';
import { SETTINGS_SCHEMA } from '../../harness/settings.ts';
import { FIXTURE_SET_SCHEMA } from '../../reference/fixtures/schema.ts';
import { CONTROL_SCHEMAS } from '../../reference/routes/control.ts';
import { loadRequestSchemas } from '../../reference/spec/requestSchemas.ts';
import { REPORT_SCHEMA_PATH } from '../../reports/schema.ts';
import { componentSchemas, inlineSchemas } from './openapi-locations.ts';
import { resolvePointer } from './pointer.ts';
import { OPENAPI_PATH, readYaml } from './spec-files.ts';

// Every Ajv the project runs is built with validateSchema off: checking each schema against the
// JSON Schema 2020-12 meta-schema costs each process tens of milliseconds at start, every run.
// The check is made here instead, once, for every schema those validators compile: a schema
// that breaks the meta-schema (a misspelt `type`, `required: "x"`) fails this test.
const metaAjv = new Ajv2020({ allErrors: true });

function expectValidSchema(schema: unknown, where: string): void {
  const valid = metaAjv.validateSchema(schema as object);
  expect(valid ? [] : metaAjv.errors, `${where} is a valid JSON Schema 2020-12 schema`).toEqual([]);
}

const json = (url: URL) => JSON.parse(readFileSync(url, 'utf8')) as unknown;

test.describe('the schemas the harness compiles', () => {
  test('harness/config.schema.json (the config loader)', () => expectValidSchema(json(CONFIG_SCHEMA_PATH), 'config.schema.json'));
  test('the run settings (harness/settings.ts)', () => expectValidSchema(SETTINGS_SCHEMA, 'SETTINGS_SCHEMA'));
  test('reports/report.schema.json (the report reader)', () => expectValidSchema(json(REPORT_SCHEMA_PATH), 'report.schema.json'));
  test('every schema of spec/openapi.yaml (the response validator and the reference)', () => {
    const doc = readYaml(OPENAPI_PATH);
    const locations = [...componentSchemas(doc), ...inlineSchemas(doc)];
    expect(locations.length, 'the document has schemas to check').toBeGreaterThan(10);
    for (const { pointer, label } of locations) expectValidSchema(resolvePointer(doc, pointer), `${label} (${pointer})`);
  });
});

test.describe('the schemas the reference compiles', () => {
  test('its request schemas, as strict as its profile', () => {
    const { e164: _, ...schemas } = loadRequestSchemas();
    for (const [name, schema] of Object.entries(schemas)) expectValidSchema(schema, `request schema ${name}`);
  });
  test('its control plane request schemas', () => {
    for (const [name, schema] of Object.entries(CONTROL_SCHEMAS)) expectValidSchema(schema, `control schema ${name}`);
  });
  test('its fixtures file schema', () => expectValidSchema(FIXTURE_SET_SCHEMA, 'FIXTURE_SET_SCHEMA'));
});

test('a schema that breaks the meta-schema is caught', () => {
  expect(metaAjv.validateSchema({ type: 'strnig' })).toBe(false);
  expect(metaAjv.validateSchema({ type: 'object', required: 'id' })).toBe(false);
});
