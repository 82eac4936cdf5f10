import type { Target } from './config.ts';

/**
 * Client of the optional test-control plane (reference/README.md describes it so vendors can
 * offer the same hooks): what triggers of kind control call (harness/triggers.ts). It is
 * outside the interface: nothing here is validated against the OpenAPI document.
 */
export class ControlClient {
  /** Whether the harness has made the search's upstream fail or stall (by this plane or a request trigger) and not yet restored it. */
  upstreamFaulted = false;

  constructor(private readonly target: Target) {}

  /** Make the search's upstream fail with `status`, stall, or behave again. */
  upstream(mode: 'ok' | 'fail' | 'stall', status?: number): Promise<unknown> {
    this.upstreamFaulted = mode !== 'ok';
    return this.post('POST', '/upstream', { mode, ...(status !== undefined && { status }) });
  }

  /** Expire every live token of a client now. */
  expireTokens(clientId: string): Promise<unknown> {
    return this.post('POST', '/tokens/expire', { clientId });
  }

  /** Simulate an inbound message to one of the client's numbers. */
  inbound(message: { numberId: string; from: string; text: string }): Promise<{ messageId: string }> {
    return this.post('POST', '/inbound', message) as Promise<{ messageId: string }>;
  }

  /** Point a client's own delivery and inbound webhooks somewhere (null clears). */
  clientWebhooks(clientId: string, hooks: { delivery?: string | null; inbound?: string | null }): Promise<unknown> {
    return this.post('PUT', `/clients/${encodeURIComponent(clientId)}/webhooks`, hooks);
  }

  private async post(method: string, path: string, body: unknown): Promise<unknown> {
    const base = this.target.hooks.controlUrl;
    if (!base) throw new Error('the target offers no test-control plane (hooks.controlUrl)');
    const res = await fetch(base.replace(/\/+$/, '') + path, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(this.target.hooks.controlToken && { authorization: `Bearer ${this.target.hooks.controlToken}` }),
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`control ${method} ${path} answered ${res.status}: ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : undefined;
  }
}
