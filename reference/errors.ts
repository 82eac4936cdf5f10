// The one error catalogue of the reference server: every CORE error code with its HTTP status
// and its default message (interface section 7.2; ERR-002: status and code agree). Codes outside the section 7.2 table are
// used only for statuses the table does not cover, and still answer in the CORE wrapper.
export const CORE_ERRORS = {
  INVALID_REQUEST: { status: 400, message: 'The request is not valid.' },
  UNAUTHORIZED: { status: 401, message: 'A valid bearer token is required.' },
  FORBIDDEN: { status: 403, message: 'The request is not allowed for this API client.' },
  NOT_FOUND: { status: 404, message: 'The resource does not exist.' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time.' },
  CONFLICT: { status: 409, message: 'The request conflicts with an earlier one.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request body must be application/json.' },
  EXPECTATION_FAILED: { status: 417, message: 'The expectation of the Expect header cannot be met.' },
  // Only with the send.unsafeRetry choice 422 (the Idempotency-Key draft's status, 2.7).
  UNPROCESSABLE_CONTENT: { status: 422, message: 'The request cannot be processed as sent.' },
  // Over a limit of the client's or of its source address (profile send.rateLimit), with Retry-After.
  TOO_MANY_REQUESTS: { status: 429, message: 'Too many requests; retry after the time Retry-After gives.' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request headers are too large.' },
  SERVER_ERROR: { status: 500, message: 'The server failed to handle the request.' },
  UPSTREAM_ERROR: { status: 502, message: 'The upstream inventory provider failed.' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'The server cannot handle the request now.' },
} as const;

export type CoreErrorCode = keyof typeof CORE_ERRORS;

export interface CoreErrorBody {
  error: { code: CoreErrorCode; message: string; details: Record<string, unknown> };
  requestId: string;
}

/**
 * A failure that a /api/core route (or the control plane) answers in the CORE wrapper. Its
 * message says in words what is wrong, never empty (ERR-202).
 */
export class CoreError extends Error {
  readonly code: CoreErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: CoreErrorCode,
    message: string = CORE_ERRORS[code].message,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'CoreError';
    this.code = code;
    this.status = CORE_ERRORS[code].status;
    this.details = details;
    this.headers = headers;
  }
}

/** ERR-001: the CORE wrapper, error.code, error.message and error.details, and requestId. */
export function coreErrorBody(error: CoreError, requestId: string): CoreErrorBody {
  return { error: { code: error.code, message: error.message, details: error.details }, requestId };
}

/** The token endpoint's errors (section 7.1) with the statuses of the reference profile (token.errorStatus: TOKEN-103, TOKEN-201). */
export const OAUTH_ERRORS = {
  invalid_request: { status: 400 },
  unsupported_grant_type: { status: 400 },
  invalid_client: { status: 401 },
  // Profile client.status: the credentials are right, but the client may not have a token.
  unauthorized_client: { status: 400 },
  // RFC 6749 4.1.2.1's code for a temporary condition: the server is shutting down (503) or the
  // caller is over a rate limit (429, with Retry-After).
  temporarily_unavailable: { status: 503 },
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERRORS;

/** A token endpoint refusal in the OAuth body; its error_description says in words what is wrong (ERR-202). */
export class OAuthError extends Error {
  readonly code: OAuthErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: OAuthErrorCode, description: string, status: number = OAUTH_ERRORS[code].status, headers: Record<string, string> = {}) {
    super(description);
    this.name = 'OAuthError';
    this.code = code;
    this.status = status;
    this.headers = headers;
  }
}

/** A problem with the operator's flags or fixtures file: reported in one line, exit code 2. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
