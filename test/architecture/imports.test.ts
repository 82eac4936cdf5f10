import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IMPORT_RULES, brokenRule, folderOf, importTable } from './import-rules.ts';
import { codeFilesOnDisk, readProgramImports, type ModuleImport, type ProgramImports } from './module-imports.ts';

// ARCHITECTURE.md's import rules, checked on every module of the project: each import is read by
// the TypeScript parser, its relative path resolved to a folder, and any that breaks the table is
// reported as file:line, what it imports, and the rule.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const describeImport = (imp: ModuleImport, rule: string): string => `${imp.file}:${imp.line} imports ${imp.specifier === undefined ? 'a computed module' : `'${imp.specifier}'`}: ${rule}`;

test.describe('the project', () => {
  // One read of the program (it runs tsgo) for the tests that look at it, in one worker.
  test.describe.configure({ mode: 'default' });
  let program: ProgramImports;
  test.beforeAll(() => {
    program = readProgramImports(ROOT);
  });

  test('every import keeps to the import table of ARCHITECTURE.md', () => {
    const violations = program.imports.flatMap((imp) => {
      const rule = brokenRule(imp);
      return rule === undefined ? [] : [describeImport(imp, rule)];
    });
    expect(violations, `${violations.length} imports break ARCHITECTURE.md's import rules`).toEqual([]);
  });

  test('every code file is a module of the TypeScript program, so its imports are read', () => {
    const outside = codeFilesOnDisk(ROOT).filter((file) => !program.files.includes(file));
    expect(outside, 'code files outside tsconfig.json (add their folder to its include, or move them)').toEqual([]);
  });

  test('modules live only in folders the table names, and none in spec/', () => {
    const misplaced = program.files.flatMap((file) => {
      const rule = IMPORT_RULES.find((r) => r.folder === folderOf(file));
      if (!rule) return [`${file}: ${folderOf(file)} is not in the import table`];
      return rule.mayImport === 'no modules' ? [`${file}: ${rule.folder} holds no modules: ${rule.why}`] : [];
    });
    expect(misplaced).toEqual([]);
  });

  test('the imports read are the ones the files hold', () => {
    // A guard against an upgrade of the unstable TypeScript API reading nothing, which would
    // pass the rules vacuously: this file's own imports, then enough in every layer.
    const own = program.imports.filter((imp) => imp.file === 'test/architecture/imports.test.ts').map(({ line, specifier }) => [line, specifier]);
    expect(own).toEqual([
      [1, '@playwright/test'],
      [2, 'node:fs'],
      [3, 'node:os'],
      [4, 'node:path'],
      [5, 'node:url'],
      [6, './import-rules.ts'],
      [7, './module-imports.ts'],
    ]);
    expect(program.files).toContain('playwright.config.ts');
    for (const folder of ['harness/', 'suites/', 'generators/', 'reports/', 'reference/']) {
      expect(program.imports.filter((imp) => imp.file.startsWith(folder)).length, `imports read in ${folder}`).toBeGreaterThan(10);
    }
  });
});

