import { createServer, Server, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { InterferenceWatch } from './interference.ts';
import { HarnessStop } from './judgement.ts';

/** One callback as it arrived. */
export interface ReceivedCallback {
  channel: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: any;
  receivedAt: number;
  /** The status the receiver answered; 0 when it reset the connection instead (RESET). */
  answered: number;
  /** Set when the sender closed the connection before the receiver answered (a held answer, CallbackAnswer.holdMs): how long after arrival. */
  abandonedAfterMs?: number;
}

/**
 * Whether a callback reports a final outcome: one of the target's final status values
 * (webhooks.finalStatuses) is a string anywhere in its JSON body. The document shows no payload
 * fields (section 6), so where the status sits is not known; a body that is not JSON carries none.
 */
export function carriesFinalStatus(callback: Pick<ReceivedCallback, 'json'>, finalStatuses: readonly string[]): boolean {
  return stringsIn(callback.json).some((value) => finalStatuses.includes(value));
}

/** Every string value anywhere in a parsed JSON value (member names aside), in document order. */
export function stringsIn(json: unknown): string[] {
  if (typeof json === 'string') return [json];
  if (Array.isArray(json)) return json.flatMap(stringsIn);
  if (json !== null && typeof json === 'object') return Object.values(json).flatMap(stringsIn);
  return [];
}

export interface ReceiverOptions {
  host: string;
  port: number;
  /** What the target must call; {port} is replaced by the listening port. */
  publicUrl?: string;
  /** The run's mark, put in every channel's path, and the check for other runs' marks in what arrives (harness/interference.ts). */
  watch?: InterferenceWatch;
}

/**
 * The harness's own receiver could not listen where the config puts it (a port another program
 * holds, an address this machine does not have). No callback can reach the run, so every test
 * that waits for one would fail for the harness's reason: the run stops, exit 2, naming the field.
 */
export class ReceiverListenError extends HarnessStop {
  override name = 'ReceiverListenError';
  constructor(host: string, port: number, cause: NodeJS.ErrnoException) {
    super(`the harness's webhook receiver cannot listen on ${host}:${port} (${cause.code ?? cause.message})\n  check:  webhooks.listenHost and webhooks.listenPort in the target config (a free port; each worker takes the next one after it)`);
    this.stack = `${this.name}: ${this.message}`;
  }
}

/**
 * The target refused the harness's own receiver as a webhook target, as a request defect: a
 * server may rightly refuse loopback, private or plain-http addresses (OWASP API7), and the
 * address is the config's (webhooks.publicUrl), so no callback test can run until it names one
 * the target accepts. The run's problem, never the tests' requirements.
 */
export class ReceiverRefused extends HarnessStop {
  override name = 'ReceiverRefused';
  constructor(field: string, url: string, answer: string) {
    super(`the target refused the harness's webhook receiver ${url} as ${field}: ${answer}\n  check:  webhooks.publicUrl in the target config: an address of the receiver the target accepts as a webhook target (webhooks.listenHost and listenPort say where it listens)`);
    this.stack = `${this.name}: ${this.message}`;
  }
}

/**
 * A real HTTP server that records callbacks. One runs per worker; each test takes its own
 * channel (a unique path), so callbacks for one test can never satisfy another's assertions.
 */
export class WebhookReceiver {
  private readonly channels = new Map<string, WebhookChannel>();
  private readonly extraServers: NetServer[] = [];

  private constructor(
    private readonly server: Server,
    private readonly options: ReceiverOptions,
  ) {}

  static async start(options: ReceiverOptions): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((req, res) => receiver!.handle(req, res));
    try {
      await listen(server, options.host, options.port);
    } catch (error) {
      throw new ReceiverListenError(options.host, options.port, error as NodeJS.ErrnoException);
    }
    receiver = new WebhookReceiver(server, options);
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Base URL the target calls. */
  get baseUrl(): string {
    return this.publicBase(this.port);
  }

  /** A fresh channel with a unique path under this receiver. */
  /** A channel of its own; `query` (without its "?") is part of its URL, which a target must call as given. */
  channel(label = 'hook', { query }: { query?: string } = {}): WebhookChannel {
    const id = this.channelId(label);
    const path = `/hooks/${id}${query === undefined ? '' : `?${query}`}`;
    const channel = new WebhookChannel(id, `${this.baseUrl}${path}`, path);
    this.channels.set(id, channel);
    return channel;
  }

  /**
   * A channel on a port that takes no callback until `open()` is called: every connection to it
   * is accepted and reset at once, so each attempt fails before any HTTP answer, as it would on a
   * closed port, and is still seen (`attempted`), which a refused connection never is. This is
   * how a test makes the receiver unreachable, knows the target tried, then makes it reachable.
   */
  async unreachableChannel(label = 'late'): Promise<WebhookChannel & { attempted(timeoutMs: number): Promise<number>; open(): Promise<void> }> {
    let attempts = 0;
    let wake: (() => void) | undefined;
    const refusing = createNetServer((socket) => {
      attempts += 1;
      socket.on('error', () => {});
      socket.resetAndDestroy();
      wake?.();
    });
    await listen(refusing, this.options.host, 0);
    this.extraServers.push(refusing);
    const port = (refusing.address() as AddressInfo).port;
    const id = this.channelId(label);
    const channel = new WebhookChannel(id, `${this.publicBase(port)}/hooks/${id}`, `/hooks/${id}`);
    this.channels.set(id, channel);
    return Object.assign(channel, {
      attempted: (timeoutMs: number) =>
        new Promise<number>((resolve, reject) => {
          if (attempts > 0) return resolve(attempts);
          const timer = setTimeout(() => reject(new Error(`no connection attempt within ${timeoutMs} ms at ${channel.url}`)), timeoutMs);
          wake = () => {
            clearTimeout(timer);
            wake = undefined;
            resolve(attempts);
          };
        }),
      open: async () => {
        await close(refusing);
        const late = createServer((req, res) => this.handle(req, res));
        await listen(late, this.options.host, port);
        this.extraServers.push(late);
      },
    });
  }

  /**
   * A channel's path segment: the run's mark, the label, and a UUID (unique however many runs
   * share a target), in upper case: a path is case-sensitive (RFC 3986 6.2.2.1 folds only the
   * scheme and host), so a server that calls the URL it was given in another case reaches no
   * channel, where an all-lower-case path would hide it.
   */
  private channelId(label: string): string {
    return `${this.options.watch ? `${this.options.watch.mark()}-` : ''}${label}-${randomUUID().toUpperCase()}`;
  }

  /** Forget every channel: called between tests. */
  async reset(): Promise<void> {
    this.channels.clear();
    await Promise.all(this.extraServers.splice(0).map((s) => close(s)));
  }

  async close(): Promise<void> {
    await this.reset();
    await close(this.server);
  }

  private publicBase(port: number): string {
    return publicBase(this.options.host, port, this.options.publicUrl);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const id = /^\/hooks\/([^/?]+)/.exec(path)?.[1];
      const channel = id ? this.channels.get(id) : undefined;
      const text = Buffer.concat(chunks).toString('utf8');
      this.options.watch?.check(text, `a callback to ${path}`);
      const callback = receivedCallback(req, channel?.id ?? '', text, 404);
      void (channel ? channel.answerFor(callback) : Promise.resolve<CallbackAnswer>(404)).then((given) => {
        if (typeof given === 'object' && 'reset' in given) {
          callback.answered = 0;
          channel?.push(callback);
          req.socket.resetAndDestroy();
          return;
        }
        const { status, headers = {}, holdMs = channel?.holdMs ?? 0 } = typeof given === 'number' ? { status: given } : given;
        callback.answered = status;
        channel?.push(callback);
        const answer = () => {
          if (!res.destroyed) res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(status < 300 ? '{"received":true}' : '{"error":"receiver told to fail"}');
        };
        if (holdMs <= 0) return answer();
        const timer = setTimeout(answer, holdMs);
        // The sender gave up waiting: its connection closed before the answer was written.
        res.once('close', () => {
          if (res.writableEnded) return;
          clearTimeout(timer);
          callback.abandonedAfterMs = Date.now() - callback.receivedAt;
        });
      });
    });
  }
}

