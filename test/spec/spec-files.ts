import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The three contract files, read fresh by each test file (they are small). */
export const SPEC_DIR = fileURLToPath(new URL('../../spec/', import.meta.url));
export const OPENAPI_PATH = `${SPEC_DIR}openapi.yaml`;
export const REQUIREMENTS_PATH = `${SPEC_DIR}requirements.yaml`;
export const PROFILE_PATH = `${SPEC_DIR}profile.yaml`;

/** A parsed JSON/YAML value, navigated by the tests with explicit checks. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function readYaml(path: string): JsonObject {
  // uniqueKeys (the default) makes a duplicated key a parse error, not a silent overwrite.
  return parse(readFileSync(path, 'utf8')) as JsonObject;
}

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
