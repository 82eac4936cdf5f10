import { test, expect } from '@playwright/test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalogue, type Requirement } from '../../harness/catalogue.ts';
import { suitesCoverage } from './coverage.ts';

const SUITES_DIR = fileURLToPath(new URL('../../suites/', import.meta.url));

function requirement(id: string, check: Requirement['check']): Requirement {
  return { id, check, area: 'a', level: 'document', source: '1', statement: 's' };
}

test.describe('the coverage logic', () => {
  let dir = '';
  test.beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'coverage-'));
  });
  test.afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test('lists checkable IDs without a tag and tags without an ID', () => {
    mkdirSync(join(dir, 'area'));
    writeFileSync(join(dir, 'area', 'a.spec.ts'), "test('x', { tag: ['@AAA-001', '@AAA-999'] }, () => {});\n");
    writeFileSync(join(dir, 'area', 'helper.ts'), "export const tags = ['@AAA-002'];\n");
    writeFileSync(join(dir, 'README.md'), 'Tag tests like `@AAA-003`.\n');
    writeFileSync(join(dir, 'area', 'mail.spec.ts'), "// contact ops@AAA-003 and see docs.@AAA-003\n");
    const catalogue = [requirement('AAA-001', 'black-box'), requirement('AAA-002', 'fixture'), requirement('AAA-003', 'black-box'), requirement('AAA-004', 'client-side'), requirement('AAA-005', 'not-checkable')];
    const { specFiles, coverage } = suitesCoverage(dir, catalogue);
    expect(specFiles.map((f) => f.slice(dir.length + 1))).toEqual(['area/a.spec.ts', 'area/mail.spec.ts']);
    // AAA-003 is only in Markdown and in text that is not a tag; AAA-004/005 need no test.
    expect(coverage.missing).toEqual(['AAA-003']);
    expect(coverage.unknown).toEqual([{ id: 'AAA-999', files: ['area/a.spec.ts'] }]);
  });

  test('a withdrawn entry needs no test', () => {
    writeFileSync(join(dir, 'a.spec.ts'), '');
    const withdrawn = { ...requirement('AAA-001', 'black-box'), withdrawn: true } as Requirement;
    expect(suitesCoverage(dir, [withdrawn]).coverage.missing).toEqual([]);
  });

  test('a folder that does not exist has no spec files', () => {
    expect(suitesCoverage(join(dir, 'absent'), [requirement('AAA-001', 'black-box')]).specFiles).toEqual([]);
  });
});

// The live check. It fails until every checkable requirement has a tagged test; while suites/
// holds no spec file at all it is skipped, so the project is usable before the suites exist.
test('every checkable requirement is tagged by some test under suites/, and every tag is known', () => {
  const { specFiles, coverage } = suitesCoverage(SUITES_DIR, loadCatalogue().requirements);
  test.skip(specFiles.length === 0, 'suites/ has no tests yet');
  expect(coverage.unknown, 'tags under suites/ that name no entry of spec/requirements.yaml').toEqual([]);
  expect(coverage.missing, `${coverage.missing.length} checkable requirements that no test under suites/ tags yet`).toEqual([]);
});
