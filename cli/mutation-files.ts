// What `npm run mutation` mutates: the reference server's rule code, and only that. This is the
// one list: every folder and file of reference/ is named here as in or out, with why, and a
// test (test/cli/mutation.test.ts) fails when a file of reference/ is in none of the entries.
//
// A mutant of rule code that the certification suite does not notice is a check the suite is
// missing. A mutant of code no rule of the interface document (or of the standards it cites, or
// of the reference profile) speaks about would only be noise to triage by hand, so that code is
// left out: the plumbing under the rules, the reference's own defences and limits, and what only
// a test of the reference itself (test/reference/) can see.

/** One entry: a folder (ends in '/') or a file of reference/, in or out, and why. */
export interface MutationEntry {
  path: string;
  mutate: boolean;
  why: string;
  /**
   * In a mutated file, names of declarations left unmutated (with every `if` whose test reads
   * them): limits of the reference's own, inside files that are otherwise rule code.
   */
  keep?: readonly string[];
  /**
   * The suites areas (folders of suites/) whose tests a mutant here is certified with first;
   * when they all pass, the whole suite decides (cli/mutation-runner.ts). Only a matter of
   * speed: a wrong or missing list never changes an outcome. None: the whole suite at once.
   */
  suites?: readonly string[];
}

/**
 * The longest matching entry decides, so a file can be taken out of a folder that is in.
 * Order is for the reader: what is in first.
 */
