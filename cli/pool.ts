/**
 * Run `work` on every item, at most `parallel` at a time, in the order given; `done` sees each
 * result as it finishes (to print a line), and the results come back in finishing order. The
 * kill matrix and the choice matrix each start one reference per item this way.
 */
export async function inTurns<T, R>(items: readonly T[], parallel: number, work: (item: T) => Promise<R>, done: (result: R) => void): Promise<R[]> {
  const results: R[] = [];
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(parallel, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
        const result = await work(item);
        results.push(result);
        done(result);
      }
    }),
  );
  return results;
}
