// When a run is clearly broken, stop it instead of running for minutes: every later test would
// fail the same way and check nothing. Pure: the fixtures feed it how each test ended.

/** This many finished tests in a row failing on the same shared cause stop the run. */
export const STOP_AFTER = 10;

/** How a cause judged against requirements reads: `failed on SEND-008, ERR-004`. */
const FAILED_ON = 'failed on ';

/**
 * The cause a failed test shares with others, or null when it failed on its own clause (a
 * requirement it is tagged with) or passed. A cause is shared when the failure was judged
 * against requirements the test is not tagged with (a token response every test meets), or
 * when no check judged it (the same exception, timeout or refused connection). A failure judged
 * only against requirements that do not fail the run (`failsRun`: standard level in a run that is
 * not strict) is no cause to stop it either: the run would end in a harness error, its document
 * rules unchecked, over what cannot make it not conformant (the callback audit's WH-102 after
 * every test of a server whose timestamps are off).
 */
export function sharedCause(failed: boolean, tags: readonly string[], judgedIds: readonly string[], firstError: string | undefined, failsRun: (id: string) => boolean = () => true): string | null {
  if (!failed) return null;
  if (judgedIds.length > 0 && !judgedIds.some(failsRun)) return null;
  if (judgedIds.length > 0) return judgedIds.some((id) => tags.includes(`@${id}`)) ? null : `${FAILED_ON}${judgedIds.join(', ')}`;
  return normalised(firstError ?? 'failed without an error message');
}

/** The same failure in another test reads the same: no URLs, numbers, ids or quoted values. */
export function normalised(message: string): string {
  const line = message.split('\n').find((l) => l.trim() !== '')?.trim() ?? message;
  return line
    .replace(/\b(GET|POST|PUT|PATCH|DELETE)\s+https?:\/\/\S+/g, '<request>')
    .replace(/https?:\/\/\S+/g, '<url>')
    .replace(/"[^"]*"|'[^']*'/g, '"…"')
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27,}/gi, '<id>')
    .replace(/\d+/g, '#')
    .slice(0, 200);
}

/**
 * Why the run stops. `failedOn`: the requirements the shared cause was judged against (every
 * one of those tests failed on them), so the run stops on the server's failure, not on one the
 * harness cannot place; empty when no check judged the cause.
 */
export interface RunStopCause {
  reason: string;
  failedOn: readonly string[];
}

/** Why the run should stop after these latest causes, or null. */
export function stopReason(recent: ReadonlyArray<string | null>): RunStopCause | null {
  if (recent.length < STOP_AFTER) return null;
  const last = recent.slice(-STOP_AFTER);
  const first = last[0];
  if (first === null || first === undefined || !last.every((c) => c === first)) return null;
  return {
    reason: `${STOP_AFTER} tests in a row failed the same way (${first}); every later test would too, so the run stopped: fix that cause and run again`,
    failedOn: first.startsWith(FAILED_ON) ? first.slice(FAILED_ON.length).split(', ') : [],
  };
}
