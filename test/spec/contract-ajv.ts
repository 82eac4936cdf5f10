import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { toFragment } from './pointer.ts';
import type { JsonObject } from './spec-files.ts';

/** The id the whole OpenAPI document is registered under, so its `#/...` $refs resolve in place. */
export const DOC_ID = 'openapi.json';

/**
 * Keywords a Schema Object may carry besides JSON Schema 2020-12: the ones OpenAPI 3.1 adds,
 * and the extensions this project uses. They are registered as annotations so Ajv keeps strict
 * mode (an unknown or misspelt keyword is an error) instead of turning strictness off.
 * A new `x-` extension in a schema has to be added here on purpose.
 */
export const OPENAPI_SCHEMA_KEYWORDS = ['discriminator', 'xml', 'externalDocs', 'example'] as const;
export const PROJECT_EXTENSIONS = ['x-open-choice', 'x-requirements'] as const;

/**
 * The OpenAPI Object's own fields. Ajv compiles the registered document's root before it
 * resolves a pointer into it, so in strict mode these would read as unknown keywords; as
 * annotations the root compiles to a no-op and only the schemas themselves are checked.
 */
export const OPENAPI_DOCUMENT_FIELDS = ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'webhooks', 'components', 'security', 'tags'] as const;

export function contractAjv(doc: JsonObject): Ajv2020 {
  // allowUnionTypes: `type: [string, "null"]` is how OpenAPI 3.1 writes a nullable field.
  // strictTypes off: the per-status error schemas narrow CoreError with allOf overlays such as
  // `properties: { error: { properties: { code: { const: ... } } } }`, which rely on the base
  // schema's `type: object` instead of repeating it. Every other strict check stays on.
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allowUnionTypes: true, allErrors: true });
  addFormats.default(ajv);
  ajv.addVocabulary([...OPENAPI_SCHEMA_KEYWORDS, ...PROJECT_EXTENSIONS, ...OPENAPI_DOCUMENT_FIELDS]);
  ajv.addSchema(doc, DOC_ID);
  return ajv;
}

/** Compiles (once, cached by Ajv) the schema at a JSON Pointer inside the registered document. */
export function validatorAt(ajv: Ajv2020, pointer: string): ValidateFunction {
  const validate = ajv.getSchema(`${DOC_ID}${toFragment(pointer)}`);
  if (!validate) throw new Error(`no schema at ${pointer}`);
  return validate;
}
