// An installed harness's tests keep the lines of their .ts sources (harness/installed-source-maps.ts):
// the source-map-support Playwright places tests with is where the handler expects it, and with
// the handler a file tsx compiled is placed at its real line (scripts/check-package.sh checks the
// same on the installed package: the dry run's file:line equal to a clone's).
import { expect, test } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodeSourceMap, playwrightSourceMapSupport } from '../../harness/installed-source-maps.ts';
import { ROOT, runNode, tempDir } from '../reports/run-fixture.ts';

test("Playwright's source-map-support is where the handler reaches it", () => {
  expect(typeof playwrightSourceMapSupport().install).toBe('function');
  expect(nodeSourceMap('/no/such/file.ts')).toBeNull();
  expect(nodeSourceMap('/some/file.js')).toBeNull();
});

test('with the handler, a frame of a file tsx compiled is placed at its line in the .ts source', async () => {
  const dir = tempDir('source-maps-');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  // Types, comments and blank lines that tsx's output drops: line 9 of the source is not line 9 of the code.
  const fixture = join(dir, 'fixture.ts');
  writeFileSync(fixture, ['interface A {', '  a: number;', '}', '', '/** a comment', ' * over lines', ' */', 'export function where(): string {', "  return new Error('here').stack ?? '';", '}', ''].join('\n'));
  const main = join(dir, 'main.ts');
  const harness = pathToFileURL(join(ROOT, 'harness/installed-source-maps.ts')).href;
  writeFileSync(main, [`import { nodeSourceMap, playwrightSourceMapSupport } from '${harness}';`, "const use = process.argv[2] === 'mapped';", 'if (use) playwrightSourceMapSupport().install({ retrieveSourceMap: nodeSourceMap });', "else playwrightSourceMapSupport().install({ retrieveSourceMap: () => null });", `const { where } = await import('${pathToFileURL(fixture).href}');`, 'console.log(where());', ''].join('\n'));
  const mapped = await runNode(['--import', 'tsx', main, 'mapped'], {}, ROOT);
  expect(mapped.stdout, mapped.stderr).toMatch(/fixture\.ts:9:\d+/);
  const unmapped = await runNode(['--import', 'tsx', main, 'unmapped'], {}, ROOT);
  expect(unmapped.stdout, unmapped.stderr).not.toMatch(/fixture\.ts:9:/);
});
