import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open.ts';

// Rows to a statement at most, a power of two: a statement is prepared for each power of two up
// to it (seven), and a batch goes in as few of them as its size has bits (20 rows: 16 + 4).
const MAX_ROWS = 64;

/**
 * One statement for many rows of one shape: `head` followed by `tuple` once per row, joined
 * with commas (an `INSERT ... VALUES (?, ?), (?, ?)` or `... FROM (VALUES ...)`), then `tail`;
 * each row's parameters written by `params`. A statement is prepared once per row count (powers
 * of two only, so a handful stay in memory) and kept. A batch of sends runs a statement or two
 * per table instead of one per row; what costs each row the same, the b-tree work, is unchanged.
 */
export class ManyRows<Row> {
  private readonly statements = new Map<number, Statement<unknown[]>>();

  constructor(
    private readonly db: Db,
    private readonly head: string,
    private readonly tuple: string,
    private readonly params: (row: Row, into: unknown[]) => void,
    private readonly tail = '',
  ) {}

  run(rows: readonly Row[]): void {
    let start = 0;
    while (start < rows.length) {
      let count = MAX_ROWS;
      while (count > rows.length - start) count >>= 1;
      const values: unknown[] = [];
      for (let i = start; i < start + count; i += 1) this.params(rows[i]!, values);
      this.statement(count).run(values);
      start += count;
    }
  }

  private statement(count: number): Statement<unknown[]> {
    let statement = this.statements.get(count);
    if (!statement) {
      statement = this.db.prepare<unknown[]>(`${this.head} ${Array.from({ length: count }, () => this.tuple).join(', ')} ${this.tail}`);
      this.statements.set(count, statement);
    }
    return statement;
  }
}
