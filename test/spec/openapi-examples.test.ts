import { test, expect } from '@playwright/test';
import { contractAjv, validatorAt } from './contract-ajv.ts';
import { objectExamples, schemaExamples } from './openapi-locations.ts';
import { OPENAPI_PATH, readYaml } from './spec-files.ts';

// Every example in the document satisfies the schema next to it: an example is what a reader
// copies, and what mock servers (Prism, Specmatic) answer with.
const doc = readYaml(OPENAPI_PATH);
const ajv = contractAjv(doc);

test.describe('request and response examples', () => {
  const examples = objectExamples(doc);
  test('the walk finds them', () => {
    expect(examples.length).toBeGreaterThanOrEqual(10);
  });
  for (const { schemaPointer, label, value } of examples) {
    test(label, () => {
      const validate = validatorAt(ajv, schemaPointer);
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    });
  }
});

test.describe('schema-level examples', () => {
  const examples = schemaExamples(doc);
  test('the walk finds them', () => {
    expect(examples.length).toBeGreaterThanOrEqual(7);
  });
  for (const { schemaPointer, label, value } of examples) {
    test(label, () => {
      const validate = validatorAt(ajv, schemaPointer);
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    });
  }
});