export const MUTATION_ENTRIES: readonly MutationEntry[] = [
  // ---- in: the rules -----------------------------------------------------------------------
  { path: 'reference/auth/', mutate: true, why: 'authentication: the token endpoint\'s parameters and Basic decoding (RFC 6749), bearer tokens (section 5, RFC 6750), client status and capabilities, secrets and tokens', suites: ['token', 'bearer'] },
  { path: 'reference/auth/capabilities.ts', mutate: true, why: 'client capabilities gating each operation (profile client.capabilities)', suites: ['client-context', 'send', 'search'] },
  { path: 'reference/routes/token.ts', mutate: true, why: 'the token endpoint (section 4.1, RFC 6749); the hook that admits a request through the rate limit of reference/auth/tokenGuard.ts (out, below: its admit) is kept', keep: ['admit'], suites: ['token', 'versioning'] },
  { path: 'reference/routes/clientContext.ts', mutate: true, why: 'whoami (section 4.2)', suites: ['client-context'] },
  { path: 'reference/routes/numbers.ts', mutate: true, why: 'the numbers list, search and update (sections 4.3 to 4.5)', suites: ['numbers', 'search', 'update'] },
  { path: 'reference/routes/messages.ts', mutate: true, why: 'the send route (section 4.6); the admission through the send rate limit (reference/send/rateLimit.ts, out, below) is kept', keep: ['refused'], suites: ['send', 'idempotency'] },
  { path: 'reference/routes/core.ts', mutate: true, why: 'everything under /api/core: the CORE wrapper, request ids, JSON bodies (section 7, VER-001)', suites: ['errors', 'versioning'] },
  { path: 'reference/routes/coreErrorHandler.ts', mutate: true, why: 'the CORE error wrapper and 404 (section 7)', suites: ['errors'] },
  { path: 'reference/send/', mutate: true, why: 'the send: its checks in the order of section 4.6, acceptance, the idempotency fingerprint (section 4.6 rule 8), the loopback that makes inbound traffic', suites: ['send', 'idempotency'] },
  { path: 'reference/send/idempotencyKey.ts', mutate: true, why: 'the Idempotency-Key header: required, given once (section 4.6 rule 8)', keep: ['MAX_KEY_LENGTH'], suites: ['send', 'idempotency'] },
  { path: 'reference/errors.ts', mutate: true, why: 'the error catalogue: every CORE code with its status (section 7.2)', suites: ['errors'] },
  { path: 'reference/behaviour.ts', mutate: true, why: 'the decisions the routes read: token path (VER-001), request schemas, bearer hook, the send\'s rules, webhook policy' },
  {
    path: 'reference/spec/requestSchemas.ts',
    mutate: true,
    why: 'the request schemas: required fields, types, strictness, the E.164 pattern (sections 4.4 to 4.6)',
    keep: ['LIMITS'],
    suites: ['send', 'update', 'search'],
  },
  { path: 'reference/store/numbers.ts', mutate: true, why: 'numbers: the list of a client\'s own numbers (NUM-003), ownership, settings as the update stores them (section 4.5)', keep: ['NUMBER_CACHE_LIMIT'], suites: ['numbers', 'update', 'send'] },
  { path: 'reference/store/idempotency.ts', mutate: true, why: 'idempotency records: a key is the client\'s own, replayed or refused (section 4.6 rule 8)', suites: ['idempotency'] },
  { path: 'reference/store/clients.ts', mutate: true, why: 'clients as authentication and whoami see them: credentials, tokens\' lifetimes, webhooks (section 4.2, CTX-003)', keep: ['TOKEN_CACHE_LIMIT'], suites: ['token', 'bearer', 'client-context'] },
  { path: 'reference/store/tokens.ts', mutate: true, why: 'tokens: issue and expiry (section 4.1, AUTH-003)', suites: ['token', 'bearer'] },
  { path: 'reference/delivery/', mutate: true, why: 'the message\'s outcome and its delivery events, inbound arrivals (section 6)', suites: ['webhooks'] },
  { path: 'reference/webhooks/', mutate: true, why: 'webhook routing and dispatch: targets (WH-001 to WH-005), payloads (WH-003), signing and retries (Standard Webhooks)', suites: ['webhooks'] },
  { path: 'reference/upstream/client.ts', mutate: true, why: 'the search\'s call to the inventory provider and its failures as 502 UPSTREAM_ERROR (SEARCH-002); the wait for one of the client\'s share of provider connections (reference/upstream/slots.ts, out) is kept', keep: ['release'], suites: ['search'] },

  // ---- out: not rule code ------------------------------------------------------------------
  { path: 'reference/send/rateLimit.ts', mutate: false, why: 'the send rate limit of each client (profile send.rateLimit): a defence of the reference\'s own (README, Limits and defenses)' },
  { path: 'reference/buckets.ts', mutate: false, why: 'the token buckets of the rate limits (token endpoint, sends): limits of the reference\'s own' },
  { path: 'reference/auth/tokenGuard.ts', mutate: false, why: 'rate limiting of the token endpoint: a defence of the reference\'s own (README, Limits and defenses), lifted in certification runs' },
  { path: 'reference/webhooks/targets.ts', mutate: false, why: 'which webhook hosts the server calls (server-side request forgery): a defence of the reference\'s own, Limits and defenses' },
  { path: 'reference/webhooks/targetRefused.ts', mutate: false, why: 'the refusal of a webhook target, the same defence' },
  { path: 'reference/routes/control.ts', mutate: false, why: 'the test-control plane: the harness\'s way in, not the interface' },
  { path: 'reference/control/', mutate: false, why: 'the test-control plane' },
  { path: 'reference/http/', mutate: false, why: 'connection limits and the answers below the routes (parser refusals, timeouts, shutdown): Limits and defenses' },
  { path: 'reference/db/', mutate: false, why: 'database plumbing: opening, locking, the writer thread, group commit' },
  { path: 'reference/store/', mutate: false, why: 'storage plumbing (commands across the thread, multi-row statements, retries of background writes, message and outbox rows); the stores that hold rules are in, above' },
  { path: 'reference/fixtures/', mutate: false, why: 'loading and writing the fixtures: what the run is given, not how the server answers' },
  { path: 'reference/upstream/', mutate: false, why: 'the simulated inventory provider and its sandbox triggers: a stand-in for a third party, not the service' },
  { path: 'reference/spec/', mutate: false, why: 'ajv set-up (plumbing); the request schemas are in, above' },
  { path: 'reference/cli/', mutate: false, why: 'command-line parsing of the server\'s flags' },
  { path: 'reference/app.ts', mutate: false, why: 'assembly: fastify, database, writer and plugins wired together' },
  { path: 'reference/main.ts', mutate: false, why: 'the entry: it runs the command line' },
  { path: 'reference/serve.ts', mutate: false, why: 'the command line run: it listens and writes the fixtures file' },
  { path: 'reference/extension.ts', mutate: false, why: 'the way in for code from outside (the kill matrix\'s faults): a certification run has no extension, and the behaviour passes unchanged' },
  { path: 'reference/context.ts', mutate: false, why: 'types only' },
  { path: 'reference/options.ts', mutate: false, why: 'operator defaults and the table of open choices (which answer is the profile\'s is the reference\'s own choice; certification runs set the flags that matter)' },
  { path: 'reference/log.ts', mutate: false, why: 'logging and its redaction' },
  { path: 'reference/ids.ts', mutate: false, why: 'id generation plumbing (a pooled random buffer, a time prefix formatted once per millisecond)' },
  { path: 'reference/maintenance.ts', mutate: false, why: 'the sweeper of expired rows: storage upkeep, every lookup already ignores them' },
  { path: 'reference/README.md', mutate: false, why: 'not code' },
];

/** The entry that decides a path of reference/ (the longest match), or undefined when none does. */
export function entryFor(path: string): MutationEntry | undefined {
  let best: MutationEntry | undefined;
  for (const entry of MUTATION_ENTRIES) {
    const matches = entry.path.endsWith('/') ? path.startsWith(entry.path) : path === entry.path;
    if (matches && (best === undefined || entry.path.length > best.path.length)) best = entry;
  }
  return best;
}

/** The code files of reference/ that are mutated, from a list of the repository's files. */
export function mutatedFiles(files: readonly string[]): string[] {
  return files.filter((f) => /^reference\/.*\.ts$/.test(f) && entryFor(f)?.mutate === true).sort();
}
