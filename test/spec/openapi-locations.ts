import { deref, resolvePointer, toPointer } from './pointer.ts';
import { isObject, type Json, type JsonObject } from './spec-files.ts';

/** Where a schema sits in the OpenAPI document, and a readable name for test titles. */
export interface SchemaLocation {
  pointer: string;
  label: string;
}

export interface ExampleLocation {
  /** Pointer of the schema the example must satisfy. */
  schemaPointer: string;
  label: string;
  value: Json;
}

/** Every named schema under components.schemas. */
export function componentSchemas(doc: JsonObject): SchemaLocation[] {
  const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  return Object.keys(schemas).map((name) => ({ pointer: toPointer(['components', 'schemas', name]), label: name }));
}

/**
 * Every inline schema outside components.schemas: the `schema` of media types, parameters and
 * headers, in paths, webhooks and reusable components. The walk stops at each schema, so a
 * property that happens to be called `schema` inside one is never mistaken for another.
 */
export function inlineSchemas(doc: JsonObject): SchemaLocation[] {
  const found: SchemaLocation[] = [];
  const visit = (node: Json, segments: string[]): void => {
    if (Array.isArray(node)) node.forEach((child, i) => visit(child, [...segments, String(i)]));
    if (!isObject(node)) return;
    for (const [key, child] of Object.entries(node)) {
      const path = [...segments, key];
      if (path[0] === 'components' && path[1] === 'schemas') continue;
      if (key === 'schema' && isObject(child)) found.push({ pointer: toPointer(path), label: path.join(' ') });
      else visit(child, path);
    }
  };
  visit(doc, []);
  return found;
}

/**
 * Every example attached next to a schema: `examples` (a map of Example Objects, possibly
 * $refs) and `example` on media types, parameters and headers.
 */
export function objectExamples(doc: JsonObject): ExampleLocation[] {
  const found: ExampleLocation[] = [];
  for (const { pointer, label } of inlineSchemas(doc)) {
    const parentPointer = pointer.slice(0, -'/schema'.length);
    const parent = resolvePointer(doc, parentPointer);
    if (!isObject(parent)) continue;
    const owner = label.slice(0, -' schema'.length);
    if ('example' in parent) found.push({ schemaPointer: pointer, label: `${owner} example`, value: parent.example ?? null });
    if (isObject(parent.examples)) {
      for (const [name, entry] of Object.entries(parent.examples)) {
        const example = deref(doc, entry).node;
        if (isObject(example) && 'value' in example) found.push({ schemaPointer: pointer, label: `${owner} examples.${name}`, value: example.value ?? null });
      }
    }
  }
  return found;
}

/**
 * JSON Schema `examples` arrays inside schemas (annotations such as CoreErrorCode's list of
 * codes). A key `examples` directly under `properties` is a property name, not the keyword.
 */
export function schemaExamples(doc: JsonObject): ExampleLocation[] {
  const found: ExampleLocation[] = [];
  const roots = [...componentSchemas(doc), ...inlineSchemas(doc)];
  for (const root of roots) {
    const visit = (node: Json, segments: string[]): void => {
      if (Array.isArray(node)) node.forEach((child, i) => visit(child, [...segments, String(i)]));
      if (!isObject(node)) return;
      for (const [key, child] of Object.entries(node)) {
        const underProperties = segments[segments.length - 1] === 'properties';
        if (key === 'examples' && !underProperties && Array.isArray(child)) {
          const schemaPointer = root.pointer + toPointer(segments);
          child.forEach((value, i) => found.push({ schemaPointer, label: `${[root.label, ...segments].join(' ')} examples[${i}]`, value }));
        } else if (!key.startsWith('x-')) {
          visit(child, [...segments, key]);
        }
      }
    };
    const node = resolvePointer(doc, root.pointer);
    if (node !== undefined) visit(node, []);
  }
  return found;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface OperationLocation {
  operationId: string;
  path: string;
  method: string;
  pointer: string;
  operation: JsonObject;
}

/** Every operation under `paths` (webhooks are not operations a client calls). */
export function operations(doc: JsonObject): OperationLocation[] {
  const found: OperationLocation[] = [];
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      found.push({ operationId: String(operation.operationId ?? ''), path, method, pointer: toPointer(['paths', path, method]), operation });
    }
  }
  return found;
}

export function operationById(doc: JsonObject, operationId: string): OperationLocation {
  const found = operations(doc).find((o) => o.operationId === operationId);
  if (!found) throw new Error(`operation ${operationId} is not in the document`);
  return found;
}

/**
 * Pointer of the application/json schema an operation declares for a response key ("401",
 * "2XX"), following a $ref to components.responses.
 */
export function responseSchemaPointer(doc: JsonObject, operationId: string, key: string): string {
  const op = operationById(doc, operationId);
  const direct = `${op.pointer}${toPointer(['responses', key])}`;
  const { pointer = direct } = deref(doc, resolvePointer(doc, direct));
  return `${pointer}${toPointer(['content', 'application/json', 'schema'])}`;
}