/** Which callbacks a channel's scripted answers are for. */
type CallbackMatch = (c: ReceivedCallback) => boolean;

/**
 * What the receiver answers a callback: a status, or a status with headers (Retry-After), given
 * after `holdMs` when set (a receiver that does not answer in time; a sender that gives up first
 * shows in the callback's abandonedAfterMs); or RESET, no answer at all: the callback is taken in
 * and its connection reset, as a receiver that crashes or a proxy that drops it does.
 */
export type CallbackAnswer = number | { status: number; headers?: Record<string, string>; holdMs?: number } | typeof RESET;

/** The answer that resets the callback's connection instead of answering it; the callback's `answered` is then 0. */
export const RESET = { reset: true } as const;

/** Whether the receiver took the callback in: answered 2xx, before its sender gave up on it (only a 2xx is success). */
export const taken = (c: ReceivedCallback): boolean => c.answered >= 200 && c.answered < 300 && c.abandonedAfterMs === undefined;

/** A test's own answers: given each of its own callbacks and those that came before it on the channel, the answer, or undefined for 200. */
export type Answerer = (callback: ReceivedCallback, earlier: readonly ReceivedCallback[]) => CallbackAnswer | undefined;

/** How long a callback waits for its test to say which callbacks are its own (WebhookChannel.scriptOnlyFor). */
const OWN_MATCH_WAIT_MS = 10_000;

export class WebhookChannel {
  private readonly callbacks: ReceivedCallback[] = [];

  /** Every callback that reached the channel so far, in order of arrival (read afresh each time: a recorded channel takes in what its file gained). */
  get received(): readonly ReceivedCallback[] {
    this.refresh();
    return this.callbacks;
  }

  /** Take in callbacks that reached the channel by another way than push (a recorded client webhook's file). */
  protected refresh(): void {}

