// npm run mutation: which mutants exist and what they are called, the sample and the chunks,
// the triage file, the score line, and the file list. Nothing here runs StrykerJS's test runs
// (a mutant's certification takes seconds each; mutation/README.md says how long).
import { expect, test } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../reports/run-fixture.ts';
import { runCli } from './helpers.ts';
import { entryFor, MUTATION_ENTRIES, mutatedFiles } from '../../cli/mutation-files.ts';
import {
  chunkOf,
  enumerateMutants,
  loadTriage,
  mutantId,
  nameMutants,
  parseChunk,
  parseTriage,
  referenceFiles,
  sampleMutants,
  scoreLine,
  scoreOf,
  staleEntries,
  TRIAGE_FILE,
  TriageError,
  type MutantInfo,
} from '../../cli/mutation-mutants.ts';
import { areaGrep, outcomeOf, suiteAreas } from '../../cli/mutation-runner.ts';
import { REPO_ROOT } from '../../harness/settings.ts';

test.describe('the mutants of the reference', () => {
  test.describe.configure({ mode: 'default' });
  let mutants: MutantInfo[];
  test.beforeAll(async () => {
    mutants = await enumerateMutants(REPO_ROOT);
  });

  test('exist only in the files the list mutates, each with its own id', () => {
    expect(mutants.length).toBeGreaterThan(500);
    const files = new Set(mutatedFiles(referenceFiles(REPO_ROOT)));
    expect(mutants.filter((m) => !files.has(m.file))).toEqual([]);
    expect(new Set(mutants.map((m) => m.id)).size).toBe(mutants.length);
    expect(mutants.some((m) => !m.file.startsWith('reference/')), 'only the reference is mutated: never faults/').toBe(false);
  });

  test('a limit the list keeps is not mutated, nor its check; the rest of its file is', () => {
    const key = mutants.filter((m) => m.file === 'reference/send/idempotencyKey.ts');
    expect(key.length).toBeGreaterThan(10);
    expect(key.filter((m) => m.id.includes('MAX_KEY_LENGTH'))).toEqual([]);
    // a statement that wires a kept limit in (the token endpoint's rate-limit hook) is kept too
    const token = mutants.filter((m) => m.file === 'reference/routes/token.ts');
    expect(token.length).toBeGreaterThan(10);
    expect(token.filter((m) => m.id.includes('tokenGuard.admit'))).toEqual([]);
    expect(token.some((m) => m.id.includes('client_id and client_secret are required'))).toBe(true);
    // the send route's admission through the send rate limit, and its refusal, are kept
    expect(mutants.filter((m) => m.file === 'reference/routes/messages.ts' && m.id.includes('refused'))).toEqual([]);
  });

  test('the same N and seed draw the same sample; another seed another one', () => {
    const a = sampleMutants(mutants, 20, '1');
    expect(a).toHaveLength(20);
    expect(sampleMutants(mutants, 20, '1').map((m) => m.id)).toEqual(a.map((m) => m.id));
    expect(sampleMutants([...mutants].reverse(), 20, '1').map((m) => m.id).sort()).toEqual(a.map((m) => m.id).sort());
    expect(sampleMutants(mutants, 20, '2').map((m) => m.id)).not.toEqual(a.map((m) => m.id));
    // a mutant added elsewhere changes at most one of the twenty
    const more = [...mutants, { ...mutants[0]!, id: `${mutants[0]!.id} (another)` }];
    const b = sampleMutants(more, 20, '1').map((m) => m.id);
    expect(a.filter((m) => !b.includes(m.id)).length).toBeLessThanOrEqual(1);
    expect(sampleMutants(mutants, mutants.length + 5, '1')).toHaveLength(mutants.length);
  });

  test('chunks cover every mutant once, in sizes within one of each other', () => {
    const chunks = [1, 2, 3, 4, 5, 6, 7].map((i) => chunkOf(mutants, i, 7));
    expect(chunks.flat().map((m) => m.id)).toEqual(mutants.map((m) => m.id));
    const sizes = chunks.map((c) => c.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    expect(parseChunk('3/8')).toEqual({ index: 3, count: 8 });
    expect(parseChunk('9/8')).toBe('--chunk 9/8: I must be between 1 and N');
    expect(parseChunk('3')).toBe('--chunk takes I/N, for example 3/8 (got 3)');
  });

  test(`the committed triage file loads, and every entry names a mutant the code has (${TRIAGE_FILE})`, () => {
    const entries = loadTriage(join(REPO_ROOT, TRIAGE_FILE));
    expect(staleEntries(entries, mutants).map((e) => e.id)).toEqual([]);
    for (const e of entries) expect(e.reason.length, e.id).toBeGreaterThan(10);
  });
});

test('a mutant keeps its id when code above it moves, and identical ones are told apart by occurrence', () => {
  const source = 'function f(a: number) {\n  if (a > 1) return 1;\n  if (a > 1) return 1;\n}\n';
  const at = (line: number, from: number, to: number) => ({ mutatorName: 'EqualityOperator', replacement: 'a >= 1', location: { start: { line, column: from }, end: { line, column: to } } });
  const before = nameMutants('x.ts', source, [at(1, 6, 11), at(2, 6, 11)]);
  const after = nameMutants('x.ts', `// a comment\n\n${source}`, [at(3, 6, 11), at(4, 6, 11)]);
  expect(after.map((m) => m.id)).toEqual(before.map((m) => m.id));
  expect(before.map((m) => m.id)).toEqual([
    'x.ts EqualityOperator a > 1 → a >= 1 @ if (a > 1) return 1;',
    'x.ts EqualityOperator a > 1 → a >= 1 @ if (a > 1) return 1; #2',
  ]);
  expect(mutantId({ file: 'x.ts', mutator: 'EqualityOperator', original: 'a > 1', replacement: 'a >= 1', anchor: 'if (a > 1) return 1;', occurrence: 2 })).toBe(before[1]!.id);
  // a long line is shortened around an ellipsis; its triage entry, collapsed when read, still names it
  const long = `const x = ${'a'.repeat(60)} + ${'b'.repeat(20)}   ${' c'.repeat(30)};`;
  const [named] = nameMutants('y.ts', `${long}\n`, [{ mutatorName: 'ArithmeticOperator', replacement: 'a - b', location: { start: { line: 0, column: 10 }, end: { line: 0, column: 93 } } }]);
  expect(named!.anchor).toContain(' …  c');
  const [entry] = parseTriage(`equivalent:\n  - ${JSON.stringify({ file: 'y.ts', mutator: 'ArithmeticOperator', original: named!.original, replacement: 'a - b', anchor: named!.anchor, reason: 'cannot be told apart' })}\n`);
  expect(staleEntries([entry!], [named!])).toEqual([]);
});

test('bad triage input is refused with every problem, each naming its entry', () => {
  const refused = (text: string) => {
    try {
      parseTriage(text, 'triage.yaml');
    } catch (e) {
      expect(e).toBeInstanceOf(TriageError);
      return (e as Error).message;
    }
    throw new Error('accepted');
  };
  expect(refused('equivalent: [')).toMatch(/^triage\.yaml: not YAML: /);
  expect(refused('- a\n')).toContain('expected a mapping with a list under `equivalent:`');
  const entry = 'file: a.ts\n    mutator: StringLiteral\n    original: "\'x\'"\n    replacement: \'""\'\n    anchor: "f(\'x\');"';
  const message = refused(`equivalent:\n  - ${entry}\n  - ${entry}\n    reason: the same\n  - file: a.ts\n    reason: "two\\nlines"\n    colour: red\nextra: 1\n`);
  expect(message).toContain('unknown key `extra`');
  expect(message).toContain('equivalent[0]: `reason` must be a non-empty string');
  expect(message).toContain('equivalent[2]: unknown key `colour`');
  expect(message).toContain('equivalent[2]: `mutator` must be a non-empty string');
  expect(message).toContain('equivalent[2]: `reason` must be one line');
  const twice = refused(`equivalent:\n  - ${entry}\n    reason: the same thing\n  - ${entry}\n    reason: the same thing\n`);
  expect(twice).toContain('equivalent[1]: the same mutant as equivalent[0]');
  const ok = parseTriage(`equivalent:\n  - ${entry}\n    occurrence: 2\n    reason: only a log message\n`);
  expect(ok[0]!.id).toBe('a.ts StringLiteral \'x\' → "" @ f(\'x\'); #2');
});

test('npm run mutation refuses bad flags and a bad triage file before it runs anything (exit 2)', async () => {
  const dir = tempDir('mutation-');
  const bad = join(dir, 'triage.yaml');
  writeFileSync(bad, 'equivalent:\n  - file: a.ts\n');
  const run = await runCli('cli/mutation.ts', ['--sample', '0', '--chunk', '9/8', '--triage', bad]);
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr).toContain('mutation: --sample takes a whole number from 1 (got 0)');
  expect(run.stderr).toContain('mutation: --chunk 9/8: I must be between 1 and N');
  expect(run.stderr).toContain('mutation: choose one of --sample, --chunk and --filter');
  expect(run.stderr).toContain(`${bad}:\n  equivalent[0]: \`mutator\` must be a non-empty string`);
  expect(run.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
  expect(run.stdout).toBe('');
});

test('the score counts kills of the mutants that count; listed survivors are equivalent, a listed kill is a kill', () => {
  const triage = parseTriage('equivalent:\n  - { file: a.ts, mutator: M, original: x, replacement: y, anchor: l1, reason: cannot be seen by a client }\n  - { file: a.ts, mutator: M, original: x, replacement: y, anchor: l2, reason: cannot be seen by a client }\n');
  const [first, second] = triage;
  const score = scoreOf([
    { id: first!.id, outcome: 'survived', detail: '', seconds: 1 },
    { id: second!.id, outcome: 'killed', detail: '', seconds: 1 },
    { id: 'k', outcome: 'killed', detail: '', seconds: 1 },
    { id: 's', outcome: 'survived', detail: '', seconds: 1 },
    { id: 'h', outcome: 'harness error', detail: '', seconds: 1 },
    { id: 'n', outcome: 'no coverage', detail: '', seconds: 0 },
  ], triage);
  expect(scoreLine(score)).toBe('mutation score: 40% (2 killed of 5; 1 listed as equivalent)');
  expect(score.listedButKilled).toEqual([second!.id]);
  expect(score.missed.map((r) => r.id)).toEqual(['s', 'h', 'n']);
  // A timeout is detected, as StrykerJS counts it.
  expect(scoreLine(scoreOf([{ id: 'k', outcome: 'killed', detail: '', seconds: 1 }, { id: 'a', outcome: 'timeout', detail: '', seconds: 1 }, { id: 'b', outcome: 'survived', detail: '', seconds: 1 }], []))).toBe('mutation score: 66.7% (2 killed of 3; 0 listed as equivalent)');
  // StrykerJS's statuses: a run error is a harness error, never a kill
  expect(outcomeOf('RuntimeError', 'suites errors: HARNESS ERROR (exit 2)')).toBe('harness error');
  expect(outcomeOf('RuntimeError', 'full suite: HARNESS ERROR (exit 2) in 3.1 s; the bundled reference did not start (certify)')).toBe('does not start');
  // A mutant with which the reference never serves is outside the score, as StrykerJS leaves its runtime errors out.
  expect(scoreLine(scoreOf([{ id: 'k', outcome: 'killed', detail: '', seconds: 1 }, { id: 'd', outcome: 'does not start', detail: '', seconds: 1 }, { id: 's', outcome: 'survived', detail: '', seconds: 1 }], []))).toBe('mutation score: 50% (1 killed of 2; 0 listed as equivalent)');
  expect(outcomeOf('Timeout', undefined)).toBe('timeout');
  expect(outcomeOf('Ignored', undefined)).toBeNull();
});

test('every file of reference/ is in or out by an entry of the list, and only reference/ is listed', () => {
  const files = referenceFiles(REPO_ROOT);
  expect(files.filter((f) => entryFor(f) === undefined)).toEqual([]);
  expect(files.filter((f) => !f.startsWith('reference/'))).toEqual([]);
  for (const e of MUTATION_ENTRIES) expect(files.some((f) => (e.path.endsWith('/') ? f.startsWith(e.path) : f === e.path)), `${e.path} names no file`).toBe(true);
  const areas = suiteAreas(REPO_ROOT);
  for (const e of MUTATION_ENTRIES) for (const a of e.suites ?? []) expect(areas, `${e.path}: suites area ${a}`).toContain(a);
});

test('a suites area\'s grep selects its tests by file, and no other area\'s', () => {
  const grep = new RegExp(areaGrep(['send', 'client-context']));
  expect(grep.test(' send/send.spec.ts 4.6 sending › a send is accepted @SEND-004')).toBe(true);
  expect(grep.test(' client-context/client-context.spec.ts whoami › it answers @CTX-001')).toBe(true);
  expect(grep.test(' webhooks/webhooks.spec.ts 6 › a send is delivered @WH-001')).toBe(false);
  expect(grep.test(' idempotency/idempotency.spec.ts a retried send/send.spec.ts-like title')).toBe(false);
});