test('every form of import is read, and none in a comment or a string', () => {
  const dir = mkdtempSync(join(tmpdir(), 'imports-'));
  try {
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', target: 'ES2022', noEmit: true, allowImportingTsExtensions: true }, include: ['*.ts'] }));
    writeFileSync(
      join(dir, 'forms.ts'),
      [
        '/// <reference path="./referenced.d.ts" />',
        "import value from './default.ts';",
        "import type { T } from './type-only.ts';",
        "import './side-effect.ts';",
        "export * from './re-exported.ts';",
        "export { named } from './named.ts';",
        "import fs = require('node:fs');",
        "const later = await import('./dynamic.ts');",
        "type Lazy = typeof import('./import-type.ts');",
        'const computed = await import(later.name);',
        "// import commented from './line-comment.ts';",
        "/* export * from './block-comment.ts'; */",
        `const text = "import quoted from './string.ts'";`,
      ].join('\n'),
    );
    const { files, imports } = readProgramImports(dir);
    expect(files).toEqual(['forms.ts']);
    expect(imports.map(({ line, specifier }) => [line, specifier])).toEqual([
      [1, './referenced.d.ts'],
      [2, './default.ts'],
      [3, './type-only.ts'],
      [4, './side-effect.ts'],
      [5, './re-exported.ts'],
      [6, './named.ts'],
      [7, 'node:fs'],
      [8, './dynamic.ts'],
      [9, './import-type.ts'],
      [10, undefined],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.describe('the rules', () => {
  const cases: Array<[file: string, specifier: string | undefined, broken: RegExp | undefined]> = [
    ['harness/fixtures.ts', '../generators/send-payload.ts', undefined],
    ['harness/fixtures.ts', '../suites/support/sends.ts', /^harness\/ may import spec\/ and generators\/ only, not suites\//],
    ['harness/fixtures.ts', '../reference/app.ts', /not reference\//],
    ['harness/fixtures.ts', '../reports/types.ts', /not reports\//],
    ['harness/fixtures.ts', '../playwright.config.ts', /not the top-level files/],
    ['harness/fixtures.ts', 'undici', undefined],
    ['reference/app.ts', '../harness/config.ts', /^reference\/ may import spec\/ and generators\/ only, not harness\//],
    ['reference/app.ts', '../cli/free-port.ts', /not cli\//],
    ['reference/routes/send.ts', '../send/accept.ts', undefined],
    ['generators/media-item.ts', './send-payload.ts', undefined],
    ['generators/media-item.ts', 'node:fs', /^generators\/ never imports fs: no I\/O/],
    ['generators/media-item.ts', 'fs/promises', /never imports fs:/],
    ['generators/media-item.ts', 'node:http', /never imports http:/],
    ['generators/media-item.ts', 'undici', /never imports undici:/],
    ['generators/media-item.ts', 'node:crypto', undefined],
    ['generators/media-item.ts', '../harness/config.ts', /not harness\//],
    ['suites/send/send.spec.ts', '../support/sends.ts', undefined],
    ['suites/send/send.spec.ts', './property-support.ts', undefined],
    ['suites/send/send.spec.ts', '../../harness/fixtures.ts', undefined],
    ['suites/send/send.spec.ts', '../webhooks/webhook-support.ts', /^suites\/send\/ imports another area's folder suites\/webhooks\//],
    ['suites/support/sends.ts', '../send/property-support.ts', /^suites\/support\/ imports another area's folder suites\/send\//],
    ['suites/send/send.spec.ts', '../../faults/index.ts', /not faults\//],
    ['suites/send/send.spec.ts', '../../reports/types.ts', /not reports\//],
    ['suites/send/send.spec.ts', 'node:http', /^suites\/ never imports http: tests reach the target through the harness/],
    ['suites/send/send.spec.ts', undefined, /import\(\) of a computed value cannot be checked/],
    ['suites/send/send.spec.ts', '#support', /imports alias/],
    ['suites/send/send.spec.ts', '../../../elsewhere/x.ts', /outside the project/],
    ['reports/build.ts', '../harness/catalogue.ts', undefined],
    ['reports/build.ts', '../suites/support/sends.ts', /^reports\/ may import spec\/, harness\/ and generators\/ only, not suites\//],
    ['reports/build.ts', '../faults/index.ts', /not faults\//],
    ['cli/sensitivity.ts', '../faults/index.ts', undefined],
    ['faults/send.ts', '../reference/send/accept.ts', undefined],
    ['faults/send.ts', '../harness/settings.ts', /^faults\/ may import reference\/, spec\/ and generators\/ only, not harness\//],
    ['reference/app.ts', '../faults/inject.ts', /^reference\/ may import spec\/ and generators\/ only, not faults\//],
    ['harness/settings.ts', '../faults/index.ts', /^harness\/ may import spec\/ and generators\/ only, not faults\//],
    ['bench/send-store.ts', '../reference/store/writes.ts', undefined],
    ['test/reference/helpers.ts', '../../reference/app.ts', undefined],
    ['test/x.test.ts', undefined, undefined],
    ['playwright.config.ts', './harness/config.ts', undefined],
    ['spec/extra.ts', 'yaml', /^spec\/ holds no modules/],
    ['scripts/tool.ts', 'node:fs', /^scripts\/ is not in the import table/],
  ];
  for (const [file, specifier, broken] of cases) {
    test(`${file} importing ${specifier ?? 'a computed module'} ${broken ? 'breaks a rule' : 'keeps to the table'}`, () => {
      const rule = brokenRule({ file, line: 1, specifier });
      if (broken) expect(rule).toMatch(broken);
      else expect(rule).toBeUndefined();
    });
  }
});

test('ARCHITECTURE.md shows the import table this test enforces', () => {
  const page = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const shown = /<!-- import-rules:start -->\n([\s\S]*?)\n<!-- import-rules:end -->/.exec(page)?.[1]?.trim() ?? '(no import-rules markers in ARCHITECTURE.md)';
  expect(shown, 'print the table with: node --import tsx test/architecture/import-rules.ts').toBe(importTable());
});
