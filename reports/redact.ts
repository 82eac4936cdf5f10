// Second line of defence for secrets. The validating client redacts evidence before attaching
// it; the reporter redacts again, because a report is handed to third parties and a single
// leaked client secret or bearer token in it is worse than an over-redacted field.
import type { Exchange } from './types.ts';

export const REDACTED = '[redacted]';

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-control-token']);
// JSON/form fields that carry credentials in this interface (token endpoint, fixtures, webhooks).
const SECRET_FIELDS = new Set([
  'access_token', 'refresh_token', 'id_token', 'client_secret', 'clientsecret', 'password',
  'secret', 'webhooksecret', 'webhook_secret', 'controltoken', 'token',
]);
const MAX_BODY_CHARS = 16_384;

function isSecretField(name: string): boolean {
  return SECRET_FIELDS.has(name.toLowerCase());
}

/** Replaces credentials inside free text: auth schemes, and key=value pairs of secret fields. */
export function redactText(s: string): string {
  return s
    // A credential is at least 8 characters and not a plain word: it has a digit or symbol,
    // or mixes cases (base64). Prose such as "Bearer challenge" or `realm=` stays readable.
    .replace(/\b([Bb][Ee][Aa][Rr][Ee][Rr]|[Bb][Aa][Ss][Ii][Cc])\s+(?!\[redacted\])(?=[A-Za-z0-9._~+/=-]{8})(?=[A-Za-z]*[0-9._~+/=-]|[a-z]*[A-Z]+[a-z]|[A-Z]*[a-z]+[A-Z])[A-Za-z0-9._~+/=-]+/g, `$1 ${REDACTED}`)
    .replace(/\b(access_token|refresh_token|client_secret|password)=([^&\s"']+)/gi, (_m, k: string) => `${k}=${REDACTED}`)
    .replace(/("(?:access_token|refresh_token|client_secret|clientSecret|password|webhookSecret)"\s*:\s*)"[^"]*"/g, `$1"${REDACTED}"`);
}

function redactUrl(url: string): string {
  // userinfo (https://user:pass@host) and secret query parameters
  return redactText(url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/i, `$1${REDACTED}@`));
}

function redactHeaders(h: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!h) return h;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(h)) {
    if (!SECRET_HEADERS.has(k.toLowerCase())) out[k] = v;
    else if (typeof v === 'string' && /^(Bearer|Basic)\s/i.test(v)) out[k] = `${v.split(/\s/)[0]} ${REDACTED}`;
    else out[k] = REDACTED;
  }
  return out;
}

/** Redacts a parsed body: secret fields anywhere in the tree; strings get text redaction. */
export function redactValue(v: unknown): unknown {
  if (typeof v === 'string') {
    const s = redactText(v);
    return s.length > MAX_BODY_CHARS ? `${s.slice(0, MAX_BODY_CHARS)}… [${s.length - MAX_BODY_CHARS} more characters cut]` : s;
  }
  if (Array.isArray(v)) return v.map(redactValue);
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = isSecretField(k) && x !== null && x !== '' ? REDACTED : redactValue(x);
    return out;
  }
  return v;
}

export function redactExchange(e: Exchange): Exchange {
  const out: Exchange = {
    request: {
      method: String(e.request.method),
      url: redactUrl(String(e.request.url)),
      headers: redactHeaders(e.request.headers),
      body: redactValue(e.request.body),
    },
  };
  if (e.response) {
    out.response = { status: e.response.status, headers: redactHeaders(e.response.headers), body: redactValue(e.response.body) };
    if (typeof e.response.durationMs === 'number') out.response.durationMs = e.response.durationMs;
  }
  if (Array.isArray(e.violations)) out.violations = e.violations.map(redactValue);
  if (e.validation !== undefined) out.validation = redactValue(e.validation);
  if (typeof e.error === 'string') out.error = redactText(e.error);
  return out;
}
