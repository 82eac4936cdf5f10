// Second line of defence for secrets. The validating client redacts evidence before attaching
// it; the reporter redacts again, because a report is handed to third parties and a single
// leaked client secret or bearer token in it is worse than an over-redacted field.
// The lists of secret fields and headers are the harness's (harness/evidence.ts): one list.
import { isSecretField, REDACTED, redactHeaders, type Exchange } from '../harness/evidence.ts';

const MAX_BODY_CHARS = 16_384;

/**
 * Whether the word after "Bearer" or "Basic" in free text is a credential. A credential is at
 * least 8 characters and not a plain word: it has a digit or symbol inside, or mixes cases
 * (base64). A word of prose is not one, with the punctuation that ends its sentence ("bearer
 * credentials.") or the hyphens that join it ("bearer-token-like"): "not a well-formed bearer
 * token." and "the Bearer challenge" stay readable.
 */
function isCredential(word: string): boolean {
  const core = word.replace(/[.,;:!?]+$/, '');
  if (core.length < 8) return false;
  if (/^[A-Z]?[a-z]+(?:-[a-z]+)*$/.test(core) || /^[A-Z]+(?:-[A-Z]+)*$/.test(core)) return false;
  return /[0-9._~+/=-]/.test(core) || /[a-z][A-Z]|[A-Z][a-z]/.test(core);
}

/** Replaces credentials inside free text: auth schemes, and key=value pairs of secret fields. */
export function redactText(s: string): string {
  return s
    .replace(/\b([Bb][Ee][Aa][Rr][Ee][Rr]|[Bb][Aa][Ss][Ii][Cc])(\s+)(?!\[redacted\])([A-Za-z0-9._~+/=-]+)/g, (m, scheme: string, space: string, word: string) => (isCredential(word) ? `${scheme}${space}${REDACTED}` : m))
    .replace(/\b(access_token|refresh_token|client_secret|password)=([^&\s"']+)/gi, (_m, k: string) => `${k}=${REDACTED}`)
    .replace(/("(?:access_token|refresh_token|client_secret|clientSecret|password|webhookSecret)"\s*:\s*)"[^"]*"/g, `$1"${REDACTED}"`);
}

function redactUrl(url: string): string {
  // userinfo (https://user:pass@host) and secret query parameters
  return redactText(url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/i, `$1${REDACTED}@`));
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

/** An exchange as an evidence attachment holds it: the shape is checked loosely, the values are not trusted. */
export interface ExchangeInput {
  operation?: unknown;
  request: { method: unknown; url: unknown; headers?: unknown; body?: unknown };
  response?: { status?: unknown; headers?: unknown; body?: unknown; durationMs?: unknown };
  violations?: unknown;
  error?: unknown;
}

const headersOf = (h: unknown): Record<string, string> => redactHeaders(h && typeof h === 'object' && !Array.isArray(h) ? (h as Record<string, unknown>) : {});

/** The exchange in the report's shape, every credential redacted again. */
export function redactExchange(e: ExchangeInput): Exchange {
  const out: Exchange = {
    ...(typeof e.operation === 'string' && { operation: e.operation }),
    request: {
      method: String(e.request.method),
      url: redactUrl(String(e.request.url)),
      headers: headersOf(e.request.headers),
      ...(e.request.body !== undefined && { body: redactValue(e.request.body) }),
    },
  };
  if (e.response) {
    out.response = { status: Number(e.response.status), headers: headersOf(e.response.headers), ...(e.response.body !== undefined && { body: redactValue(e.response.body) }) };
    if (typeof e.response.durationMs === 'number') out.response.durationMs = e.response.durationMs;
  }
  if (Array.isArray(e.violations)) out.violations = e.violations.map(redactValue) as Exchange['violations'];
  if (typeof e.error === 'string') out.error = redactText(e.error);
  return out;
}
