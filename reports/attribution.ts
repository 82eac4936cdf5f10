// Which requirement a failing test failed on. A test may be tagged with several requirements
// and stops at its first failed check, so "the test failed" says little about each tag. Every
// check of the harness leads its failure message with the requirement it checks (the matchers,
// the validating client, checkProperty), so the message names it; this reads that name back.
import { REQUIREMENT_ID } from './catalogue.ts';
import type { TestRecord } from './types.ts';

/**
 * Errors the harness raises to refuse or stop a run, not to report the target: a send the
 * guard would not make (a recipient outside the test pattern, the send cap) or a bad target
 * configuration. A test ended by one of these checked nothing.
 */
const HARNESS_REFUSALS = ['SendGuardError', 'ConfigError'];
const HARNESS_REFUSAL_LINE = new RegExp(`^\\s*(?:${HARNESS_REFUSALS.join('|')}): .*$`, 'm');

// "Error: ", "SchemaViolationError: ", "PropertyFailure: " and the like before the message's own text.
const ERROR_NAME = /^[A-Za-z]*(?:Error|Failure): /;
const PROPERTY_FAILED = /^Property failed: /;
// One or more catalogue-shaped IDs, comma-separated, ending the message's lead.
const ID = REQUIREMENT_ID.source.replace(/^\^|\$$/g, '');
const LEADING_IDS = new RegExp(`^(${ID}(?:, ${ID})*)(?=:|\\s|$)`);

export type FailureCause =
  /** The failure names these requirements (all known to the catalogue). */
  | { kind: 'requirements'; ids: string[] }
  /** The harness stopped the test; the line says why. */
  | { kind: 'harness'; message: string }
  /** The failure names no requirement (a timeout, an unexpected exception): it counts against every tag. */
  | { kind: 'unattributed' };

/** The cause of a failure from its message, given the catalogue's requirement IDs. */
export function causeOfFailure(message: string, knownIds: ReadonlySet<string>): FailureCause {
  const refusal = HARNESS_REFUSAL_LINE.exec(message);
  if (refusal) return { kind: 'harness', message: refusal[0].trim() };
  const firstLine = message.split('\n').find((line) => line.trim() !== '')?.trim() ?? '';
  const ids = LEADING_IDS.exec(firstLine.replace(ERROR_NAME, '').replace(PROPERTY_FAILED, ''))?.[1]?.split(', ');
  if (!ids || !ids.every((id) => knownIds.has(id))) return { kind: 'unattributed' };
  return { kind: 'requirements', ids: [...new Set(ids)] };
}

/** The cause of a failed or flaky test: its last failing attempt's first error. */
export function causeOfTest(test: TestRecord, knownIds: ReadonlySet<string>): FailureCause | null {
  if (test.outcome !== 'failed' && test.outcome !== 'flaky') return null;
  const failing = [...test.attempts].reverse().find((a) => a.status !== 'passed' && a.errors.length > 0);
  return failing ? causeOfFailure(failing.errors[0]!, knownIds) : { kind: 'unattributed' };
}

/**
 * How one test reads for one requirement. A failure named after other requirements means the
 * test stopped before it checked this one (or a retry that passed checked it); a failure named
 * after this one, or after none, counts against it; a harness refusal checked nothing.
 */
export function testFor(requirementId: string, test: TestRecord, cause: FailureCause | null): TestRecord {
  if (!cause) return test;
  if (cause.kind === 'harness') return { ...test, outcome: 'harness-error', reason: cause.message };
  if (cause.kind === 'unattributed') return test;
  const named = { ...test, failedOn: cause.ids };
  if (cause.ids.includes(requirementId)) return named;
  // A flaky test passed on retry: that attempt ran every check, this one's included.
  return test.outcome === 'flaky' ? { ...named, outcome: 'passed' } : { ...named, outcome: 'stopped' };
}
