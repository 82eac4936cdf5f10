import type { FastifyError, FastifyRequest } from 'fastify';
import { CoreError, coreErrorBody, OAuthError } from '../reference/errors.ts';
import { toCoreError } from '../reference/routes/coreErrorHandler.ts';
import type { SendRequest } from '../reference/send/sendRequest.ts';
import { objectBodyOf, rawBodyOf, type FaultDefinition } from './fault.ts';

// Faults of the error model (section 7).

const ANY_CORE_ROUTE = /^[A-Z]+ \/api\/core\//;

/** A request under /api/core/ that no route matched (the router's 404 and its refusals). */
const unroutedCore = (request: FastifyRequest): boolean => request.routeOptions.url === undefined && request.url.startsWith('/api/core/');

/** Whether a Content-Type names `mediaType` in letters of another case than its lower-case spelling. */
const inOtherCase = (contentType: string | undefined, mediaType: string): boolean => {
  const type = contentType?.trim().split(';')[0]!.trim() ?? '';
  return type.toLowerCase() === mediaType && type !== mediaType;
};

/** application/json with a charset parameter (`application/json; charset=utf-8`). */
const JSON_WITH_CHARSET = /^\s*application\/json\s*;(?:.*;)?\s*charset\s*=/i;

/** The text up to the end of the first JSON object it starts with, or the text as it is. */
/** The body with every control character inside a JSON string written as its \\u escape: what a reader that takes raw ones reads. */
function escapeRawControlCharacters(written: string): string {
  let inString = false;
  let out = '';
  for (let i = 0; i < written.length; i++) {
    const c = written[i]!;
    if (inString && c === '\\') {
      out += c + (written[++i] ?? '');
      continue;
    }
    if (c === '"') inString = !inString;
    out += inString && c < ' ' ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c;
  }
  return out;
}

function firstJsonValue(written: string): string {
  for (let end = written.indexOf('}'); end >= 0; end = written.indexOf('}', end + 1)) {
    try {
      JSON.parse(written.slice(0, end + 1));
      return written.slice(0, end + 1);
    } catch {
      // not a whole value yet
    }
  }
  return written;
}

