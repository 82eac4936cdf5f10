import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/open.ts';

// Rows to a statement at most: a batch of sends is inserted in a few statements, and the
// statements prepared (one per row count up to this) stay few.
const MAX_ROWS = 64;

/**
 * One statement for many rows of one shape: `head` followed by `tuple` once per row, joined
 * with commas (an `INSERT ... VALUES (?, ?), (?, ?)` or `WITH v(...) AS (VALUES ...)`), each
 * row's parameters written by `params`. A statement is prepared once per row count and kept. In
 * a batch of sends every statement runs once instead of once per row; what costs each row the
 * same, the b-tree work, is unchanged.
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
    for (let start = 0; start < rows.length; start += MAX_ROWS) {
      const end = Math.min(rows.length, start + MAX_ROWS);
      const values: unknown[] = [];
      for (let i = start; i < end; i += 1) this.params(rows[i]!, values);
      this.statement(end - start).run(values);
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
