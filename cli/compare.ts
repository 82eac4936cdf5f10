// One HTML table of requirement × implementation from several JSON reports (ours and
// vendors'), e.g. to show a customer where implementations differ.
//
//   npm run compare -- reference.json acme.json --out compare.html
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { renderCompare, type NamedReport } from '../reports/compare-html.ts';
import { InputError } from '../reports/errors.ts';
import { invocation, userDirectory } from '../harness/settings.ts';
import { reportSchemaErrors } from '../reports/schema.ts';
import type { Report } from '../reports/types.ts';
import { runIfEntry, type Command, type ExitCode } from './command.ts';

const USAGE = 'usage: npm run compare -- REPORT.json REPORT.json ... [--out compare.html]';

function load(file: string): Report {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new InputError(`cannot read report ${file}`);
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new InputError(`${file} is not JSON`);
  }
  const invalid = reportSchemaErrors(v);
  if (invalid.length) throw new InputError(`${file} is not a conformance report:\n  ${invalid.join('\n  ')}`);
  return v as Report;
}

/** The `compare` command: its arguments to its exit code (cli/command.ts). */
export function compare(argv: readonly string[]): ExitCode {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { out: { type: 'string' }, help: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length === 0) throw new InputError(`give at least one report\n${USAGE}`);
  const cwd = userDirectory();
  const reports = positionals.map((f) => ({ file: f, report: load(resolve(cwd, f)) }));
  // two reports of the same label (say, before and after a fix) get their file name added
  const named: NamedReport[] = reports.map(({ file, report }) => {
    const same = reports.filter((r) => r.report.target.label === report.target.label).length > 1;
    return { name: same ? `${report.target.label} (${file})` : report.target.label, report };
  });
  // beside certify's reports: reports/out in a clone, ./conformance-report for the installed command
  const out = resolve(cwd, values.out ?? join(invocation().defaultOut, 'compare.html'));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, renderCompare(named));
  process.stdout.write(`wrote ${out} (${named.length} implementations)\n`);
  return 0;
}

export const compareCommand: Command = { name: 'compare', run: compare };

runIfEntry(import.meta, compareCommand, USAGE);
