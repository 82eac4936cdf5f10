// What each failed check judged, as data the reporter reads. A check that fails records what it
// judged — the requirements its label names (matchers, `expect(x, 'SEND-008: …')`), the
// requirements of a schema violation or a property, or a harness stop (the send guard, a bad
// configuration) — and at the end of the test the failures that ended it are written on the
// attempt as annotations:
//
//   { type: 'failed-on',    description: 'SEND-008' }      one per requirement
//   { type: 'harness-stop', description: 'send cap reached (…)' }
//
// reports/attribution.ts reads those, never the failure messages. A failure that no check
// recorded (a timeout, an exception of the test's own) carries neither: it counts against
// every tag of its test (INTERPRETING.md).
import { FAILED_AFTER_CHECKS, FAILED_ON, HARNESS_STOP } from './annotations.ts';
import { REQUIREMENT_ID } from './catalogue.ts';

export type Judgement =
  /**
   * The check judged these requirements, and they failed. `afterChecks`: the check ran after the
   * test's own checks had all run to their end (the callback audit).
   */
  | { kind: 'requirements'; ids: string[]; afterChecks?: boolean }
  /** The harness stopped the test: it checked nothing. `stopsRun`: every later test would stop too. */
  | { kind: 'harness'; reason: string; stopsRun: boolean };

/** An error that says what it judged: the harness's own failures carry this. */
export interface Judged {
  readonly judgement: Judgement;
}

/**
 * An error of the harness, not of the target: it refuses or stops a run (a send the guard
 * will not make, the send cap, a bad configuration). A test ended by one checked nothing.
 */
export class HarnessStop extends Error implements Judged {
  override name = 'HarnessStop';
  /** Whether every later test would be stopped the same way (a bad config, the send cap). */
  readonly stopsRun: boolean = true;
  /** Recorded when made, so that `judge` sees it whether or not a test's code lets it through. */
  constructor(message: string) {
    super(message);
    recordError(this);
  }
  get judgement(): Judgement {
    return { kind: 'harness', reason: `${this.name}: ${this.message.split('\n')[0]}`, stopsRun: this.stopsRun };
  }
}

export function isJudged(e: unknown): e is Error & Judged {
  return e instanceof Error && typeof (e as Partial<Judged>).judgement === 'object';
}

// One catalogue-shaped ID, or several separated by commas, leading a check's label.
const ID = REQUIREMENT_ID.source.replace(/^\^|\$$/g, '');
const LEADING_IDS = new RegExp(`^(${ID}(?:, ${ID})*)(?=:|\\s|$)`);

/** The requirements a check's label names at its start (`'SEND-001: a missing key'`), or none. */
export function requirementsOfLabel(label: unknown): string[] {
  if (typeof label !== 'string') return [];
  return LEADING_IDS.exec(label.trim())?.[1]?.split(', ') ?? [];
}

/**
 * The checks of the running test. Errors the harness raised, and the labels of assertions,
 * are kept until the test ends; then `judge` sees which of them ended it.
 */
interface Recorded {
  errors: Array<Error & Judged>;
  /** Labels of assertions that judged requirements, longest first when matched. */
  labels: Map<string, string[]>;
}
let recorded: Recorded = { errors: [], labels: new Map() };

/** A new test: forget the previous one's checks. */
export function startRecording(): void {
  recorded = { errors: [], labels: new Map() };
}

/** A judged error was raised (kept whether or not it ends the test; `judge` decides). */
export function recordError(error: Error & Judged): void {
  recorded.errors.push(error);
}

/** An assertion labelled with requirement IDs was made; its failure message starts with the label. */
export function recordLabel(label: string): void {
  const ids = requirementsOfLabel(label);
  if (ids.length > 0) recorded.labels.set(label, ids);
}

/** How Playwright serialises an error's message (name, then message), which is what a test's errors hold. */
const serialised = (e: Error): string => `${e.name ? `${e.name}: ` : ''}${e.message}`;

/**
 * What the errors that ended a test judged, from the checks recorded while it ran, and as the
 * annotations the reporter reads (one per requirement or stop). `errors` are the test's errors
 * as Playwright holds them.
 */
export function judge(errors: ReadonlyArray<{ message?: string }>): { judgements: Judgement[]; annotations: Array<{ type: string; description: string }> } {
  const byMessage = new Map(recorded.errors.map((e) => [serialised(e), e.judgement]));
  const labels = [...recorded.labels].sort(([a], [b]) => b.length - a.length);
  const judgements: Judgement[] = [];
  const annotations = new Map<string, { type: string; description: string }>();
  const add = (type: string, description: string) => annotations.set(`${type}\u0000${description}`, { type, description });
  let unjudged = 0;
  for (const { message } of errors) {
    if (message === undefined) continue;
    const judgement = byMessage.get(message) ?? labelled(message, labels);
    if (!judgement) {
      unjudged++;
      continue;
    }
    judgements.push(judgement);
    if (judgement.kind === 'harness') add(HARNESS_STOP, judgement.reason);
    else for (const id of judgement.ids) add(FAILED_ON, id);
  }
  // Only what was found after the test's own checks failed it: those checks ran to their end.
  if (unjudged === 0 && judgements.length > 0 && judgements.every((j) => j.kind === 'requirements' && j.afterChecks)) add(FAILED_AFTER_CHECKS, 'true');
  return { judgements, annotations: [...annotations.values()] };
}

function labelled(message: string, labels: ReadonlyArray<[string, string[]]>): Judgement | undefined {
  // An assertion's failure reads "Error: <label>" and then, after a line break, what differed.
  const text = message.replace(/^[A-Za-z]*Error: /, '');
  const hit = labels.find(([label]) => text === label || text.startsWith(`${label}\n`));
  return hit && { kind: 'requirements', ids: hit[1] };
}