  private scripted: number[] = [];
  /** Which callbacks take the scripted answers: every one unless scriptOnlyFor narrows it. */
  private match: CallbackMatch | Promise<CallbackMatch> = () => true;
  private answerer: Answerer | undefined;
  private waiters: Array<() => void> = [];
  /** How long the receiver waits before it answers a callback to this channel (holdAnswers). */
  holdMs = 0;

  constructor(
    readonly id: string,
    /** The URL to give the target. */
    readonly url: string,
    /**
     * The path and query a callback to `url` arrives with at the receiver. Not `url`'s own: a
     * webhooks.publicUrl with a path (a proxy or tunnel that routes by it, `https://relay/p{port}`)
     * takes its prefix off before it passes the callback on, as the receiver routes by `/hooks/…`.
     */
    readonly path: string,
  ) {}

  /** Answer the next callbacks with these statuses in turn (then 200): to make the target retry. */
  respondWith(...statuses: number[]): this {
    this.scripted.push(...statuses);
    return this;
  }

  /** Answer each callback `ms` after it arrived (it is recorded at once): a slow receiver. */
  holdAnswers(ms: number): this {
    this.holdMs = ms;
    return this;
  }

  /**
   * Give the scripted answers of respondWith only to the callbacks of the test's own message:
   * returns the function through which the test names them, once its send has said the message's
   * id; every other callback is answered 200. The channel is new, but the number's override it
   * is set as also takes late events of messages sent before it was set (the document lets a
   * server send each event to the target of the moment), and such an event must not take the
   * failing answer the test's own callback needs. A callback that arrives before the test has
   * named its own waits for it (the send may be answered after its first callback), up to
   * OWN_MATCH_WAIT_MS, and is then answered 200.
   */
  scriptOnlyFor(): (own: CallbackMatch) => void {
    let name!: (own: CallbackMatch) => void;
    const named = new Promise<CallbackMatch>((resolve) => (name = resolve));
    this.match = Promise.race([named, new Promise<CallbackMatch>((resolve) => setTimeout(() => resolve(() => false), OWN_MATCH_WAIT_MS).unref())]);
    return (own) => {
      name(own);
      this.match = own;
    };
  }

  /**
   * Answer the test's own callbacks (every one, unless scriptOnlyFor narrows it) as `answerer`
   * says, from what came before: to fail one attempt and answer its retry otherwise (410), or to
   * answer with headers (Retry-After).
   */
  answerWith(answerer: Answerer): this {
    this.answerer = answerer;
    return this;
  }

  /** @internal The answer to a callback: the answerer's or the next scripted status if the callback is the test's own (scriptOnlyFor), else 200. */
  async answerFor(callback: ReceivedCallback): Promise<CallbackAnswer> {
    if (this.scripted.length === 0 && this.answerer === undefined) return 200;
    const own = await this.match;
    if (!own(callback)) return 200;
    if (this.answerer !== undefined) return this.answerer(callback, this.callbacks) ?? 200;
    return this.scripted.shift() ?? 200;
  }

  /** @internal */
  push(callback: ReceivedCallback): void {
    this.callbacks.push(callback);
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Callbacks accepted (2xx, answered before the sender gave up), de-duplicated by webhook-id: a redelivery is not a second event. */
  unique(): ReceivedCallback[] {
    const seen = new Set<string>();
    return this.received.filter((c) => {
      // Not taken: answered with a failure or not at all, or given up by the sender before the answer came.
      if (!taken(c)) return false;
      const key = c.headers['webhook-id'] || c.text;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /**
   * Wait until `count` callbacks satisfy `predicate`. On timeout the error says what was
   * awaited and lists what did arrive, so a failure explains itself.
   */
  async waitFor(
    description: string,
    predicate: (c: ReceivedCallback) => boolean,
    { timeoutMs, count = 1 }: { timeoutMs: number; count?: number },
  ): Promise<ReceivedCallback[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const matching = this.received.filter(predicate);
      if (matching.length >= count) return matching;
      const left = deadline - Date.now();
      if (left <= 0) {
        const seen = this.received.map((c) => `    ${c.method} ${c.path} (answered ${c.answered}) ${c.text.slice(0, 200)}`).join('\n');
        throw new Error(
          `no callback within ${timeoutMs} ms: waited for ${count} × ${description} at ${this.url}\n  received ${this.received.length}:\n${seen || '    (nothing)'}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/** The URL the target calls to reach a receiver listening on `host`:`port` (publicUrl's {port} is that port). */
export function publicBase(host: string, port: number, publicUrl?: string): string {
  const base = publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:{port}`;
  return base.replace('{port}', String(port)).replace(/\/+$/, '');
}

/** A request as a receiver records it: on which channel, how it came, its body, what it was answered. */
export function receivedCallback(req: IncomingMessage, channel: string, text: string, answered: number): ReceivedCallback {
  return {
    channel,
    method: req.method ?? '',
    path: req.url ?? '/',
    headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')])),
    text,
    json: parseJson(text),
    receivedAt: Date.now(),
    answered,
  };
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function listen(server: NetServer, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function close(server: NetServer): Promise<void> {
  if (!server.listening) return Promise.resolve();
  if (server instanceof Server) server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