export const ERRORS_FAULTS = {
  'errors.spaced-json-refused': {
    breaks: ['ERR-007'],
    description: 'a send body is refused 400 INVALID_REQUEST unless it is written as compactly as JSON.stringify writes it: whitespace between tokens or an escaped character makes it "not canonical"',
    route: 'POST /api/core/messages/send',
    preValidation(request) {
      const length = Number(request.headers['content-length']);
      if (Number.isFinite(length) && request.body !== undefined && length !== Buffer.byteLength(JSON.stringify(request.body))) {
        throw new CoreError('INVALID_REQUEST', 'The request body is not canonical JSON.', { field: 'body' });
      }
    },
  },
  'errors.forbidden-message-empty': {
    breaks: ['ERR-202'],
    description: 'a send from a number the client does not own is answered 403 FORBIDDEN with an empty error.message (every other error keeps its words)',
    route: 'POST /api/core/messages/send',
    answer({ status, body }) {
      if (status === 403 && body.error?.code === 'FORBIDDEN') body.error = { ...body.error, message: '' };
    },
  },
  'errors.grant-description-empty': {
    breaks: ['ERR-202'],
    description: 'a token request with another grant_type is answered unsupported_grant_type with an empty error_description',
    route: 'POST /api/auth/token',
    answer({ body }) {
      if (body.error === 'unsupported_grant_type') body.error_description = '';
    },
  },
  'errors.body-limit-code-empty': {
    breaks: ['ERR-202'],
    description: 'a body over the size limit is answered 413 in the CORE wrapper with an empty error.code',
    route: ANY_CORE_ROUTE,
    answer({ status, body }) {
      if (status === 413 && body.error) body.error = { ...body.error, code: '' };
    },
  },
  'errors.body-limit-as-invalid-request': {
    breaks: ['ERR-203'],
    description: 'a body over the 256 KiB limit is answered 400 INVALID_REQUEST in the CORE wrapper, as any request defect, instead of 413 PAYLOAD_TOO_LARGE',
    route: ANY_CORE_ROUTE,
    answer(answer) {
      if (answer.status !== 413 || !answer.body.error) return;
      answer.status = 400;
      answer.body.error = { ...answer.body.error, code: 'INVALID_REQUEST' };
    },
  },
  'errors.flat-router-errors': {
    breaks: ['ERR-001'],
    description: "the router's own refusals (an over-long path parameter) are answered in fastify's flat body, not the CORE wrapper",
    behaviour: () => ({ frameworkErrors: undefined }),
  },
  'errors.body-limit-plain-text': {
    breaks: ['ERR-001'],
    description: 'a body over the size limit is answered 413 with a text/plain "Payload Too Large", not the CORE wrapper (every other error still is)',
    route: /^[A-Z]+ \/api\/core\//,
    answer(answer) {
      if (answer.status !== 413) return;
      answer.reply.type('text/plain');
      answer.text = 'Payload Too Large';
    },
  },
  'errors.wrong-method-bare-405': {
    breaks: ['ERR-001'],
    description: "a core path asked with GET where its route takes another method is answered 405 with an empty body, not the CORE wrapper (the router's refusal, left in the framework's form); every other error is wrapped",
    // The router's refusal has no route of its own: any GET, rewritten only when nothing matched under /api/core/.
    route: /^GET /,
    answer(answer) {
      if (answer.status !== 404 || !unroutedCore(answer.request)) return;
      answer.status = 405;
      answer.reply.header('allow', 'POST, PATCH');
      answer.text = '';
    },
  },
  'errors.trailing-slash-plain-404': {
    breaks: ['ERR-001'],
    description: "a route's path with a trailing slash (GET /api/core/whoami/) is answered by the router's own 404 page in plain text, not the CORE wrapper (other unknown paths are answered in the wrapper)",
    route: /^GET /,
    answer(answer) {
      if (answer.status !== 404 || !unroutedCore(answer.request) || !/\/(\?|$)/.test(answer.request.url)) return;
      answer.reply.header('content-type', 'text/plain; charset=utf-8');
      answer.text = 'Not Found';
    },
  },
  'errors.405-without-allow': {
    breaks: ['ERR-104'],
    description: "a route's path asked with a method the route does not take is answered 405 in the CORE wrapper (code METHOD_NOT_ALLOWED), without the Allow header RFC 9110 requires",
    // Only the paths of the interface's routes; a path no route has stays 404.
    route: /^(GET|DELETE) /,
    answer(answer) {
      if (answer.status !== 404 || !unroutedCore(answer.request)) return;
      if (!/^\/api\/core\/(whoami|numbers\/search|messages\/send|numbers\/[^/?]+)(\?|$)/.test(answer.request.url)) return;
      answer.status = 405;
      answer.body = { ...answer.body, error: { ...answer.body.error, code: 'METHOD_NOT_ALLOWED', message: 'This method is not allowed here.' } };
    },
  },
  'errors.allow-names-refused-method': {
    breaks: ['ERR-104'],
    description: "the numbers list's path asked with DELETE or POST is answered 405 with Allow: GET, HEAD, POST, the methods of a route table rather than the resource's: POST, which it names, is itself refused 405",
    route: /^(DELETE|POST) /,
    answer(answer) {
      if (answer.status !== 404 || !unroutedCore(answer.request) || !/^\/api\/core\/numbers(\?|$)/.test(answer.request.url)) return;
      answer.status = 405;
      answer.body = { ...answer.body, error: { ...answer.body.error, code: 'METHOD_NOT_ALLOWED', message: 'This method is not allowed here.' } };
      answer.reply.header('allow', 'GET, HEAD, POST');
    },
  },
  'errors.allow-omits-head': {
    breaks: ['ERR-104'],
    description: "whoami's and the numbers list's paths asked with DELETE are answered 405 with Allow: GET, leaving out HEAD, which the same paths answer as GET",
    route: /^DELETE /,
    answer(answer) {
      if (answer.status !== 404 || !unroutedCore(answer.request) || !/^\/api\/core\/(whoami|numbers)(\?|$)/.test(answer.request.url)) return;
      answer.status = 405;
      answer.body = { ...answer.body, error: { ...answer.body.error, code: 'METHOD_NOT_ALLOWED', message: 'This method is not allowed here.' } };
      answer.reply.header('allow', 'GET');
    },
  },
  'errors.accept-partial-wildcard-406': {
    breaks: ['ERR-108'],
    description: 'the numbers list answers 406 (code NOT_ACCEPTABLE, in the CORE wrapper) to a request whose Accept names neither application/json nor */*: application/*, which admits JSON, is refused; application/json and */* are answered',
    route: 'GET /api/core/numbers',
    answer(answer) {
      const accept = String(answer.request.headers.accept ?? '');
      if (answer.status !== 200 || accept === '' || /application\/json|\*\/\*/i.test(accept)) return;
      answer.status = 406;
      const body = coreErrorBody(new CoreError('INVALID_REQUEST', 'Only application/json is served here.'), answer.request.id);
      answer.body = { ...body, error: { ...body.error, code: 'NOT_ACCEPTABLE' } };
    },
  },
  'errors.no-date-on-errors': {
    breaks: ['ERR-107'],
    description: 'a 4xx answer of a core route carries no Date header (its error writer bypasses the one the framework adds); successes and the token endpoint still carry it',
    route: ANY_CORE_ROUTE,
    answer(answer) {
      if (answer.status >= 400 && answer.status < 500) answer.reply.raw.sendDate = false;
    },
  },
  'errors.message-array-for-invalid-recipients': {
    breaks: ['ERR-001'],
    description: 'a send with two or more recipients that are not E.164 is answered 400 whose error.message is an array, one message per bad recipient; with one bad recipient it stays a string',
    route: 'POST /api/core/messages/send',
    answer(answer) {
      const to = objectBodyOf(answer.request)?.to;
      const bad = Array.isArray(to) ? to.filter((r) => typeof r !== 'string' || !/^\+[1-9]\d{1,14}$/.test(r)) : [];
      if (answer.status !== 400 || bad.length < 2) return;
      answer.body = { ...answer.body, error: { ...answer.body.error, message: bad.map((r) => `${JSON.stringify(r)} is not an E.164 number.`) } };
    },
  },
  'errors.nul-text-500': {
    breaks: ['ERR-011'],
    description: 'a send whose text holds a NUL (\\u0000, valid JSON) is answered 500 SERVER_ERROR: the message store refuses the character',
    route: 'POST /api/core/messages/send',
    preHandler(request) {
      const text = objectBodyOf(request)?.text;
      if (typeof text === 'string' && text.includes('\u0000')) throw new CoreError('SERVER_ERROR', 'invalid byte sequence for encoding "UTF8": 0x00');
    },
  },
  'errors.long-key-500': {
    breaks: ['ERR-011'],
    description: 'a send whose Idempotency-Key is longer than 200 characters is answered 500 SERVER_ERROR: the key column holds 200 (a key the reference takes, up to 255, breaks the insert)',
    route: 'POST /api/core/messages/send',
    preHandler(request) {
      const key = request.headers['idempotency-key'];
      if (typeof key === 'string' && key.length > 200) throw new CoreError('SERVER_ERROR', 'value too long for type character varying(200)');
    },
  },
  'errors.zip-read-as-number-500': {
    breaks: ['ERR-011'],
    description: 'a search whose zipCode is not all digits ("2000A", "20001-1234") is answered 500 SERVER_ERROR: the zip is read as a number',
    route: 'POST /api/core/numbers/search',
    preValidation(request) {
      const zip = objectBodyOf(request)?.zipCode;
      if (typeof zip === 'string' && zip !== '' && !/^\d+$/.test(zip)) throw new CoreError('SERVER_ERROR', `invalid literal for int() with base 10: '${zip}'`);
    },
  },
  'errors.head-refused': {
    breaks: ['ERR-105'],
    description: 'HEAD is answered 405 (Allow: GET) on the paths served by GET: only the methods a route names are served',
    route: /^HEAD /,
    answer(answer) {
      answer.status = 405;
      answer.reply.header('allow', 'GET');
      answer.text = '';
    },
  },
  'errors.head-content-length-zero': {
    breaks: ['ERR-105'],
    description: "the answer to HEAD on a GET path says Content-Length: 0, not the length GET's content has (the status and the empty body are right)",
    route: /^HEAD /,
    answer(answer) {
      // The content handed on is empty, so the length counted from it is 0.
      if (answer.status < 300) answer.text = '';
    },
  },
  'errors.head-without-content-type': {
    breaks: ['ERR-105'],
    description: "the answer to HEAD on a GET path carries no Content-Type, where GET's says application/json (status, length and the empty body are right)",
    route: /^HEAD /,
    answer(answer) {
      if (answer.status < 300) answer.reply.removeHeader('content-type');
    },
  },
  'errors.head-served-on-token-path': {
    breaks: ['ERR-105'],
    description: "HEAD on the token endpoint's path is answered 200, where GET there is refused 405 (a HEAD handler registered beside the POST route)",
    route: /^HEAD /,
    answer(answer) {
      if (answer.status !== 405 || !/^\/api\/auth\/token(\?|$)/.test(answer.request.url)) return;
      answer.status = 200;
      answer.body = {};
      answer.reply.removeHeader('allow');
    },
  },
  'errors.head-sends-content': {
    breaks: ['ERR-105'],
    description: "the answer to HEAD on a GET path is followed on the connection by GET's content, which corrupts the next answer there (the head itself is right)",
    route: /^HEAD /,
    answer(answer) {
      if (answer.status >= 300) return;
      const content = JSON.stringify(answer.body);
      // The connection as it is now: the response lets go of it once finished.
      const socket = answer.reply.raw.socket;
      answer.reply.raw.once('finish', () => socket?.write(content));
    },
  },
  'errors.request-id-missing': {
    breaks: ['ERR-001'],
    description: "the router's own refusals are answered in the CORE wrapper without requestId",
    behaviour: () => ({
      frameworkErrors: (error, request, reply) => {
        const core = toCoreError(error, request);
        const { requestId: _dropped, ...body } = coreErrorBody(core, request.id);
        return reply.code(core.status).header('x-request-id', request.id).send(body);
      },
    }),
  },
  'errors.forbidden-as-not-found': {
    breaks: ['ERR-002'],
    description: 'a sendFrom numberId that does not exist is answered 403 with error.code NOT_FOUND',
    route: 'POST /api/core/messages/send',
    // The status stays 403 while the code says NOT_FOUND: the pair section 7.2 rules out.
    answer({ request, status, body }, { stores }) {
      if (status !== 403 || body.error.code !== 'FORBIDDEN' || body.error.details.field !== 'sendFrom') return;
      if (stores.numbers.byId((request.body as SendRequest).sendFrom)) return;
      body.error = { ...body.error, code: 'NOT_FOUND', message: 'No number has this numberId.' };
    },
  },
  'errors.malformed-json-500': {
    breaks: ['ERR-003'],
    description: 'a core request with malformed JSON is answered 500 SERVER_ERROR',
    route: ANY_CORE_ROUTE,
    // A body that is not JSON is taken for the server's own failure.
    answer(answer) {
      if ((answer.error as FastifyError | undefined)?.code !== 'FST_ERR_CTP_INVALID_JSON_BODY') return;
      const error = new CoreError('SERVER_ERROR');
      answer.status = error.status;
      answer.body = coreErrorBody(error, answer.request.id);
    },
  },
  'errors.bad-utf8-500': {
    breaks: ['ERR-003'],
    description: 'a search body whose bytes are not UTF-8 fails 500 SERVER_ERROR (a strict decoder throws before the JSON parser runs); every well-encoded body is handled',
    route: 'POST /api/core/numbers/search',
    rawBody: true,
    preValidation(request) {
      // The body as written was decoded as UTF-8, each byte that is not one read as U+FFFD.
      if (rawBodyOf(request)?.includes('\uFFFD')) throw new CoreError('SERVER_ERROR');
    },
  },
  'errors.trailing-json-ignored': {
    breaks: ['ERR-003'],
    description: 'the send reads its body up to the end of the first JSON value, as a streaming parser does: a valid body followed by more text (a word, a brace, the body again) is taken and queued',
    route: 'POST /api/core/messages/send',
    readBodyAs: firstJsonValue,
  },
  'errors.raw-control-characters-read': {
    breaks: ['ERR-003'],
    description: 'the send reads control characters written raw inside a JSON string (a line feed, a tab) as those characters, as lenient readers do, so such a body is taken and queued instead of refused as malformed',
    route: 'POST /api/core/messages/send',
    readBodyAs: escapeRawControlCharacters,
  },
  'errors.empty-update-body-500': {
    breaks: ['ERR-003'],
    description: 'an update with an empty body labelled JSON is answered 500 SERVER_ERROR (its reader fails on no input) instead of a request defect; the send and the search still answer 400',
    route: 'PATCH /api/core/numbers/:numberId',
    answer(answer) {
      const { headers } = answer.request;
      if (answer.status !== 400 || (headers['content-length'] ?? '0') !== '0' || headers['transfer-encoding'] !== undefined) return;
      answer.status = 500;
      answer.body = coreErrorBody(new CoreError('SERVER_ERROR', 'Unexpected end of JSON input.'), answer.request.id);
    },
  },
  'errors.unlabelled-update-body-500': {
    breaks: ['ERR-010'],
    description: 'an update whose JSON body comes without a Content-Type is answered 500 SERVER_ERROR (its body reader splits a header that is not there); a wrong label, and the send and the search without one, still get the 415',
    route: 'PATCH /api/core/numbers/:numberId',
    answer(answer) {
      if (answer.status !== 415 || answer.request.headers['content-type'] !== undefined) return;
      answer.status = 500;
      answer.body = coreErrorBody(new CoreError('SERVER_ERROR', "Cannot read properties of undefined (reading 'split')."), answer.request.id);
    },
  },
  'errors.escaped-slash-refused': {
    breaks: ['ERR-007'],
    description: "the update's JSON reader knows every escape but \\/ (RFC 8259 section 7 lists it): an override URL written with its slashes escaped is refused as malformed JSON, the same URL written plainly is taken",
    route: 'PATCH /api/core/numbers/:numberId',
    // The reader stops at the escape it does not know: what it is given is cut there, which no JSON reader takes.
    readBodyAs: (written) => (written.includes('\\/') ? written.slice(0, written.indexOf('\\/')) : written),
  },
  'errors.json-number-words-read': {
    breaks: ['ERR-003'],
    description: "the update reads JSON as Python's json module does, NaN, Infinity and -Infinity as numbers, and passes over a member it does not know: a body with such a member is answered as valid",
    route: 'PATCH /api/core/numbers/:numberId',
    // The member is dropped as the reader would read past it (the reference refuses a member it does not know).
    readBodyAs: (written) => written.replace(/"[^"]*"\s*:\s*-?(?:NaN|Infinity)\s*,?/g, ''),
  },
  'errors.json5-read': {
    breaks: ['ERR-003'],
    description: 'the search reads its body as JSON5: comments and member names without quotes are taken, and a member it does not know is passed over, so such a body is answered as valid',
    route: 'POST /api/core/numbers/search',
    readBodyAs: (written) =>
      written
        .replace(/\/\*[^]*?\*\//g, '')
        .replace(/([{,]\s*)([A-Za-z_$][\w$]*)\s*:/g, '$1"$2":')
        .replace(/"note"\s*:\s*"[^"]*"\s*,?/g, ''),
  },
  'errors.unknown-core-path-unwrapped': {
    breaks: ['ERR-001'],
    description: "a path under /api/core/ that names no route is answered with the framework's own 404 body ({message, error, statusCode}), not the CORE wrapper",
    // A request no route matched has no route pattern: any request, rewritten only when none matched under /api/core/.
    route: /^[A-Z]+ /,
    answer(answer) {
      if (answer.status !== 404 || !unroutedCore(answer.request)) return;
      answer.text = JSON.stringify({ message: `Route ${answer.request.method}:${answer.request.url} not found`, error: 'Not Found', statusCode: 404 });
    },
  },
  'errors.unknown-core-path-405': {
    breaks: ['ERR-104'],
    description: "a path under /api/core/ that names no route is answered 405 with Allow: GET, POST (the methods the core router takes somewhere), so the Allow of a GET names GET itself, instead of 404",
    route: /^[A-Z]+ /,
    answer(answer) {
      if (answer.status !== 404 || !unroutedCore(answer.request)) return;
      answer.status = 405;
      answer.reply.header('allow', 'GET, POST');
      answer.body = coreErrorBody(new CoreError('INVALID_REQUEST', 'Method not allowed.'), answer.request.id);
    },
  },
  'errors.query-string-unrouted': {
    breaks: ['ERR-106'],
    description: 'the whoami route is matched on the raw request target, query string included: /api/core/whoami?x=1 is answered 404 NOT_FOUND (without a query it is served)',
    route: /^(GET|HEAD) \/api\/core\/whoami$/,
    onRequest(request) {
      if (request.url.includes('?')) throw new CoreError('NOT_FOUND', `No route matches ${request.url}.`);
    },
  },
  'errors.leading-whitespace-refused': {
    breaks: ['ERR-007'],
    description: "the update takes a body only if it starts with '{': JSON with whitespace before the value (RFC 8259: ws value ws) is refused 400 INVALID_REQUEST",
    route: 'PATCH /api/core/numbers/:numberId',
    rawBody: true,
    preValidation(request) {
      if (/^\s/.test(rawBodyOf(request) ?? '')) throw new CoreError('INVALID_REQUEST', 'The body must be a JSON object.');
    },
  },
  'errors.text-plain-content-type': {
    breaks: ['ERR-004'],
    description: 'the numbers list is answered with Content-Type text/plain (the body is still JSON)',
    route: 'GET /api/core/numbers',
    answer({ status, reply }) {
      if (status === 200) reply.type('text/plain; charset=utf-8');
    },
  },
  'errors.stack-trace-on-mistyped-recipient': {
    breaks: ['ERR-101'],
    description: 'a send whose `to` holds a recipient of another JSON type than string is answered 500 with the stack of the failure in error.message',
    route: 'POST /api/core/messages/send',
    // As an unguarded recipients loop fails (recipient.startsWith is not a function) under a handler that shows the error it caught.
    answer(answer) {
      const to = (answer.request.body as { to?: unknown } | undefined)?.to;
      if (!Array.isArray(to) || to.every((recipient) => typeof recipient === 'string')) return;
      const failure = new TypeError('recipient.startsWith is not a function');
      answer.status = 500;
      answer.body = coreErrorBody(new CoreError('SERVER_ERROR', failure.stack ?? failure.message), answer.request.id);
    },
  },
  'errors.media-type-case-refused': {
    breaks: ['ERR-009'],
    description: 'a JSON body labelled Application/JSON (the media type in other letter cases) is refused 415, on the token endpoint and on every core route',
    route: /^[A-Z]+ \/api\/(?:core\/|auth\/token$)/,
    onRequest(request) {
      if (!inOtherCase(request.headers['content-type'], 'application/json')) return;
      const refusal = 'Content-Type must be application/json.';
      throw request.url.startsWith('/api/core/') ? new CoreError('UNSUPPORTED_MEDIA_TYPE', refusal) : new OAuthError('invalid_request', refusal, 415);
    },
  },
  'errors.form-type-case-refused': {
    breaks: ['ERR-009'],
    description: 'the token endpoint reads form fields only when labelled application/x-www-form-urlencoded in lower case: Application/X-WWW-Form-Urlencoded is refused 400 invalid_request (JSON in any case is read)',
    route: 'POST /api/auth/token',
    onRequest(request) {
      if (inOtherCase(request.headers['content-type'], 'application/x-www-form-urlencoded')) throw new OAuthError('invalid_request', 'Unsupported content type.');
    },
  },
  'errors.charset-value-case-refused': {
    breaks: ['ERR-009'],
    description: 'a send labelled application/json; charset=UTF-8 (the charset in capitals) is refused 400 INVALID_REQUEST; charset=utf-8 is read',
    route: 'POST /api/core/messages/send',
    onRequest(request) {
      if (/charset=UTF-8/.test(request.headers['content-type'] ?? '')) throw new CoreError('INVALID_REQUEST', 'Unsupported charset.');
    },
  },
  'errors.ows-before-semicolon-refused': {
    breaks: ['ERR-009'],
    description: 'a send labelled application/json ; charset=utf-8 (whitespace before the ";", which RFC 9110 allows) is refused 400 INVALID_REQUEST; without the space it is read',
    route: 'POST /api/core/messages/send',
    onRequest(request) {
      if (/json\s+;/i.test(request.headers['content-type'] ?? '')) throw new CoreError('INVALID_REQUEST', 'Unsupported media type parameters.');
    },
  },
  'errors.json-charset-refused': {
    breaks: ['ERR-008'],
    description: 'a JSON body labelled application/json with a charset parameter is refused 415, on the token endpoint and on every core route',
    route: /^[A-Z]+ \/api\/(?:core\/|auth\/token$)/,
    // Before authentication, as a server that checks the Content-Type first would.
    onRequest(request) {
      if (!JSON_WITH_CHARSET.test(request.headers['content-type'] ?? '')) return;
      const refusal = 'Content-Type must be exactly application/json.';
      throw request.url.startsWith('/api/core/') ? new CoreError('UNSUPPORTED_MEDIA_TYPE', refusal) : new OAuthError('invalid_request', refusal, 415);
    },
  },
  'errors.request-id-per-route': {
    breaks: ['ERR-006'],
    description: 'every CORE error of a route carries the same requestId (the route name), in the body and in x-request-id',
    route: ANY_CORE_ROUTE,
    answer({ request, body, reply }) {
      if (typeof body.requestId !== 'string') return;
      body.requestId = `req-${request.routeOptions.url ?? 'core'}`;
      reply.header('x-request-id', body.requestId);
    },
  },
} satisfies Record<string, FaultDefinition>;
