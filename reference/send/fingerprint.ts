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

/** What identifies "the same payload" for section 4.6 rule 8. */
export function payloadFingerprint(body: unknown): string {
  return hash('sha256', canonicalJson(body), 'base64url');
}
