// npx tsx cli/mutation-triage-add.ts FILE.tsv [--heading TEXT]
//
// Appends proposed equivalents to mutation/triage.yaml: FILE.tsv holds one mutant per line,
// `<id><TAB><reason>`, the id exactly as `npm run mutation -- --list` prints it after the place.
// Each id is looked up among the mutants the code makes now (its parts come from there, so an
// entry always names a real mutant); an id that names none, or one already listed, is reported
// and left out. Review the reasons before committing: an entry hides a mutant from the score.
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../harness/settings.ts';
import { enumerateMutants, parseTriage, TRIAGE_FILE } from './mutation-mutants.ts';

const { values, positionals } = parseArgs({ options: { heading: { type: 'string' } }, allowPositionals: true });
if (positionals.length !== 1) {
  process.stderr.write('usage: npx tsx cli/mutation-triage-add.ts FILE.tsv [--heading TEXT]\n');
  process.exit(2);
}
const triagePath = join(REPO_ROOT, TRIAGE_FILE);
const listed = new Set(parseTriage(readFileSync(triagePath, 'utf8')).map((e) => e.id));
const mutants = new Map((await enumerateMutants(REPO_ROOT)).map((m) => [m.id, m]));
const entries: Array<Record<string, unknown>> = [];
let problems = 0;
for (const [n, line] of readFileSync(positionals[0]!, 'utf8').split('\n').entries()) {
  if (line.trim() === '') continue;
  const tab = line.indexOf('\t');
  const id = tab < 0 ? line : line.slice(0, tab);
  const reason = tab < 0 ? '' : line.slice(tab + 1).trim();
  const mutant = mutants.get(id);
  const problem = reason === '' ? 'no reason' : !mutant ? 'names no mutant the code makes now' : listed.has(id) ? 'already listed' : null;
  if (problem) {
    problems++;
    process.stderr.write(`line ${n + 1}: ${problem}: ${id}\n`);
    continue;
  }
  listed.add(id);
  entries.push({
    file: mutant!.file,
    mutator: mutant!.mutator,
    original: mutant!.original,
    replacement: mutant!.replacement,
    anchor: mutant!.anchor,
    ...(mutant!.occurrence > 1 && { occurrence: mutant!.occurrence }),
    reason,
  });
}
if (entries.length > 0) {
  const text = stringify(entries, { lineWidth: 0 }).replace(/^/gm, '  ').replace(/\s+$/, '\n');
  appendFileSync(triagePath, `${values.heading ? `  # ---- ${values.heading} ----\n` : ''}${text}`);
}
process.stdout.write(`${entries.length} entries appended to ${TRIAGE_FILE}; ${problems} left out\n`);
