import { hash } from 'node:crypto';

/** JSON with object keys sorted, so that key order and whitespace do not make a payload "changed". */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

// Every key a send body that passed the schema can have (SendRequest and its media items), in
// sorted order. JSON.stringify with this list as its replacer writes each object's keys in the
// list's order, that is sorted: the same text as canonicalJson, made by V8 in one call instead
// of a sort and a string per key.
const SEND_KEYS = ['contentType', 'externalReference', 'media', 'messageType', 'sendFrom', 'text', 'to', 'url'];
const KNOWN_KEYS = new Set(SEND_KEYS);

/** True if every object in value has only SEND_KEYS and every value is one JSON writes as canonicalJson does. */
function onlySendKeys(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return true;
    case 'object':
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(onlySendKeys);
      for (const key of Object.keys(value)) {
        if (!KNOWN_KEYS.has(key) || !onlySendKeys((value as Record<string, unknown>)[key])) return false;
      }
      // toJSON would be called by JSON.stringify and not by canonicalJson.
      return !('toJSON' in value);
    default:
      return false;
  }
}

/** canonicalJson of a send body, by the replacer list when the body has only the keys of a send (always, after the schema). */
export function canonicalSendJson(body: unknown): string {
  return onlySendKeys(body) ? JSON.stringify(body, SEND_KEYS) : canonicalJson(body);
}

/** What identifies "the same payload" for section 4.6 rule 8. */
export function payloadFingerprint(body: unknown): string {
  return hash('sha256', canonicalSendJson(body), 'base64url');
}
