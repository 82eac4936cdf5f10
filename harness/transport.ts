import type { APIRequestContext } from '@playwright/test';
import { Agent, request as undiciRequest } from 'undici';

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ', ' (as HTTP allows for most). */
  headers: Record<string, string>;
  text: string;
}

/** Sends one request and returns the answer as it came: no redirects followed, no retries. */
export type Transport = (request: HttpRequest, timeoutMs: number) => Promise<HttpResponse>;

/**
 * Playwright's APIRequestContext: the default, so a run gets Playwright's request tracing.
 * It is slower than undici (see bench/), which is why property runs use the undici transport.
 */
export function playwrightTransport(context: APIRequestContext): Transport {
  return async (req, timeoutMs) => {
    const res = await context.fetch(req.url, {
      method: req.method,
      headers: req.headers,
      // A Buffer goes out byte for byte. A string under a JSON content type would be
      // re-serialised as a JSON string when it does not parse, hiding malformed JSON.
      ...(req.body !== undefined && { data: Buffer.from(req.body, 'utf8') }),
      failOnStatusCode: false,
      maxRedirects: 0,
      timeout: timeoutMs,
    });
    const headers: Record<string, string> = {};
    for (const { name, value } of res.headersArray()) {
      const key = name.toLowerCase();
      headers[key] = key in headers ? `${headers[key]}, ${value}` : value;
    }
    return { status: res.status(), headers, text: await res.text() };
  };
}

/** undici with a keep-alive pool: for high-volume property runs and benchmarks. */
export function undiciTransport(connections = 16): Transport & { close(): Promise<void> } {
  const dispatcher = new Agent({ connections, pipelining: 1 });
  const send: Transport = async (req, timeoutMs) => {
    const res = await undiciRequest(req.url, {
      method: req.method as 'GET',
      headers: req.headers,
      body: req.body,
      dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    return { status: res.statusCode, headers, text: await res.body.text() };
  };
  return Object.assign(send, { close: () => dispatcher.close() });
}
