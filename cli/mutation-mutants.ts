// The mutants of `npm run mutation`, named so that a name survives unrelated edits: which exist
// (StrykerJS's own instrumenter over the files of cli/mutation-files.ts), a stable id for each,
// a reproducible sample, chunks of a full run, the triage file of the survivors judged
// equivalent, and the score.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import type { Ignorer, NodePath } from '@stryker-mutator/api/ignore';
import type { Logger } from '@stryker-mutator/api/logging';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import { parse } from 'yaml';
import { entryFor, mutatedFiles } from './mutation-files.ts';

/** A position as StrykerJS gives it: line 0-based, column 0-based. */
export interface Position {
  line: number;
  column: number;
}
export interface Location {
  start: Position;
  end: Position;
}

/** One mutant, as StrykerJS makes it, with the stable id this tool knows it by. */
export interface MutantInfo {
  /** `file mutator original → replacement @ anchor`, and ` #n` for the n-th of identical ones. */
  id: string;
  file: string;
  mutator: string;
  /** The code replaced, whitespace collapsed (long code shortened in its middle). */
  original: string;
  replacement: string;
  /** The source line the mutant starts on, whitespace collapsed: where it is, without a line number. */
  anchor: string;
  /** 1 for the first of mutants whose other parts are all equal (in source order), 2 for the next… */
  occurrence: number;
  /** Where StrykerJS puts it now (changes with any edit above it; never part of the id). */
  location: Location;
}

// ---- names -----------------------------------------------------------------------------------

const MAX_TEXT = 120;

/** Whitespace collapsed; over MAX_TEXT characters, its head and tail around an ellipsis. */
export function shortText(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= MAX_TEXT ? flat : `${flat.slice(0, 70)} … ${flat.slice(-45)}`;
}

/**
 * How ids are compared: whitespace runs as one space (a shortened text can hold two where its
 * head and tail meet, which a triage entry's text, collapsed when read, does not).
 */
export function sameId(id: string): string {
  return id.replace(/\s+/g, ' ');
}

/** The id of a mutant from its parts (the triage file names mutants by the same parts). */
export function mutantId(parts: { file: string; mutator: string; original: string; replacement: string; anchor: string; occurrence?: number }): string {
  const n = parts.occurrence ?? 1;
  return `${parts.file} ${parts.mutator} ${parts.original} → ${parts.replacement} @ ${parts.anchor}${n > 1 ? ` #${n}` : ''}`;
}

function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') starts.push(i + 1);
  return starts;
}

/** Names the mutants StrykerJS made of one file's source. */
export function nameMutants(file: string, source: string, mutants: ReadonlyArray<{ mutatorName: string; replacement: string; location: Location }>): MutantInfo[] {
  const starts = lineStarts(source);
  const offset = (p: Position) => (starts[p.line] ?? source.length) + p.column;
  const lineText = (line: number) => source.slice(starts[line] ?? source.length, (starts[line + 1] ?? source.length + 1) - 1);
  const sorted = [...mutants].sort((a, b) => a.location.start.line - b.location.start.line || a.location.start.column - b.location.start.column || a.location.end.line - b.location.end.line || a.location.end.column - b.location.end.column || a.mutatorName.localeCompare(b.mutatorName) || a.replacement.localeCompare(b.replacement));
  const seen = new Map<string, number>();
  return sorted.map((m) => {
    const parts = {
      file,
      mutator: m.mutatorName,
      original: shortText(source.slice(offset(m.location.start), offset(m.location.end))),
      replacement: shortText(m.replacement),
      anchor: shortText(lineText(m.location.start.line)),
    };
    const base = mutantId(parts);
    const occurrence = (seen.get(base) ?? 0) + 1;
    seen.set(base, occurrence);
    return { ...parts, occurrence, id: mutantId({ ...parts, occurrence }), location: m.location };
  });
}

// ---- which mutants exist -----------------------------------------------------------------------

/** Every code file of reference/, repository-relative (the compiled copy excluded). */
export function referenceFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else found.push(path);
    }
  };
  walk('reference');
  return found.sort();
}

type AnyNode = { type: string; [key: string]: unknown };

