// Every message a run has been told it queued (the messageIds of accepted send answers), across
// its tests and worker processes. A callback naming one of them is the run's own, however late
// it arrives: the outcome of an earlier test's message may come after the next test has pointed
// the number's override elsewhere, and the document lets a server report it to the override the
// number has when the outcome is final. A callback naming none of them is about a message no
// answer reported: a refused send that was queued after all, or one an answer left out.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export class RunMessages {
  private readonly dir: string;
  private readonly own = new Set<string>();
  private readonly file: string;

  constructor(runDir: string, slot: number) {
    this.dir = join(runDir, 'messages');
    mkdirSync(this.dir, { recursive: true });
    this.file = join(this.dir, `worker-${slot}-${process.pid}.txt`);
  }

  /** Remember messageIds an accepted answer reported. */
  add(messageIds: readonly string[]): void {
    const fresh = messageIds.filter((id) => !this.own.has(id));
    if (fresh.length === 0) return;
    for (const id of fresh) this.own.add(id);
    appendFileSync(this.file, `${fresh.join('\n')}\n`);
  }

  /** Every messageId the run's answers reported so far, this process's and the others'. */
  all(): Set<string> {
    const ids = new Set(this.own);
    if (!existsSync(this.dir)) return ids;
    for (const name of readdirSync(this.dir)) {
      if (join(this.dir, name) === this.file) continue;
      for (const id of readFileSync(join(this.dir, name), 'utf8').split('\n')) if (id) ids.add(id);
    }
    return ids;
  }
}
