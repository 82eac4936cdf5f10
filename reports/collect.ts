// Turns Playwright's per-attempt results into the report's TestRecord. Only plain data leaves
// here, read at onTestEnd time: attachment files of a merged (blob) run live in a temporary
// folder that is gone by the time a later hook runs.
import { relative } from 'node:path';
import type { TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { FAILED_AFTER_CHECKS, FAILED_ON, HARNESS_STOP, NOT_APPLICABLE, NOT_TESTABLE, RATE_LIMITED, REACHED_BY, RUN_STOPPED, SENDS } from '../harness/annotations.ts';
import { readEvidence } from './evidence.ts';
import { redactText } from './redact.ts';
import type { Attempt, RateLimited, TestOutcome, TestRecord } from './types.ts';

const MAX_ERROR_CHARS = 4000;

// eslint-disable-next-line no-control-regex
export const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

function errorText(e: TestError): string {
  const text = redactText((e.message ?? e.value ?? 'unknown error').replace(ANSI, ''));
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}

export interface CollectedAttempt extends Attempt {
  annotations: { type: string; description?: string }[];
}

export function attemptOf(result: TestResult): CollectedAttempt {
  const { exchanges, omitted, problems } = readEvidence(result.attachments);
  // What the harness's failed checks judged (harness/judgement.ts): data, not read from messages.
  const failedOn = [...new Set(result.annotations.filter((a) => a.type === FAILED_ON && a.description).map((a) => a.description!))];
  const harnessStop = result.annotations.find((a) => a.type === HARNESS_STOP)?.description;
  const failedAfterChecks = result.annotations.some((a) => a.type === FAILED_AFTER_CHECKS);
  const sends = Number(result.annotations.find((a) => a.type === SENDS)?.description ?? 0);
  const rateLimited = rateLimitedOf(result.annotations.find((a) => a.type === RATE_LIMITED)?.description);
  return {
    retry: result.retry,
    status: result.status,
    durationMs: Math.max(0, Math.round(result.duration)),
    errors: [...result.errors.map(errorText), ...problems],
    evidence: exchanges,
    ...(failedOn.length > 0 ? { failedOn } : {}),
    ...(harnessStop !== undefined ? { harnessStop: redactText(harnessStop) } : {}),
    ...(failedAfterChecks && failedOn.length > 0 ? { failedAfterChecks: true } : {}),
    ...(Number.isSafeInteger(sends) && sends > 0 ? { sends } : {}),
    ...(rateLimited !== null ? { rateLimited } : {}),
    ...(omitted > 0 ? { evidenceOmitted: omitted } : {}),
    annotations: result.annotations.map((a) => ({ type: a.type, ...(a.description !== undefined ? { description: a.description } : {}) })),
  };
}

/** The annotation's {retries, waitedMs}, or null when absent or not that shape. */
function rateLimitedOf(description: string | undefined): RateLimited | null {
  if (description === undefined) return null;
  try {
    const { retries, waitedMs } = JSON.parse(description) as Partial<RateLimited>;
    return Number.isSafeInteger(retries) && retries! > 0 && Number.isSafeInteger(waitedMs) && waitedMs! >= 0 ? { retries: retries!, waitedMs: waitedMs! } : null;
  } catch {
    return null;
  }
}

/**
 * The outcome from the attempts' raw statuses. Deliberately ignores test.fail() expectations:
 * a requirement is met only by a test that passed.
 */
export function outcomeOf(attempts: readonly CollectedAttempt[]): { outcome: TestOutcome; reason?: string } {
  const ran = attempts.filter((a) => a.status === 'passed' || a.status === 'failed' || a.status === 'timedOut');
  if (ran.length === 0) {
    const last = attempts.at(-1);
    if (!last || last.status === 'interrupted') return { outcome: 'did-not-run' };
    const stopped = last.annotations.find((a) => a.type === RUN_STOPPED);
    if (stopped) return { outcome: 'did-not-run', reason: stopped.description ?? 'the run had stopped' };
    const nt = last.annotations.find((a) => a.type === NOT_TESTABLE);
    if (nt) return { outcome: 'not-testable', reason: nt.description ?? 'not testable (no reason given)' };
    // the harness's profileOnly() says why in a not-applicable annotation; plain skips in skip/fixme
    const why = last.annotations.find((a) => a.type === NOT_APPLICABLE) ?? [...last.annotations].reverse().find((a) => a.type === 'skip' || a.type === 'fixme');
    return { outcome: 'skipped', reason: why?.description ?? (why ? `test.${why.type}()` : 'skipped') };
  }
  const passed = ran.some((a) => a.status === 'passed');
  const failed = ran.some((a) => a.status !== 'passed');
  if (passed && failed) return { outcome: 'flaky' };
  return { outcome: failed ? 'failed' : 'passed' };
}

export function testRecordOf(test: TestCase, attempts: readonly CollectedAttempt[], rootDir: string): TestRecord {
  const { outcome, reason } = outcomeOf(attempts);
  // titlePath() is ['', project, file, ...describes, title]
  const titlePath = test.titlePath().slice(3);
  // How the test reached the capabilities its requirements need (harness/triggers.ts).
  const reachedBy = [...new Set(attempts.flatMap((a) => a.annotations.filter((x) => x.type === REACHED_BY && x.description).map((x) => x.description!)))];
  return {
    title: test.title,
    titlePath,
    file: relative(rootDir, test.location.file).split('\\').join('/'),
    line: test.location.line,
    project: test.parent.project()?.name ?? '',
    tags: [...new Set(test.tags)],
    outcome,
    ...(reason !== undefined ? { reason } : {}),
    ...(reachedBy.length > 0 ? { reachedBy } : {}),
    attempts: attempts.map(({ annotations: _a, ...a }) => a),
  };
}
