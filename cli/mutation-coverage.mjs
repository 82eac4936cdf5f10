// Loaded first into every process and thread of a mutation dry run (NODE_OPTIONS=--import …, by
// cli/mutation-runner.ts): where StrykerJS's instrumented code ran, it has counted the mutants
// it reached in globalThis.__stryker__.mutantCoverage. This writes their ids, one JSON file per
// process and thread, into MUTATION_COVERAGE_DIR, every half second and at exit (the reference's
// writer thread ends without an exit event of its own when it is terminated). Plain JavaScript:
// the reference runs compiled, without tsx. Nothing happens in a process without that variable.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

const dir = process.env.MUTATION_COVERAGE_DIR;
if (dir) {
  let written = 0;
  const write = () => {
    const coverage = globalThis.__stryker__?.mutantCoverage;
    if (!coverage) return;
    const ids = new Set(Object.keys(coverage.static ?? {}));
    for (const perTest of Object.values(coverage.perTest ?? {})) for (const id of Object.keys(perTest)) ids.add(id);
    if (ids.size === written) return;
    written = ids.size;
    writeFileSync(join(dir, `${process.pid}-${threadId}.json`), JSON.stringify([...ids]));
  };
  setInterval(write, 500).unref();
  process.on('exit', write);
}
