import { pino, type Logger, type DestinationStream } from 'pino';

// Everything that could let a reader of the logs act as a client is censored: bearer and Basic
// credentials, client secrets, issued tokens, webhook secrets and the control token, and any
// query string of a request URL.
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'client_secret',
  'clientSecret',
  'access_token',
  'webhookSecret',
  'controlToken',
  'token',
  '*.client_secret',
  '*.clientSecret',
  '*.access_token',
  '*.webhookSecret',
  '*.controlToken',
  '*.token',
];

/**
 * A request URL as the logs keep it: the path, and the query replaced whole. Credentials in the
 * URI are refused (RFC 6749 2.3.1) and bearer tokens belong in a header (RFC 6750 2.3 is not
 * offered), but a client that sends one anyway must not leave it in the log.
 */
export function loggedUrl(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : `${url.slice(0, query)}?[redacted]`;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

// Fastify's own request serializer with the query left out of the URL. Set on the logger, it
// takes the place of fastify's (which fastify gives way to when the logger brings one).
const SERIALIZERS = {
  req: (request: LoggedRequest) => ({
    method: request.method,
    url: loggedUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
};

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: SERIALIZERS },
    // Logs go to stderr so that stdout carries only the one line with the base URL.
    destination ?? pino.destination(2),
  );
}

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;
type ChildOptions = Parameters<Logger['child']>[1];
type ChildLogger = ReturnType<Logger['child']>;

/**
 * A request's logger that becomes a real pino child (with the request id bound) only when the
 * request logs something at an enabled level. Fastify makes a child logger for every request,
 * and with redaction configured pino redacts the child's bindings as it makes it: a few percent
 * of a durable send's cost, spent on requests that at the usual levels never log.
 */
export class LazyRequestLogger {
  private made: ChildLogger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.log('error', args);
  }
  warn(...args: unknown[]): void {
    this.log('warn', args);
  }
  info(...args: unknown[]): void {
    this.log('info', args);
  }
  debug(...args: unknown[]): void {
    this.log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.log('trace', args);
  }
  silent(): void {}

  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildOptions): ChildLogger {
    return this.real().child(bindings, options);
  }

  private real(): ChildLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  private log(method: LogMethod, args: unknown[]): void {
    if (!this.isLevelEnabled(method)) return;
    (this.real()[method] as (...a: unknown[]) => void)(...args);
  }
}
