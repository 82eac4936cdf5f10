import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { coreErrorBody, CoreError, type CoreErrorCode } from '../errors.ts';
import { newId } from '../ids.ts';

// Answers the routes never see: what Node's HTTP parser refuses (a malformed request line or
// header, headers over 16 KiB, a request that outlives its timeout), an Expect header the server
// does not meet, a request without Host, and requests that arrive while the server shuts down.
// Each is answered in the body of the contract of its path: the OAuth body on the token endpoint,
// the CORE wrapper with a requestId (also in x-request-id) everywhere else, as every /api/core
// answer must be (ERR-001; profile errors.format). Fastify's own answers to these are a flat
// {error, message, statusCode} body.

/** How long a connection closed after an answer keeps reading what the client still sends. */
const LINGER_MS = 5_000;

/** The status, the CORE code and the message of each refusal made below the routes. */
const PARSER_REFUSALS: Record<number, { code: CoreErrorCode; message: string }> = {
  400: { code: 'INVALID_REQUEST', message: 'The request is not valid HTTP/1.1.' },
  408: { code: 'REQUEST_TIMEOUT', message: 'The request was not received in time.' },
  417: { code: 'EXPECTATION_FAILED', message: 'Only "Expect: 100-continue" is supported.' },
  431: { code: 'HEADERS_TOO_LARGE', message: 'The request headers are larger than 16 KiB.' },
};

/**
 * Whether a request target is the token path as the router reads it: the path before any query
 * or fragment, percent-decoded as the router decodes it (so `/api/auth/%74oken` is the token
 * path; an encoded `/`, `?` or `#` stays encoded and is not).
 */
export function onTokenPath(url: string | undefined, tokenPath: string): boolean {
  if (url === undefined) return false;
  const path = url.split(/[?#]/, 1)[0]!;
  if (path === tokenPath) return true;
  if (!path.includes('%')) return false;
  try {
    return decodeURI(path) === tokenPath;
  } catch {
    return false;
  }
}

/** The body and headers of a refusal on `path`, in the contract of that path. */
function refusal(status: number, code: CoreErrorCode, message: string, path: string | undefined, tokenPath: string): { headers: Record<string, string>; body: string } {
  if (onTokenPath(path, tokenPath)) {
    const error = status === 503 ? 'temporarily_unavailable' : 'invalid_request';
    return { headers: { 'cache-control': 'no-store', pragma: 'no-cache' }, body: JSON.stringify({ error, error_description: message }) };
  }
  const requestId = newId('req');
  return { headers: { 'x-request-id': requestId }, body: JSON.stringify(coreErrorBody(new CoreError(code, message), requestId)) };
}

/**
 * The path of the request the parser refused, from the bytes it was parsing (Node's rawPacket)
 * up to where it stopped (bytesParsed): on a keep-alive connection they may hold the end of
 * earlier requests too, so the last request line before the error is the candidate. It is the
 * refused request's unless that request's head and body (by Content-Length) ended before the
 * error, which then lies in a request whose line is not one. A string is the path; null, a
 * request without a readable request line; undefined, no request line in these bytes at all (the
 * line came in an earlier packet: the request in flight on the connection is the one).
 */
function refusedPath(raw: unknown, parsedBytes: unknown): string | null | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const end = typeof parsedBytes === 'number' && parsedBytes >= 0 && parsedBytes <= raw.length ? parsedBytes : raw.length;
  const text = raw.subarray(0, end).toString('latin1');
  let line: RegExpExecArray | undefined;
  for (const match of text.matchAll(/(?:^|\n)([A-Z]+) (\S+)/g)) line = match;
  if (!line) return undefined;
  const start = line.index + line[0].length;
  const headEnd = text.indexOf('\r\n\r\n', start);
  if (headEnd === -1) return line[2]!;
  const head = text.slice(start, headEnd);
  // A chunked body's own error belongs to its request.
  if (/\r\ntransfer-encoding:/i.test(head)) return line[2]!;
  const bodyEnd = headEnd + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
  return bodyEnd > end ? line[2]! : null;
}

/**
 * Ends a connection after its last answer without a reset: the client may still be sending the
 * body the answer refused (a 413 comes as soon as Content-Length is read), and closing a socket
 * with unread data makes the kernel send a reset, after which the client may never read the
 * answer. So the answer is followed by a FIN, and what still arrives is read and dropped until
 * the client closes its side or LINGER_MS pass.
 */
export function lingeringClose(socket: Socket): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.end();
  socket.resume();
}