function mentions(node: unknown, names: ReadonlySet<string>): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some((n) => mentions(n, names));
  const n = node as AnyNode;
  if (n.type === 'Identifier' && names.has(n.name as string)) return true;
  return Object.entries(n).some(([key, value]) => key !== 'loc' && key !== 'leadingComments' && key !== 'trailingComments' && mentions(value, names));
}

/**
 * Leaves unmutated what an entry of cli/mutation-files.ts keeps (its `keep` names): the
 * declaration of each name, every `if` whose test reads one (the limit's own check), and every
 * expression statement that names one (the statement that wires the limit in, such as a hook).
 */
export class KeptDeclarations implements Ignorer {
  constructor(private readonly root: string) {}

  shouldIgnore(path: NodePath): string | undefined {
    const p = path as unknown as { node: AnyNode; hub?: { file?: { opts?: { filename?: string } } } };
    const filename = p.hub?.file?.opts?.filename;
    if (filename === undefined) return undefined;
    const keep = entryFor((isAbsolute(filename) ? relative(this.root, filename) : filename).split('\\').join('/'))?.keep;
    if (!keep?.length) return undefined;
    const names = new Set(keep);
    const { node } = p;
    if (node.type === 'VariableDeclarator' && names.has((node.id as AnyNode).name as string)) return `kept: ${(node.id as AnyNode).name} is a limit of the reference's own (cli/mutation-files.ts)`;
    if (node.type === 'IfStatement' && mentions(node.test, names)) return 'kept: the check of a limit of the reference\'s own (cli/mutation-files.ts)';
    if (node.type === 'ExpressionStatement' && mentions(node.expression, names)) return 'kept: the statement that wires in a limit of the reference\'s own (cli/mutation-files.ts)';
    return undefined;
  }
}

const quiet = () => {};
const WARNINGS_ONLY: Logger = {
  isTraceEnabled: () => false,
  isDebugEnabled: () => false,
  isInfoEnabled: () => false,
  isWarnEnabled: () => true,
  isErrorEnabled: () => true,
  isFatalEnabled: () => true,
  trace: quiet,
  debug: quiet,
  info: quiet,
  warn: (message: string, ...args: unknown[]) => process.stderr.write(`mutation: ${[message, ...args].join(' ')}\n`),
  error: (message: string, ...args: unknown[]) => process.stderr.write(`mutation: ${[message, ...args].join(' ')}\n`),
  fatal: (message: string, ...args: unknown[]) => process.stderr.write(`mutation: ${[message, ...args].join(' ')}\n`),
};

/**
 * Every mutant of the mutated files, in file and source order: the ones StrykerJS's instrumenter
 * makes with the options `npm run mutation` gives it (all mutators, the kept declarations
 * left alone). Takes a few seconds.
 */
export async function enumerateMutants(root: string): Promise<MutantInfo[]> {
  const files = mutatedFiles(referenceFiles(root));
  const sources = new Map(files.map((f) => [f, readFileSync(join(root, f), 'utf8')]));
  const result = await new Instrumenter(WARNINGS_ONLY).instrument(
    files.map((name) => ({ name, content: sources.get(name)!, mutate: true })),
    { plugins: null, excludedMutations: [], ignorers: [new KeptDeclarations(root)] },
  );
  const byFile = new Map<string, Array<{ mutatorName: string; replacement: string; location: Location }>>();
  for (const m of result.mutants) {
    // an ignored mutant (a kept declaration) is never placed, so never run
    if (m.status === 'Ignored') continue;
    const list = byFile.get(m.fileName) ?? [];
    list.push({ mutatorName: m.mutatorName, replacement: m.replacement, location: m.location });
    byFile.set(m.fileName, list);
  }
  return files.flatMap((f) => nameMutants(f, sources.get(f)!, byFile.get(f) ?? []));
}

// ---- choosing ----------------------------------------------------------------------------------

function rank(seed: string, id: string): string {
  return createHash('sha256').update(`${seed}\n${id}`).digest('hex');
}

/**
 * N mutants drawn by seed: each mutant's rank is a hash of the seed and its id, and the N lowest
 * ranks are drawn. The same N, seed and mutants draw the same sample; a mutant added or removed
 * elsewhere changes at most one of the N.
 */
