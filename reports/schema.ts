// Validates a report against report.schema.json (JSON Schema 2020-12). The reporter validates
// before writing and verify validates before believing, so a report that leaves this
// project and one that comes back are held to the same shape.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

export const REPORT_SCHEMA_PATH = new URL('./report.schema.json', import.meta.url);

// ajv-formats is CommonJS: depending on the loader its plugin is the default export itself or
// sits on `.default`.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats: FormatsPlugin =
  (addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? (addFormatsModule as unknown as FormatsPlugin);

let validator: ReturnType<Ajv2020['compile']> | undefined;

function compiled(): ReturnType<Ajv2020['compile']> {
  if (!validator) {
    // validateSchema off: test/spec/schemas-meta.test.ts checks report.schema.json against the meta-schema once.
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, validateSchema: false });
    addFormats(ajv);
    validator = ajv.compile(JSON.parse(readFileSync(REPORT_SCHEMA_PATH, 'utf8')) as object);
  }
  return validator;
}

/** Compiles the validator ahead of use (the reporter does it while the tests run). */
export function prepareReportSchema(): void {
  compiled();
}

/** Schema violations as readable lines (empty when the report is valid). */
export function reportSchemaErrors(value: unknown): string[] {
  const validate = compiled();
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, 20).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
}