/** A raw HTTP/1.1 answer that closes the connection. */
function rawAnswer(status: number, headers: Record<string, string>, body: string): string {
  const all = { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), connection: 'close' };
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${Object.entries(all).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`;
}

/**
 * The request each connection is receiving, from the moment Node hands it over until its answer
 * is sent: a request timeout comes without the bytes of the request line, and its answer still
 * belongs to the contract of its path; and a refusal of a later request on the connection waits
 * for this one's answer.
 */
export type PathsInFlight = WeakMap<Socket, { path: string; request: IncomingMessage; response: ServerResponse }>;

export function trackPathsInFlight(server: Server, paths: PathsInFlight): void {
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    paths.set(request.socket, { path: request.url ?? '', request, response });
    response.once('finish', () => paths.delete(request.socket));
  });
}

/** Fastify's clientErrorHandler: what Node's HTTP parser refused, in the contract of its path. */
export function clientErrorHandler(tokenPath: string, inFlight: PathsInFlight) {
  return (error: ConnectionError, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const { code, message } = PARSER_REFUSALS[status]!;
    const located = refusedPath(error.rawPacket, error.bytesParsed);
    const current = inFlight.get(socket);
    const { headers, body } = refusal(status, code, message, located === undefined ? current?.path : (located ?? undefined), tokenPath);
    const answer = () => {
      if (socket.writable) socket.write(rawAnswer(status, headers, body));
      lingeringClose(socket);
    };
    // A request pipelined behind one still being answered: its refusal comes after that answer,
    // in order (RFC 9112 9.3.2), instead of cutting it off.
    if (located !== undefined && current?.request.complete) current.response.once('close', answer);
    else answer();
  };
}

/** An Expect header other than 100-continue (RFC 9110 10.1.1): 417 in the contract of the path. */
export function expectationFailed(tokenPath: string) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const { code, message } = PARSER_REFUSALS[417]!;
    const { headers, body } = refusal(417, code, message, request.url, tokenPath);
    response
      .writeHead(417, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' })
      .end(body);
  };
}

/**
 * A refusal of a request the routes would otherwise take, answered by the error handler of its
 * route: the CORE wrapper, or the OAuth body on the token path. `details` go into the CORE
 * wrapper's details, `headers` on the answer either way.
 */
export class EdgeRefusal extends Error {
  constructor(
    readonly statusCode: 400 | 415 | 429 | 503,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'EdgeRefusal';
  }
}

/** The CORE code of each status an EdgeRefusal has. */
const EDGE_CODES: Record<EdgeRefusal['statusCode'], CoreErrorCode> = {
  400: 'INVALID_REQUEST',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

/** Whether a request carries a body: a Content-Length above zero, or a Transfer-Encoding. */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && !/^0*$/.test(length));
}

/**
 * Hooks on every route: a request without Host (HTTP/1.1 requires it, RFC 9112 3.2; Node's own
 * check answers 400 with no body and is turned off), requests that arrive while the server shuts
 * down (503, the connection closed after the answer; fastify's own 503 is a flat body and is
 * turned off), and a body in a content coding such as gzip, which the server does not decode
 * (415, RFC 9110 15.5.16). And a connection that must close while the client may still be
 * sending a body the answer refused closes without a reset.
 */
export function registerEdgeHooks(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Both hooks run on every request, so they are synchronous (done-style): a throw is handled
  // as a rejection would be, without a promise and a microtask turn per request.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (closing) {
      reply.header('connection', 'close');
      throw new EdgeRefusal(503, 'The server is shutting down; retry shortly.', {}, { 'retry-after': '1' });
    }
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) throw new EdgeRefusal(400, 'The Host header is required (RFC 9112 3.2).');
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && !/^[\t ]*identity[\t ]*$/i.test(encoding) && hasBody(request)) {
      // RFC 9110 15.5.16 and 12.5.3: 415, with Accept-Encoding naming the codings the server takes.
      throw new EdgeRefusal(415, 'The request body must not be content-encoded (Content-Encoding other than identity); send it unencoded.', { header: 'Content-Encoding', supported: ['identity'] }, { 'accept-encoding': 'identity' });
    }
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    // Fastify answers a body it will not read (413, a parse error) with Connection: close, and
    // Node would then destroy the socket as soon as the answer is written.
    if (!request.raw.complete && String(reply.getHeader('connection')).toLowerCase() === 'close') {
      const socket = request.raw.socket as Socket & { destroySoon?: () => void };
      socket.destroySoon = () => lingeringClose(socket);
    }
    done(null, payload);
  });
}

/** The CORE error of an EdgeRefusal. */
export function edgeCoreError(error: EdgeRefusal): CoreError {
  return new CoreError(EDGE_CODES[error.statusCode], error.message, error.details, error.headers);
}
