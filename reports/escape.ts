// HTML/XML escaping for every string that comes from a test, a target or a catalogue: a
// target's response body ends up in the report, so it is untrusted input. The pages are built
// with the `html` tag, which escapes whatever it interpolates unless it is markup the tag made
// itself: escaping is the default, and markup has to be made on purpose.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/** Markup: made by the `html` tag (its values escaped), or by `trusted` for the pages' own constant CSS and script. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
  /** This markup followed by more. */
  concat(...more: readonly Html[]): Html {
    return new Html(this.text + more.map((m) => m.text).join(''));
  }
}

/** A value as it goes into a page: markup as it is, a list item by item, nothing for null, undefined or false, anything else escaped. */
function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return esc(value);
}

/** The tag the report pages are written with: html`<td>${text}</td>` escapes `text`. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0]!;
  values.forEach((value, i) => {
    text += render(value) + strings[i + 1]!;
  });
  return new Html(text);
}

/** The pages' own constant markup (their CSS and script, written in this repository): never a value from a run. */
export function trusted(text: string): Html {
  return new Html(text);
}

/** Markup pieces joined by `separator` (plain text, escaped like any value). */
export function joined(parts: readonly Html[], separator: string): Html {
  return new Html(parts.map((p) => p.text).join(esc(separator)));
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
