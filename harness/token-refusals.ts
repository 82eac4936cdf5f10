// The tokens the harness holds for its clients (harness/token-manager.ts) are renewed once when
// a route answers 401 (section 5 rule 5), so a test never fails for a token the server dropped
// early. But a token is good for the lifetime its expires_in reports (TOKEN-011): a server that
// refuses it sooner — after so many uses, after the client obtained others, after a restart of
// its cache — is wrong however well the retry hides it. After each test, every such refusal its
// requests met is reported against TOKEN-011, after the test's own checks (they stand).
//
// The harness itself ends tokens early in one way: through the test-control plane, expiring a
// client's tokens or changing its status (triggers of kind control), from any worker. Those
// actions are written to the run's folder, and a refusal of a token of a client the plane acted
// on after the token was obtained is the harness's doing, not reported.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordError, type Judged, type Judgement } from './judgement.ts';
import type { EarlyRefusal } from './token-manager.ts';

const ACTIONS_FILE = 'control-token-actions.jsonl';

/** What the control plane did to a client's tokens, and when (ms since epoch). */
export interface ControlTokenAction {
  clientId: string;
  action: 'expire tokens' | 'status';
  at: number;
}

/** Note a control-plane action on a client's tokens; one line per action, appended (workers share the file). */
export function recordControlTokenAction(runDir: string, action: ControlTokenAction): void {
  appendFileSync(join(runDir, ACTIONS_FILE), `${JSON.stringify(action)}\n`);
}

/** The control-plane actions on `clientId`'s tokens of the whole run so far. */
export function controlTokenActions(runDir: string, clientId: string): ControlTokenAction[] {
  const file = join(runDir, ACTIONS_FILE);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ControlTokenAction)
    .filter((a) => a.clientId === clientId);
}

/**
 * The refusals the harness did not cause: no control-plane action on the client came between
 * the token's issue (less `slackMs`, for an action whose answer crossed the token request) and
 * its refusal.
 */
export function refusalsNotCaused(refusals: readonly EarlyRefusal[], actions: readonly ControlTokenAction[], slackMs = 1_000): EarlyRefusal[] {
  return refusals.filter((r) => !actions.some((a) => a.at >= r.obtainedAt - slackMs && a.at <= r.refusedAt));
}

/** A test's requests met tokens refused before their lifetime was out: TOKEN-011, judged after the test's own checks. */
export class EarlyTokenRefusals extends Error implements Judged {
  override name = 'EarlyTokenRefusals';
  readonly judgement: Judgement = { kind: 'requirements', ids: ['TOKEN-011'], afterChecks: true };
  constructor(found: ReadonlyArray<{ role: string; clientId: string; refusal: EarlyRefusal }>) {
    super(
      found
        .map(({ role, clientId, refusal: r }) => {
          const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
          return `TOKEN-011: the ${role} client's token (${clientId}), issued with a lifetime of ${s(r.expiresAt - r.obtainedAt)}, was refused 401 ${s(r.refusedAt - r.obtainedAt)} after it was obtained, with ${s(r.expiresAt - r.refusedAt)} of its lifetime left; the harness obtained another and went on (section 5 rule 5), but a token is good for the lifetime its expires_in reports`;
        })
        .join('\n'),
    );
    recordError(this);
  }
}
