import { isObject, type Json } from './spec-files.ts';

/** RFC 6901 JSON Pointer from path segments ('/' and '~' escaped). */
export function toPointer(segments: readonly string[]): string {
  return segments.map((s) => `/${s.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** The pointer as a URI fragment, for `$ref`s into the registered document (Ajv decodes it). */
export function toFragment(pointer: string): string {
  return `#${pointer.split('/').map(encodeURIComponent).join('/')}`;
}

/** The value at a pointer, or undefined when some segment is missing. */
export function resolvePointer(root: Json, pointer: string): Json | undefined {
  let node: Json | undefined = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = node[key];
    else return undefined;
  }
  return node;
}

/** Follows a local `$ref` ("#/components/...") once; other values are returned unchanged. */
export function deref(root: Json, node: Json | undefined): { node: Json | undefined; pointer?: string } {
  if (isObject(node) && typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
    const pointer = node.$ref.slice(1);
    return { node: resolvePointer(root, pointer), pointer };
  }
  return { node };
}

/** Depth-first walk calling `visit` with every node and its pointer. */
export function walk(node: Json, visit: (node: Json, segments: string[]) => void, segments: string[] = []): void {
  visit(node, segments);
  if (Array.isArray(node)) node.forEach((child, i) => walk(child, visit, [...segments, String(i)]));
  else if (isObject(node)) for (const [key, child] of Object.entries(node)) walk(child, visit, [...segments, key]);
}
