import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { Agent, request as undiciRequest } from 'undici';

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Text goes out as UTF-8; bytes as given (a body that is not UTF-8 at all). */
  body?: string | Uint8Array;
}

export interface HttpResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ', ' (as HTTP allows for most). */
  headers: Record<string, string>;
  /** The body decoded as UTF-8, a byte sequence that is not UTF-8 as U+FFFD (notUtf8 says so). */
  text: string;
  /** The body's bytes are not UTF-8 (RFC 8259 8.1: JSON exchanged between systems is UTF-8). */
  notUtf8?: true;
}

/** Sends one request and returns the answer as it came: no redirects followed, no retries. */
export type Transport = (request: HttpRequest, timeoutMs: number) => Promise<HttpResponse>;

/** The run gave up waiting: `timeoutMs` passed before the whole answer arrived. */
export class NoAnswerError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms (timeouts.requestMs)`);
    this.name = 'NoAnswerError';
  }
}

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
/** Sent unless a request names its own: some gateways refuse requests that carry no User-Agent. */
export const USER_AGENT = `messaging-conformance/${version}`;

/**
 * undici with a keep-alive pool, one per worker. Every exchange is already recorded, redacted,
 * by the validating client (harness/evidence.ts), so nothing is gained from Playwright's
 * request tracing, which cost about 20 ms of worker CPU per request here (bench/certify-time.ts).
 * The request goes out as given: the body byte for byte (malformed JSON stays malformed), no
 * Accept-Encoding (the answer is read as sent), redirects not followed. `timeoutMs` bounds the
 * whole exchange, from connecting to the answer's last byte.
 */
export function undiciTransport(connections = 16): Transport & { close(): Promise<void> } {
  const dispatcher = new Agent({ connections, pipelining: 1 });
  const send: Transport = async (req, timeoutMs) => {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const res = await undiciRequest(req.url, {
        method: req.method as 'GET',
        headers: { 'user-agent': USER_AGENT, ...req.headers },
        body: req.body,
        dispatcher,
        signal,
      });
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      const bytes = Buffer.from(await res.body.arrayBuffer());
      return { status: res.statusCode, headers, text: bytes.toString('utf8'), ...(!isUtf8(bytes) && { notUtf8: true as const }) };
    } catch (e) {
      if (signal.aborted) throw new NoAnswerError(timeoutMs);
      throw e;
    }
  };
  return Object.assign(send, { close: () => dispatcher.close() });
}
