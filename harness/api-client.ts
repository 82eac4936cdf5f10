import type { OperationId, Target } from './config.ts';
import { asCurl, EvidenceLog, redactBody, redactHeaders, type Exchange } from './evidence.ts';
import { HarnessStop, recordError, type Judged, type Judgement } from './judgement.ts';
import type { ResponseValidator, Violation } from './response-validator.ts';
import { acceptedMessageIds } from '../generators/send-port.ts';
import type { RunMessages } from './run-messages.ts';
import type { SendGuard } from './send-guard.ts';
import { TokenManager } from './token-manager.ts';
import type { HttpResponse, Transport } from './transport.ts';

export type ClientRole = 'primary' | 'secondary' | 'special';

export interface CallOptions {
  /** Values for {placeholders} in the operation's path, e.g. { numberId }; percent-encoded as needed. */
  params?: Record<string, string>;
  /** Values for {placeholders} written into the path as given, already percent-encoded (they win over `params`). */
  rawParams?: Record<string, string>;
  headers?: Record<string, string>;
  /** Send the names of `headers` as written, not in lower case (HTTP field names are case-insensitive: the same request). */
  headerNamesAsGiven?: boolean;
  /** A JSON body (serialised as given: use `body` to send bytes that are not JSON). */
  json?: unknown;
  /** A form-encoded body, as fields or as a ready string (to send repeated or odd fields). */
  form?: Record<string, string> | string;
  /** Raw body text, or bytes that are not UTF-8 text; pair it with a content-type header. */
  body?: string | Uint8Array;
  /** A query string to append to the path (the evidence shows a client_secret in it redacted). */
  query?: Record<string, string>;
  /** Another method than the route's, to see how the route answers it. */
  method?: string;
  /** Another path than the route's, under the base URL (a path under /api/core/ that names no route), to see how the server answers it. */
  path?: string;
  /**
   * Who is calling. A role uses that client's managed token (refresh once, retry once);
   * 'none' sends no Authorization header unless `headers` carries one.
   */
  as?: ClientRole | 'none';
}

/** A response as a test sees it: status, lower-case headers, text, and the JSON if it parsed. */
export class ApiResponse {
  constructor(
    readonly operation: OperationId,
    readonly request: Exchange['request'],
    private readonly raw: HttpResponse,
  ) {}
  get status(): number {
    return this.raw.status;
  }
  get headers(): Record<string, string> {
    return this.raw.headers;
  }
  get text(): string {
    return this.raw.text;
  }
  /** The JSON body (`any`, so a test can read the field it checks); undefined when not JSON. */
  get body(): any {
    try {
      return JSON.parse(this.raw.text);
    } catch {
      return undefined;
    }
  }
  /** "POST http://host/api/core/messages/send → 400": how failure messages name the exchange. */
  describe(): string {
    return `${this.request.method} ${this.request.url} → ${this.status}`;
  }
}

/** A response broke the OpenAPI document; it judged the requirements its violations break. */
export class SchemaViolationError extends Error implements Judged {
  override name = 'SchemaViolationError';
  readonly judgement: Judgement;
  constructor(
    readonly violations: Violation[],
    /** The answer itself, so a check of another level can still read it. */
    readonly response: ApiResponse,
  ) {
    super(
      [
        `${[...new Set(violations.map((v) => v.requirement))].join(', ')}: the response breaks the interface's OpenAPI document`,
        `  request:  ${response.describe()}`,
        ...violations.map((v) => `  expected: ${v.requirement} — actual: ${v.message}`),
        `  body:     ${response.text.slice(0, 300)}`,
        `  replay:\n${asCurl(response.request)}`,
      ].join('\n'),
    );
    this.judgement = { kind: 'requirements', ids: [...new Set(violations.map((v) => v.requirement))] };
    recordError(this);
  }
}

export interface ApiClientOptions {
  target: Target;
  transport: Transport;
  validator: ResponseValidator;
  evidence: EvidenceLog;
  guard: SendGuard;
  /** Token managers by role, shared per worker so tests do not each fetch tokens. */
  tokens: Partial<Record<ClientRole, TokenManager>>;
  /** The run's record of the messages accepted sends reported (harness/run-messages.ts). */
  messages?: RunMessages;
}

/** A connection the target's host refused: nothing listens at its address (not a reset or a timeout, which a running server may cause). */
function connectionRefused(e: unknown): boolean {
  const codeOf = (x: unknown) => (typeof x === 'object' && x !== null ? (x as { code?: unknown }).code : undefined);
  return codeOf(e) === 'ECONNREFUSED' || codeOf((e as { cause?: unknown } | null)?.cause) === 'ECONNREFUSED';
}

/**
 * The target stopped accepting connections during the run: it answered the preflight, so it
 * stopped or restarted, or the way to it went down. That is the run's problem (INTERPRETING.md,
 * Stopped runs): the verdicts are void, and every later test would stop the same way.
 */
/** The name the reporter looks for among the run's errors (reports/build.ts). */
export const TARGET_GONE = 'TargetGone';

