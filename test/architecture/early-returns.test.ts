import { expect, test } from '@playwright/test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTestBodies } from './test-bodies.ts';

// A test that cannot check its point is never a pass (INTERPRETING.md, verdict rule 6): a
// conformance test whose body can return before its first assertion would pass having checked
// nothing. It calls notTestable(reason) instead, which the report shows as "not testable here".
// Every test of suites/**/*.spec.ts is read with the TypeScript parser (test-bodies.ts).

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SPEC_FILE = /^suites\/.+\.spec\.ts$/;

test('no conformance test can return before its first assertion', () => {
  const bodies = readTestBodies(ROOT, (file) => SPEC_FILE.test(file));
  // the reader found the suites (a parser upgrade that finds nothing would pass vacuously)
  expect(new Set(bodies.map((b) => b.file)).size, 'spec files with tests').toBeGreaterThan(30);
  expect(bodies.length, 'test calls found').toBeGreaterThan(150);
  const early = bodies.flatMap((b) => b.earlyReturns.map((line) => `${b.file}:${line} returns before the first assertion of the test at line ${b.line} ("${b.title}"): call notTestable(reason) instead`));
  expect(early, `${early.length} conformance tests can pass without checking anything`).toEqual([]);
});

test('the reader finds a return before the first assertion, and only there', () => {
  const root = mkdtempSync(join(tmpdir(), 'early-returns-'));
  try {
    mkdirSync(join(root, 'suites'));
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { noEmit: true, allowJs: false }, include: ['suites/**/*.ts'] }));
    writeFileSync(
      join(root, 'suites', 'sample.spec.ts'),
      [
        "declare const test: any, expect: any, notTestable: (r: string) => never, checkProperty: (x: unknown) => Promise<void>;",
        "test('returns first', async ({ x }: any) => {",
        '  if (!x) return;', // line 3: flagged
        '  expect(x).toBe(1);',
        '});',
        "test('asserts first', async ({ x }: any) => {",
        '  expect(x).toBeDefined();',
        '  if (!x.y) return;',
        '});',
        "test('skips instead', { tag: ['@A-001'] }, async ({ x }: any) => {",
        "  if (!x) notTestable('no x');",
        '  if (!x.y) return;',
        '});',
        "test('returns inside a callback only', async ({ xs }: any) => {",
        '  const ys = xs.map((v: number) => { return v + 1; });',
        '  expect(ys).toEqual([]);',
        '});',
        "test('returns its check', async ({ x }: any) => {",
        '  return checkProperty(x);',
        '});',
        'for (const op of [1, 2]) {',
        '  test.fixme(`op ${op} in a loop`, async ({ x }: any) => {',
        '    for (const y of x) {',
        '      if (y === op) return;', // line 24: flagged
        '    }',
        '    expect.soft(x).toBe(op);',
        '  });',
        '}',
        "test.describe('a group', () => {",
        "  test('soft only, after a return', async ({ x }: any) => {",
        '    if (x) { return; }', // line 31: flagged
        '    expect.soft(x).toBe(0);',
        '  });',
        '});',
        '',
      ].join('\n'),
    );
    const bodies = readTestBodies(root, (file) => SPEC_FILE.test(file));
    expect(bodies.map((b) => [b.title, b.line, b.earlyReturns])).toEqual([
      ['returns first', 2, [3]],
      ['asserts first', 6, []],
      ['skips instead', 10, []],
      ['returns inside a callback only', 14, []],
      ['returns its check', 18, []],
      ['op ${op} in a loop', 22, [24]],
      ['soft only, after a return', 30, [31]],
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