export function sampleMutants<T extends { id: string }>(mutants: readonly T[], n: number, seed: string): T[] {
  const chosen = new Set(
    [...mutants]
      .map((m) => ({ m, r: rank(seed, m.id) }))
      .sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : 0))
      .slice(0, n)
      .map(({ m }) => m.id),
  );
  return mutants.filter((m) => chosen.has(m.id));
}

/** Chunk `index` (1-based) of `count`: consecutive runs of the list in file and source order, sizes within one. */
export function chunkOf<T>(mutants: readonly T[], index: number, count: number): T[] {
  const from = Math.floor(((index - 1) * mutants.length) / count);
  const to = Math.floor((index * mutants.length) / count);
  return mutants.slice(from, to);
}

/** `I/N` with 1 ≤ I ≤ N. */
export function parseChunk(text: string): { index: number; count: number } | string {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m) return `--chunk takes I/N, for example 3/8 (got ${text})`;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) return `--chunk ${text}: I must be between 1 and N`;
  return { index, count };
}

/** The `mutate` pattern that makes StrykerJS instrument this mutant (its range; lines 1-based there). */
export function mutateRange(m: { file: string; location: Location }): string {
  const { start, end } = m.location;
  return `${m.file}:${start.line + 1}:${start.column}-${end.line + 1}:${end.column}`;
}

/** Whether a mutant StrykerJS hands over is this one: same file, mutator, replacement and place. */
export function sameMutant(a: { file: string; mutator: string; location: Location; replacement: string }, b: { file: string; mutator: string; location: Location; replacement: string }): boolean {
  return a.file === b.file && a.mutator === b.mutator && shortText(a.replacement) === shortText(b.replacement) &&
    a.location.start.line === b.location.start.line && a.location.start.column === b.location.start.column &&
    a.location.end.line === b.location.end.line && a.location.end.column === b.location.end.column;
}

// ---- the triage file ---------------------------------------------------------------------------

export const TRIAGE_FILE = 'mutation/triage.yaml';

/** A surviving mutant judged equivalent, or outside what the document requires, and why. */
export interface TriageEntry {
  id: string;
  file: string;
  mutator: string;
  original: string;
  replacement: string;
  anchor: string;
  occurrence: number;
  reason: string;
}

export class TriageError extends Error {}

const ENTRY_KEYS = ['file', 'mutator', 'original', 'replacement', 'anchor', 'occurrence', 'reason'];

/** Reads the triage file's text; every problem at once, each naming its entry. */
export function parseTriage(text: string, name = TRIAGE_FILE): TriageEntry[] {
  let document: unknown;
  try {
    document = parse(text);
  } catch (e) {
    throw new TriageError(`${name}: not YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const list = (document as { equivalent?: unknown } | null)?.equivalent;
  if (document === null || typeof document !== 'object' || Array.isArray(document) || !Array.isArray(list)) {
    throw new TriageError(`${name}: expected a mapping with a list under \`equivalent:\` (each entry: file, mutator, original, replacement, anchor, reason)`);
  }
  const unknownTop = Object.keys(document).filter((k) => k !== 'equivalent');
  const problems: string[] = unknownTop.map((k) => `unknown key \`${k}\` (only \`equivalent:\`)`);
  const entries: TriageEntry[] = [];
  const ids = new Map<string, number>();
  list.forEach((raw: unknown, i) => {
    const where = `equivalent[${i}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      problems.push(`${where}: expected a mapping`);
      return;
    }
    const e = raw as Record<string, unknown>;
    const own: string[] = [];
    for (const key of Object.keys(e)) if (!ENTRY_KEYS.includes(key)) own.push(`unknown key \`${key}\``);
    for (const key of ['file', 'mutator', 'original', 'replacement', 'anchor', 'reason']) {
      if (typeof e[key] !== 'string' || (key !== 'replacement' && key !== 'original' && (e[key] as string).trim() === '')) own.push(`\`${key}\` must be a${key === 'replacement' || key === 'original' ? '' : ' non-empty'} string`);
    }
    if (e.occurrence !== undefined && !(Number.isInteger(e.occurrence) && (e.occurrence as number) >= 1)) own.push('`occurrence` must be a whole number from 1 (leave it out for the first)');
    if (typeof e.reason === 'string' && e.reason.includes('\n')) own.push('`reason` must be one line');
    if (own.length > 0) {
      problems.push(...own.map((p) => `${where}: ${p}`));
      return;
    }
    const entry = {
      file: e.file as string,
      mutator: e.mutator as string,
      original: shortText(e.original as string),
      replacement: shortText(e.replacement as string),
      anchor: shortText(e.anchor as string),
      occurrence: (e.occurrence as number | undefined) ?? 1,
      reason: (e.reason as string).trim(),
    };
    const id = mutantId(entry);
    if (ids.has(id)) problems.push(`${where}: the same mutant as equivalent[${ids.get(id)}]`);
    ids.set(id, i);
    entries.push({ id, ...entry });
  });
  if (problems.length > 0) throw new TriageError(`${name}:\n  ${problems.join('\n  ')}`);
  return entries;
}

