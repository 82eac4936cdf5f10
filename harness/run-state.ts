// What the worker processes of one run share: Playwright starts a new worker after every
// failed test, so anything a run must remember across tests — sends made against the cap,
// the recent failures the stop rule looks at, whether the run has stopped — lives in files
// under the run's own folder (RunSettings.runDir), one file per worker slot, so that no two
// processes ever write the same file.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunStopCause } from './stop-rule.ts';

interface SlotState {
  sends: number;
  /** The stop rule's view of the latest finished tests, oldest first. */
  recent: Array<string | null>;
}

export class RunState {
  private readonly dir: string;
  private readonly slotFile: string;
  private readonly stopFile: string;
  private slot: SlotState;
  /** The slot's state as last written: a test that changed nothing writes nothing. */
  private written: string | null = null;

  /** `workers`: the run's; with one there are no other slots to read at each send. */
  constructor(dir: string, parallelIndex: number, private readonly workers = 1) {
    mkdirSync(dir, { recursive: true });
    this.dir = dir;
    this.slotFile = join(dir, `worker-${parallelIndex}.json`);
    this.stopFile = join(dir, 'stopped.txt');
    if (existsSync(this.slotFile)) this.written = readFileSync(this.slotFile, 'utf8');
    this.slot = this.written === null ? { sends: 0, recent: [] } : (JSON.parse(this.written) as SlotState);
  }

  /** Sends this worker slot has made so far in the run. */
  get sends(): number {
    return this.slot.sends;
  }

  /**
   * Count a send; returns the run's sends so far: this slot's, counted in memory and written when
   * a test ends (`flush`), plus the other slots' as they last wrote them (at most one test behind).
   */
  countSend(): number {
    this.slot.sends++;
    return this.workers > 1 ? this.slot.sends + this.otherSlotsSends() : this.slot.sends;
  }

  private otherSlotsSends(): number {
    let sends = 0;
    for (const file of readdirSync(this.dir)) {
      if (!/^worker-\d+\.json$/.test(file) || join(this.dir, file) === this.slotFile) continue;
      try {
        sends += (JSON.parse(readFileSync(join(this.dir, file), 'utf8')) as SlotState).sends;
      } catch {
        // being written (it is replaced whole): counted at the next send
      }
    }
    return sends;
  }

  /** Write this slot's state for the next worker of the slot (a failed test ends its worker). */
  flush(): void {
    this.save();
  }

  /** Remember how a test ended (a shared cause, or null), keeping the latest `keep`. */
  remember(cause: string | null, keep: number): Array<string | null> {
    this.slot.recent = [...this.slot.recent, cause].slice(-keep);
    this.save();
    return this.slot.recent;
  }

  /** Why the run stopped, once it has, and the requirements the stop's cause failed on (harness/stop-rule.ts). */
  stopped(): RunStopCause | null {
    return existsSync(this.stopFile) ? (JSON.parse(readFileSync(this.stopFile, 'utf8')) as RunStopCause) : null;
  }

  /** Stop the run; `failedOn` empty unless the stop rule saw the same requirement failure again and again. */
  stop(reason: string, failedOn: readonly string[] = []): void {
    if (!existsSync(this.stopFile)) writeFileSync(this.stopFile, JSON.stringify({ reason, failedOn } satisfies RunStopCause));
  }

  private save(): void {
    const json = JSON.stringify(this.slot);
    if (json === this.written) return;
    writeFileSync(this.slotFile, json);
    this.written = json;
  }
}