export class TargetGone extends HarnessStop {
  override name = TARGET_GONE;
  constructor(request: { method: string; url: string }, cause: Error) {
    super(
      `the target stopped accepting connections during the run: ${request.method} ${request.url} was refused (${cause.message}). ` +
        'It answered earlier, so it stopped or restarted, or the way to it went down: start it again and run again. ' +
        'If a request of this run crashed it, the test that sent it failed on the server just before (see the report).',
    );
    this.stack = `${this.name}: ${this.message}`;
  }
}

/**
 * The answer of a call even when it breaks the OpenAPI document, with the violation kept for the
 * caller to raise after the check that must come first: a route answering 404 at the
 * document's path fails VER-001, whatever its 404 body says about the error contract.
 */
export async function answerOf(call: Promise<ApiResponse>): Promise<{ res: ApiResponse; violation: SchemaViolationError | null }> {
  try {
    return { res: await call, violation: null };
  } catch (error) {
    if (error instanceof SchemaViolationError) return { res: error.response, violation: error };
    throw error;
  }
}

/**
 * The validating client: every answer it receives is checked against spec/openapi.yaml
 * (status allowed by the operation, JSON content, schema for that status) and recorded,
 * redacted, as evidence. A violation fails the test at once, naming the requirement.
 */
export class ApiClient {
  constructor(private readonly options: ApiClientOptions) {}

  get target(): Target {
    return this.options.target;
  }

  /** Every messageId the run's accepted sends reported so far (all its tests), when the client keeps the record. */
  messagesOfRun(): Set<string> {
    return this.options.messages?.all() ?? new Set();
  }

  async call(operation: OperationId, options: CallOptions = {}): Promise<ApiResponse> {
    const role = options.as ?? 'primary';
    if (operation === 'send') this.options.guard.admit(options.json);
    if (role === 'none' || operation === 'token') return this.exchange(operation, options, undefined);
    const tokens = this.options.tokens[role];
    if (!tokens) throw new Error(`no credentials for the ${role} client in the target config`);
    // Section 5 rule 5: one refresh and one retry on 401, never more (TokenManager).
    return tokens.withToken((token) => this.exchange(operation, options, `Bearer ${token}`));
  }

  private async exchange(operation: OperationId, options: CallOptions, authorization: string | undefined): Promise<ApiResponse> {
    const { target, transport, validator, evidence } = this.options;
    const route = target.routes[operation];
    const path = options.path ?? route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const raw = options.rawParams?.[name];
      if (raw !== undefined) return raw;
      const value = options.params?.[name];
      if (value === undefined) throw new Error(`${operation}: path parameter {${name}} not given`);
      return encodeURIComponent(value);
    });
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | Uint8Array | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = typeof options.form === 'string' ? options.form : new URLSearchParams(options.form).toString();
    } else if (options.body !== undefined) {
      body = options.body;
    }
    if (authorization) headers.authorization = authorization;
    Object.assign(headers, options.headerNamesAsGiven ? options.headers : lowerCaseKeys(options.headers ?? {}));
    const query = options.query === undefined ? '' : new URLSearchParams(options.query).toString();
    const request = { method: options.method ?? route.method, url: target.baseUrl + path + (query && `?${query}`), headers, body };
    const shown: Exchange['request'] = {
      method: request.method,
      // A query is form-encoded fields: redacted as a form body is.
      url: target.baseUrl + path + (query && `?${redactBody(query) as string}`),
      headers: redactHeaders(headers),
      // Bytes that are not UTF-8 are shown decoded, each bad byte as U+FFFD.
      ...(body !== undefined && { body: redactBody(parseMaybe(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'), headers['content-type'])) }),
    };
    const started = performance.now();
    let raw: HttpResponse;
    try {
      raw = await transport(request, target.timeouts.requestMs);
    } catch (e) {
      evidence.record({ operation, request: shown, error: String(e) });
      // the harness's own stops (the target keeps answering 429) stay what they are
      if (e instanceof HarnessStop) throw e;
      // Nothing listens at the target any more: no answer of the server's, and no later one to
      // judge (a request that crashed it failed its own test before this one, on the server).
      if (connectionRefused(e)) throw new TargetGone(request, e as Error);
      throw new Error(`${request.method} ${request.url} failed: ${(e as Error).message}\n  replay:\n${asCurl(shown)}`);
    }
    const response = new ApiResponse(operation, shown, raw);
    // The OpenAPI document describes the route's own method and path: an answer to another has no contract there, only the test's checks.
    const violations = request.method === route.method && options.path === undefined ? validator.validate(operation, raw, target.routes.numbersItemsPath) : [];
    evidence.record({
      operation,
      request: shown,
      response: {
        status: raw.status,
        headers: redactHeaders(raw.headers),
        body: redactBody(response.body ?? raw.text),
        durationMs: Math.round(performance.now() - started),
      },
      ...(violations.length > 0 && { violations }),
    });
    if (violations.length > 0) throw new SchemaViolationError(violations, response);
    if (operation === 'send' && raw.status >= 200 && raw.status < 300) this.options.messages?.add(acceptedMessageIds(response.body));
    return response;
  }
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

function parseMaybe(body: string, contentType: string | undefined): unknown {
  if (!contentType?.includes('json')) return body;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