/** Reads a triage file (an absolute path). */
export function loadTriage(file: string): TriageEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new TriageError(`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parseTriage(text, file);
}

/** Entries that name no mutant of the code as it is now (stale: the code moved on). */
export function staleEntries(entries: readonly TriageEntry[], mutants: readonly MutantInfo[]): TriageEntry[] {
  const ids = new Set(mutants.map((m) => sameId(m.id)));
  return entries.filter((e) => !ids.has(sameId(e.id)));
}

// ---- outcomes and the score ------------------------------------------------------------------

/**
 * What a mutant's certification came to. `killed`: a run ended NOT CONFORMANT. `survived`: the
 * full suite ran CONFORMANT against it. `no coverage`: no run of the unmutated suite ever reached
 * its code, so no run could tell (a survivor, not run). `harness error`: the run ended in a
 * harness error (exit 2): not a kill. `timeout`: it did not end in time: detected, as StrykerJS
 * counts a timeout, and counted with the kills. `does not start`:
 * the mutated reference exited before it served anything, so there was no server to certify:
 * StrykerJS's own runtime error, which its score leaves out, and so does this one.
 */
export type Outcome = 'killed' | 'survived' | 'no coverage' | 'harness error' | 'timeout' | 'does not start';

export interface MutantResult {
  id: string;
  outcome: Outcome;
  /** What decided it: the failing requirements, the harness error, the runs and their times. */
  detail: string;
  seconds: number;
}

export interface Score {
  killed: number;
  /** Mutants that count: every one with a result but those listed as equivalent that survived, and those that do not start. */
  counted: number;
  equivalent: number;
  /** Listed as equivalent, yet killed: the triage entry is wrong (counted as killed). */
  listedButKilled: string[];
  byOutcome: Record<Outcome, number>;
  /** Survivors and the other outcomes that are not kills, not listed as equivalent. */
  missed: MutantResult[];
}

export function scoreOf(results: readonly MutantResult[], triage: readonly TriageEntry[]): Score {
  const listed = new Set(triage.map((e) => sameId(e.id)));
  const byOutcome: Record<Outcome, number> = { killed: 0, survived: 0, 'no coverage': 0, 'harness error': 0, timeout: 0, 'does not start': 0 };
  let killed = 0;
  let equivalent = 0;
  const listedButKilled: string[] = [];
  const missed: MutantResult[] = [];
  for (const r of results) {
    byOutcome[r.outcome]++;
    const isListed = listed.has(sameId(r.id));
    // A run that does not end is detected, as StrykerJS counts it: a certification that never
    // ends gives no certificate, and a CI gate with a time limit fails it.
    if (r.outcome === 'killed' || r.outcome === 'timeout') {
      killed++;
      if (isListed) listedButKilled.push(r.id);
    } else if (isListed && (r.outcome === 'survived' || r.outcome === 'no coverage')) {
      equivalent++;
    } else if (r.outcome !== 'does not start') {
      missed.push(r);
    }
  }
  return { killed, counted: results.length - equivalent - byOutcome['does not start'], equivalent, listedButKilled, byOutcome, missed };
}

/** The one line the command ends with. */
export function scoreLine(score: Score): string {
  const percent = score.counted === 0 ? 100 : (100 * score.killed) / score.counted;
  const shown = Number.isInteger(percent) ? String(percent) : percent.toFixed(1);
  return `mutation score: ${shown}% (${score.killed} killed of ${score.counted}; ${score.equivalent} listed as equivalent)`;
}
