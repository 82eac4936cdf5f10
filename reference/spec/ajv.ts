import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped in the module object.
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((formatsModule as unknown as { default?: AddFormats }).default ?? formatsModule) as unknown as AddFormats;

/**
 * The validator for request bodies and the fixtures file. OpenAPI 3.1 schemas are JSON Schema
 * 2020-12. Unlike fastify's defaults, nothing is coerced or silently removed: a wrong type or an
 * unknown field must be reported, never repaired.
 */
export function createAjv(): Ajv2020 {
  // validateSchema off: test/spec/schemas-meta.test.ts checks every schema of the document against the meta-schema once.
  const ajv = new Ajv2020({ strict: false, allErrors: false, coerceTypes: false, removeAdditional: false, useDefaults: false, validateSchema: false });
  addFormats(ajv);
  return ajv;
}
