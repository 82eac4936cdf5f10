// Another client using the target while a run does: a colleague's manual test, or a second run
// against the same sandbox. Its sends and settings changes land beside the run's own, and a
// check that sees one (an override that is not the run's, a callback it never caused) would
// blame the server for it. So everything a run creates where the document lets the client
// choose the value carries the run's mark: externalReferences, the receiver's channel paths (and
// so every webhook override the run sets), the model's markers. A mark names the run and when it
// was made; one of another run made after this run started is live interference, and stops the
// run on the harness's side (exit 2), never as a requirement failure. A mark older than the run
// is what an earlier run left behind (killed before it restored a setting): not interference.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HarnessStop } from './judgement.ts';

/** The error's name, which the reporter looks for in the run's errors (reports/build.ts). */
export const INTERFERENCE = 'InterferenceError';

export class InterferenceError extends HarnessStop {
  override name = INTERFERENCE;
  constructor(evidence: readonly string[]) {
    super(`another client is using this target: ${evidence.length} sign${evidence.length === 1 ? '' : 's'} of another run's work appeared during this one, so what this run saw may be that client's doing\n  evidence: ${evidence.slice(0, 5).join('\n            ')}\n  check:    run alone against a target no one else uses meanwhile (a sandbox of its own, or one run at a time)`);
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** r + 6 hex of the run's folder + t + seconds since the epoch in base 36: `rb41c07tsjmj4hb`. */
const MARK = /\br([0-9a-f]{6})t([0-9a-z]{6,8})(?![0-9a-z])/g;

/** The run's own part of a mark, from its scratch folder (unique per run). */
export function runIdOf(runDir: string): string {
  return createHash('sha256').update(runDir).digest('hex').slice(0, 6);
}

/** A mark of this run, made now. */
export function runMark(runDir: string, now = Date.now()): string {
  return `r${runIdOf(runDir)}t${Math.floor(now / 1000).toString(36)}`;
}

const STARTED_FILE = 'started.json';

/** When the run started, as its global setup wrote it (else now, written for the others). */
export function runStartedAt(runDir: string): number {
  const file = join(runDir, STARTED_FILE);
  if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { at: number }).at;
  const at = Date.now();
  mkdirSync(runDir, { recursive: true });
  try {
    writeFileSync(file, JSON.stringify({ at }), { flag: 'wx' });
  } catch {
    // another process of the run wrote it first: its time is the run's
    return (JSON.parse(readFileSync(file, 'utf8')) as { at: number }).at;
  }
  return at;
}

/**
 * Marks of other runs made after this run started (less `slackMs`, for clocks), found anywhere in
 * `value` (strings, arrays and objects, any depth).
 */
export function liveForeignMarks(value: unknown, runDir: string, startedAt: number, slackMs = 5_000): string[] {
  const ours = runIdOf(runDir);
  const found = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const [mark, id, time] of v.matchAll(MARK)) {
        if (id !== ours && Number.parseInt(time!, 36) * 1000 >= startedAt - slackMs) found.add(mark);
      }
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(value);
  return [...found];
}

const SEEN_FILE = 'interference.jsonl';

/** Note a sign of another run's work (every process of the run appends to one file under its folder). */
export function recordInterference(runDir: string, evidence: string): void {
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, SEEN_FILE), `${JSON.stringify(evidence)}\n`, { flag: 'a' });
}

/** The signs of another run's work seen so far in this run. */
export function interferenceSeen(runDir: string): string[] {
  const file = join(runDir, SEEN_FILE);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as string);
}

/**
 * What a process of the run needs to watch for other runs: its own mark, and a check that notes
 * any live mark of another run in a value (a callback body, a listed setting), saying where.
 */
export interface InterferenceWatch {
  mark(): string;
  check(value: unknown, where: string): void;
}

export function interferenceWatch(runDir: string): InterferenceWatch {
  let startedAt: number | undefined;
  return {
    mark: () => runMark(runDir),
    check(value, where) {
      startedAt ??= runStartedAt(runDir);
      const marks = liveForeignMarks(value, runDir, startedAt);
      if (marks.length > 0) recordInterference(runDir, `${where} carries another run's mark ${marks.join(', ')}: ${JSON.stringify(value).slice(0, 200)}`);
    },
  };
}
