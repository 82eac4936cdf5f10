// The real side of the stateful tests: the target as the model's commands reach it. Every
// request goes through the validating client (so every answer is checked against the OpenAPI
// document and recorded as evidence), and every callback is taken from the harness's own
// receivers: a channel per number and kind that the model points overrides at, and the run
// receiver's record of the primary client's declared webhooks.
import type { ApiClient, ApiResponse } from '../api-client.ts';
import { tokenRequest, type TokenStyle } from '../basic-auth.ts';
import { itemsAt, type ClientCredentials, type OperationId, type Target } from '../config.ts';
import type { ReceivedCallback, WebhookChannel } from '../webhook-receiver.ts';
import type { Destination, Role } from './state.ts';


/** A callback as the model sees it: where it arrived, and the callback. */
export interface Arrival {
  destination: Destination;
  callback: ReceivedCallback;
}

/** How inbound traffic is brought about for the model (triggers.inbound). */
export type InboundWay =
  /** A send to `phone`, one of the primary client's numbers (`numberId`), arrives there. */
  | { kind: 'loopback'; numberId: string; phone: string }
  /** The control plane delivers `text` to `numberId`. */
  | { kind: 'control'; numberId: string; deliver(text: string): Promise<void> };

export interface WorldOptions {
  api: ApiClient;
  target: Target;
  /** A fresh channel on the worker's receiver. */
  channel(label: string): WebhookChannel;
  /** The primary client's declared webhooks, as the run receiver records them (triggers.clientWebhooks, declared). */
  clientHooks: Partial<Record<'delivery' | 'inbound', WebhookChannel & { sync?(): void }>>;
  /** Credentials of the short-lived client (triggers.expireToken, kind wait), when declared. */
  brief?: { credentials: ClientCredentials; maxWaitSeconds: number };
  inbound?: InboundWay;
  /** A search body the target accepts, and the searches its sandbox answers as an upstream failure (triggers.upstreamFailure, kind request). */
  search?: {
    accepted: Record<string, unknown>;
    /** Other searches a client may make; which fields a search needs is open (4.4), so each may be refused as a request defect. */
    candidates: ReadonlyArray<Record<string, unknown>>;
    failures: ReadonlyArray<{ body?: Record<string, unknown>; headers?: Record<string, string>; providerStatus?: number | string }>;
  };
  /** Tokens obtained before the sequences (a short-lived client's, so its lifetime runs out while they run): each sequence's model starts with them. */
  earlyTokens?: ReadonlyArray<{ role: Role; value: string; requestedAt: number; receivedAt: number; expiresInSeconds: number }>;
  /** The run's mark (harness/interference.ts), for what the model creates. */
  mark(): string;
  /** Recipients the target delivers to, and those whose messages end failed. */
  recipients: { delivered: readonly string[]; failing: readonly string[] };
}

/**
 * What the model's commands act through. Kept small and free of fast-check, so the commands
 * read as the document's operations.
 */
export class World {
  private readonly channels = new Map<string, WebhookChannel>();
  private readonly waiters = new Set<() => void>();
  /** The name of each channel by the URL the target is given: what the model reads an override's value with. */
  readonly channelNames = new Map<string, string>();

  constructor(readonly options: WorldOptions) {}

  get target(): Target {
    return this.options.target;
  }

  /** The client webhooks whose callbacks reach the harness (the primary client's, when it points them at the receiver). */
  visibleClientHooks(): Set<`${Role}:${'delivery' | 'inbound'}`> {
    return new Set((['delivery', 'inbound'] as const).filter((k) => this.options.clientHooks[k] !== undefined).map((k) => `primary:${k}` as const));
  }

  /** The roles whose credentials the run has. */
  roles(): Role[] {
    const roles: Role[] = ['primary'];
    if (this.target.clients.secondary) roles.push('secondary');
    if (this.options.brief) roles.push('brief');
    return roles;
  }

  credentials(role: Role): ClientCredentials {
    if (role === 'brief') return this.options.brief!.credentials;
    const creds = this.target.clients[role];
    if (!creds) throw new Error(`no ${role} client in the target config`);
    return creds;
  }

  /** A token request with the role's credentials, authenticated as `style` says (section 5 rule 1). */
  async requestToken(role: Role, style: TokenStyle): Promise<{ res: ApiResponse; requestedAt: number; receivedAt: number }> {
    const requestedAt = Date.now();
    const res = await this.options.api.call('token', tokenRequest(style, this.credentials(role)));
    return { res, requestedAt, receivedAt: Date.now() };
  }

  /** A core request with `token` as its bearer credential, the body as the exact bytes given. */
  core(operation: Exclude<OperationId, 'token'>, { token, params, body, headers }: { token: string; params?: Record<string, string>; body?: string; headers?: Record<string, string> }): Promise<ApiResponse> {
    return this.options.api.call(operation, {
      as: 'none',
      ...(params && { params }),
      ...(body !== undefined && { body }),
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    });
  }

  /** A client's numbers list with `token` (the items at routes.numbers.itemsPath), or null when it is not 2xx. */
  async list(token: string): Promise<{ res: ApiResponse; items: Array<Record<string, unknown>> | null }> {
    const res = await this.core('numbers', { token });
    if (res.status < 200 || res.status >= 300) return { res, items: null };
    const path = this.target.routes.numbersItemsPath;
    const items = itemsAt(res.body, path);
    return { res, items: Array.isArray(items) ? (items as Array<Record<string, unknown>>) : null };
  }

  /** The URL the model gives the target for channel `name` (a channel of the receiver, made on first use). */
  channelUrl(name: string): string {
    let channel = this.channels.get(name);
    if (!channel) {
      channel = this.options.channel(`model-${name}`);
      this.channels.set(name, channel);
      this.channelNames.set(channel.url, name);
      const push = channel.push.bind(channel);
      channel.push = (c) => {
        push(c);
        for (const wake of [...this.waiters]) wake();
      };
    }
    return channel.url;
  }

  /** Every callback the harness has seen where the model looks: its channels and the primary client's declared webhooks. */
  arrivals(): Arrival[] {
    const out: Arrival[] = [];
    for (const [name, channel] of this.channels) for (const callback of channel.received) out.push({ destination: `ch:${name}`, callback });
    for (const kind of ['delivery', 'inbound'] as const) {
      const hook = this.options.clientHooks[kind];
      if (!hook) continue;
      hook.sync?.();
      for (const callback of hook.received) out.push({ destination: `client:primary:${kind}`, callback });
    }
    return out;
  }

  /** Wait until `done()` holds, looking again on every arrival (and every 50 ms, for the recorded client webhooks); false on timeout. */
  async waitUntil(done: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(left, 50));
        this.waiters.add(wake);
      });
    }
    return true;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}
