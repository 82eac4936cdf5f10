import { pino, type Logger, type DestinationStream } from 'pino';

// Everything that could let a reader of the logs act as a client is censored: bearer and Basic
// credentials, client secrets, issued tokens, webhook secrets and the control token.
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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
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
