import type { Target } from './config.ts';
import { HarnessStop } from './judgement.ts';

/**
 * The target's test-control plane did not do what a trigger asked: a refusal (a wrong
 * hooks.controlToken answers 401), a path it does not serve, a failure, or no answer. The plane
 * is outside the interface, so this is the run's problem, never a failure of the requirement the
 * test checks: the test is a harness error, and the run exits 2 with what to fix.
 */
export class ControlPlaneError extends HarnessStop {
  override name = 'ControlPlaneError';
  // Only the tests that reach a capability through the plane stop; the others still judge the server.
  override readonly stopsRun = false;
  constructor(what: string, answer: string) {
    super(`the test-control plane failed: ${what}\n  answer: ${answer}\n  check:  hooks.controlUrl and hooks.controlToken in the target config, and that the plane offers this request (reference/README.md, The test-control plane)`);
    this.stack = `${this.name}: ${this.message}`;
  }
}

/**
 * Client of the optional test-control plane (reference/README.md describes it so vendors can
 * offer the same hooks): what triggers of kind control call (harness/triggers.ts). It is
 * outside the interface: nothing here is validated against the OpenAPI document.
 */
export class ControlClient {
  /** Whether the harness has made the search's upstream fail or stall (by this plane or a request trigger) and not yet restored it. */
  upstreamFaulted = false;

  /**
   * `touched`: told before the plane is asked to expire a client's tokens or change its status,
   * the two ways the harness itself ends tokens early (harness/token-refusals.ts).
   */
  constructor(
    private readonly target: Target,
    private readonly touched: (clientId: string, action: 'expire tokens' | 'status') => void = () => {},
  ) {}

  /** Make the search's upstream fail with `status`, stall, or behave again. */
  upstream(mode: 'ok' | 'fail' | 'stall', status?: number): Promise<unknown> {
    this.upstreamFaulted = mode !== 'ok';
    return this.post('POST', '/upstream', { mode, ...(status !== undefined && { status }) });
  }

  /** Expire every live token of a client now. */
  expireTokens(clientId: string): Promise<unknown> {
    this.touched(clientId, 'expire tokens');
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

  /** Suspend a client, or make it ACTIVE again (profile client.status). */
  clientStatus(clientId: string, status: 'SUSPENDED' | 'ACTIVE'): Promise<unknown> {
    this.touched(clientId, 'status');
    return this.post('PUT', `/clients/${encodeURIComponent(clientId)}/status`, { status });
  }

  private async post(method: string, path: string, body: unknown): Promise<unknown> {
    const base = this.target.hooks.controlUrl;
    if (!base) throw new ControlPlaneError(`${method} ${path}: the target config names no hooks.controlUrl`, 'none (no request was made)');
    const url = base.replace(/\/+$/, '') + path;
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method,
        headers: {
          'content-type': 'application/json',
          ...(this.target.hooks.controlToken && { authorization: `Bearer ${this.target.hooks.controlToken}` }),
        },
        body: JSON.stringify(body),
      });
      text = await res.text();
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new ControlPlaneError(`${method} ${url} got no answer`, cause?.code ?? cause?.message ?? (e as Error).message);
    }
    if (!res.ok) throw new ControlPlaneError(`${method} ${url} was not done`, `${res.status} ${text.slice(0, 200)}`);
    try {
      return text ? JSON.parse(text) : undefined;
    } catch {
      throw new ControlPlaneError(`${method} ${url} answered ${res.status} with a body that is not JSON`, text.slice(0, 200));
    }
  }
}
