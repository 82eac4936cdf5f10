/**
 * One request/response pair as the validating client records it and the report shows it:
 * secrets already redacted. The one definition, for the harness and the reporter.
 */
export interface Exchange {
  /** The interface operation the request was for (token, whoami, numbers, search, update, send), when the validating client made it. */
  operation?: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: unknown };
  response?: { status: number; headers: Record<string, string>; body?: unknown; durationMs?: number };
  /** Schema violations found by the validating client (empty when the answer conforms). */
  violations?: Array<{ requirement: string; message: string }>;
  /** Transport error (no response). */
  error?: string;
}

// Where credentials travel in this interface (token endpoint, fixtures, webhooks, control
// plane): the one list, used by the validating client and again by the reporter.
const SECRET_FIELDS = new Set([
  'access_token', 'refresh_token', 'id_token', 'client_secret', 'clientsecret', 'password',
  'secret', 'webhooksecret', 'webhook_secret', 'controltoken', 'token',
]);
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-control-token']);
export const REDACTED = '[redacted]';

/** A JSON or form field that carries a credential (any case). */
export function isSecretField(name: string): boolean {
  return SECRET_FIELDS.has(name.toLowerCase());
}

/** Keep the scheme (it is often what a test is about) and hide the credential. */
export function redactHeaders(headers: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, value]) => {
      const v = String(value);
      const name = k.toLowerCase();
      if (!SECRET_HEADERS.has(name)) return [k, v];
      // An authorization header keeps its scheme (Bearer, Basic); cookies and keys keep nothing.
      const scheme = name.endsWith('authorization') ? /^([A-Za-z][A-Za-z0-9._~+-]*)\s+\S/.exec(v)?.[1] : undefined;
      return [k, scheme ? `${scheme} ${REDACTED}` : v === '' ? '' : REDACTED];
    }),
  );
}

/** Evidence keeps this much nesting; a probe may send far deeper bodies than a report can hold. */
const MAX_EVIDENCE_DEPTH = 32;

/** Secret-bearing fields in JSON bodies and form bodies, down to MAX_EVIDENCE_DEPTH. */
export function redactBody(body: unknown, depth = 0): unknown {
  if (depth > MAX_EVIDENCE_DEPTH && body !== null && typeof body === 'object') return `[nested deeper than ${MAX_EVIDENCE_DEPTH} levels: not shown]`;
  if (typeof body === 'string') {
    if (!/(^|&)(client_secret|access_token)=/.test(body)) return body;
    const form = new URLSearchParams(body);
    for (const key of form.keys()) if (isSecretField(key)) form.set(key, REDACTED);
    return form.toString().replace(/%5Bredacted%5D/g, REDACTED);
  }
  if (Array.isArray(body)) return body.map((v) => redactBody(v, depth + 1));
  if (body && typeof body === 'object') {
    return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, isSecretField(k) && typeof v === 'string' && v !== '' ? REDACTED : redactBody(v, depth + 1)]));
  }
  return body;
}

/** The exchanges of one test, in order; attached to the test as `evidence`. */
export class EvidenceLog {
  readonly exchanges: Exchange[] = [];
  /** A long property run would otherwise attach thousands of exchanges: keep the first and last. */
  constructor(private readonly limit = 50) {}
  private dropped = 0;

  record(exchange: Exchange): void {
    this.exchanges.push(exchange);
    if (this.exchanges.length > this.limit) {
      this.exchanges.splice(this.limit / 2, 1);
      this.dropped++;
    }
  }

  toJSON(): { exchanges: Exchange[]; omitted: number } {
    return { exchanges: this.exchanges, omitted: this.dropped };
  }
}

/** The request as a shell command, for a failure message a reader can replay. */
export function asCurl(request: Exchange['request']): string {
  const parts = [`curl -i -X ${request.method} '${request.url}'`];
  for (const [k, v] of Object.entries(request.headers)) parts.push(`-H '${k}: ${v.replace(/'/g, `'\\''`)}'`);
  if (request.body !== undefined) {
    const data = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    parts.push(`--data-raw '${data.replace(/'/g, `'\\''`)}'`);
  }
  return parts.join(' \\\n  ');
}
