import * as covertableModule from 'covertable';

// covertable is CommonJS: under Node's ESM loader its exports are the default import's members,
// under a CommonJS one (tsx) the namespace's own.
type Covertable = typeof import('covertable');
const ns = covertableModule as unknown as Covertable & { default: Covertable };
const { criteria, make, sorters } = typeof ns.sorters === 'object' ? ns : ns.default;

/**
 * The rows of a decision table over named factors. Two ways, and the table says which it took:
 *
 * - `every`: the full product, every combination of every value. For the factors of one rule,
 *   whose conditions the document distinguishes (rule 2's messageType and media): a rule with
 *   conditions A and B is then seen with A∧¬B, ¬A∧B and ¬A∧¬B, not only with the combination
 *   a server is most likely to get right.
 * - `pairwise`: every pair of values of any two factors in at least one row (a covering array
 *   of strength 2, from covertable), where the full product is too large to send: the whole of
 *   section 4.6's conditions together is 3,456 sends, pairwise about 40. Fixed seed, so a run
 *   sends the same rows as the last one and a failure replays.
 */
export type Factors = Readonly<Record<string, readonly string[]>>;
export type Row<F extends Factors> = { [K in keyof F]: F[K][number] };

export function everyCombination<F extends Factors>(factors: F): Array<Row<F>> {
  let rows: Array<Record<string, string>> = [{}];
  for (const [name, values] of Object.entries(factors)) {
    if (values.length === 0) throw new Error(`everyCombination: factor ${name} has no values`);
    rows = rows.flatMap((row) => values.map((value) => ({ ...row, [name]: value })));
  }
  return rows as Array<Row<F>>;
}

/** A covering array of strength 2 over `factors`; `keep` drops rows no request can have (the table says why). */
export function pairwiseCombinations<F extends Factors>(factors: F, keep: (row: Row<F>) => boolean = () => true): Array<Row<F>> {
  for (const [name, values] of Object.entries(factors)) if (values.length === 0) throw new Error(`pairwiseCombinations: factor ${name} has no values`);
  const rows = make(factors as unknown as Record<string, string[]>, {
    length: 2,
    sorter: sorters.hash,
    criterion: criteria.greedy,
    seed: 'messaging-conformance',
    preFilter: (row: Record<string, string>) => {
      // covertable asks about partial rows too: only a complete row can be judged.
      if (Object.keys(factors).some((k) => !(k in row))) return true;
      return keep(row as Row<F>);
    },
  });
  // Present the factors in the order given, whatever order the library built them in.
  return rows.map((row) => Object.fromEntries(Object.keys(factors).map((k) => [k, (row as Record<string, string>)[k]])) as Row<F>);
}
