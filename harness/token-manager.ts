/** What the token endpoint gave: the token and when it stops being usable (ms since epoch). */
export interface IssuedToken {
  accessToken: string;
  expiresAt: number;
}

/** A held token refused 401 while the lifetime it was issued with had more than the tolerance left. */
export interface EarlyRefusal {
  /** When the token was obtained and when its reported lifetime ends (ms since epoch). */
  obtainedAt: number;
  expiresAt: number;
  refusedAt: number;
}

export interface TokenManagerOptions {
  /** Obtains a fresh token from the token endpoint (section 4.1). */
  obtain: () => Promise<IssuedToken>;
  now?: () => number;
  /** Renew this long before expiry, so a token does not lapse in flight. */
  skewMs?: number;
  /**
   * A 401 to a held token counts as early (refusals) only with more than this left of its
   * lifetime: a server keeps expiry in whole seconds, and the clocks of the two sides differ.
   */
  earlyToleranceMs?: number;
}

/**
 * Holds one client's token and obeys section 5 rule 5 (AUTH-006): on an authentication
 * failure, acquire a new token once and retry once; if it persists, the failure stands.
 * There is never a loop, whatever the server answers.
 */
export class TokenManager {
  private current: (IssuedToken & { obtainedAt: number }) | undefined;
  private pending: Promise<IssuedToken> | undefined;
  private readonly now: () => number;
  private readonly skewMs: number;
  /** How many tokens this manager has obtained: lets tests (and the report) see refreshes. */
  obtained = 0;
  /**
   * Held tokens the server refused 401 before their lifetime was out, oldest first. The retry
   * of section 5 rule 5 hides them from the test that met them; the api fixture reports them
   * against TOKEN-011 after the test (harness/token-refusals.ts).
   */
  readonly refusals: EarlyRefusal[] = [];

  constructor(private readonly options: TokenManagerOptions) {
    this.now = options.now ?? Date.now;
    this.skewMs = options.skewMs ?? 5_000;
  }

  async token(): Promise<string> {
    if (this.current && this.current.expiresAt - this.skewMs > this.now()) return this.current.accessToken;
    return (await this.refresh()).accessToken;
  }

  /** The token held now and when it was obtained (ms since epoch), if one is. */
  held(): { accessToken: string; expiresAt: number; obtainedAt: number } | undefined {
    return this.current && { ...this.current };
  }

  /** Forget the held token: the next request obtains a new one. */
  invalidate(): void {
    this.current = undefined;
  }

  /**
   * Run `attempt` with a token. If it answers 401, obtain one new token and run it once more;
   * the second answer is returned whatever it is.
   */
  async withToken<R extends { status: number }>(attempt: (token: string) => Promise<R>): Promise<R> {
    const token = await this.token();
    const held = this.current?.accessToken === token ? this.current : undefined;
    const first = await attempt(token);
    if (first.status !== 401) return first;
    const now = this.now();
    if (held && now < held.expiresAt - (this.options.earlyToleranceMs ?? Number.POSITIVE_INFINITY)) this.refusals.push({ obtainedAt: held.obtainedAt, expiresAt: held.expiresAt, refusedAt: now });
    this.invalidate();
    return attempt(await this.token());
  }

  private refresh(): Promise<IssuedToken> {
    // Concurrent callers share one token request instead of each obtaining their own.
    this.pending ??= this.options
      .obtain()
      .then((t) => {
        this.obtained++;
        this.current = { ...t, obtainedAt: this.now() };
        return t;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }
}
