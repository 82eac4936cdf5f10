/**
 * At most `perKey` holders at once for each key, the rest waiting in order of arrival: each
 * client's share of the provider's connection pool (upstream/client.ts).
 */
export class Slots {
  private readonly holders = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly perKey: number) {}

  /**
   * Resolves with the function that gives the slot back once one of `key`'s slots is free, or
   * with undefined when none is within `timeoutMs`.
   */
  async acquire(key: string, timeoutMs: number): Promise<(() => void) | undefined> {
    const held = this.holders.get(key) ?? 0;
    if (held < this.perKey) {
      this.holders.set(key, held + 1);
      return this.releaser(key);
    }
    const queue = this.waiting.get(key) ?? [];
    this.waiting.set(key, queue);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve(this.releaser(key));
      };
      const timer = setTimeout(() => {
        queue.splice(queue.indexOf(wake), 1);
        if (queue.length === 0) this.waiting.delete(key);
        resolve(undefined);
      }, timeoutMs);
      queue.push(wake);
    });
  }

  /** Gives the slot back once: to the first waiter of the key, else to the key's count. */
  private releaser(key: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.get(key)?.shift();
      if (this.waiting.get(key)?.length === 0) this.waiting.delete(key);
      if (next) return next();
      const held = (this.holders.get(key) ?? 1) - 1;
      if (held > 0) this.holders.set(key, held);
      else this.holders.delete(key);
    };
  }
}
