// HTML/XML escaping for every string that comes from a test, a target or a catalogue: a
// target's response body ends up in the report, so it is untrusted input.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** XML 1.0 forbids most control characters even when escaped; drop them. */
export function escXml(value: unknown): string {
  // eslint-disable-next-line no-control-regex
  return esc(value).replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '');
}

/** A stable HTML id / CSS-safe token for a requirement ID or area id. */
export function slug(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/g, '_');
}
