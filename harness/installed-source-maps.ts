// Real file:line for the suites of an installed harness. Playwright compiles TypeScript only
// outside node_modules, so an installed harness's files are compiled by tsx (cli/playwright-cli.ts),
// whose output keeps no line of the source. Playwright places each test, and every frame of a
// failure's stack, through its own copy of source-map-support, which asks only for the maps of
// the files Playwright compiled itself: tests then read `bearer.spec.ts:1:4070`, and the dry run,
// which reads each test's declaration at its line, finds no fixture (0 settings changes where a
// clone counts them all). tsx hands Node a source map of every file it compiles (Node keeps it:
// tsx turns source maps on), so a handler that asks Node for it gives Playwright the lines of
// the .ts sources. Installed by playwright.config.ts, in the runner and in every worker, before
// any test file loads; a clone needs none.
import { createRequire, findSourceMap } from 'node:module';
import { sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Whether this harness is an installed package (its files under a node_modules folder). */
export const INSTALLED = fileURLToPath(new URL('..', import.meta.url)).split(sep).includes('node_modules');

interface SourceMapSupport {
  install(options: { retrieveSourceMap: (source: string) => { url: string; map: object } | null }): void;
}

/**
 * The source-map-support Playwright places tests and stack frames with: the one its own
 * `playwright-core` bundles, reached from @playwright/test as Playwright reaches it (pinned in
 * package.json; test/harness/installed-source-maps.test.ts fails if an upgrade moves it).
 */
export function playwrightSourceMapSupport(): SourceMapSupport {
  const fromTest = createRequire(createRequire(import.meta.url).resolve('@playwright/test'));
  const fromPlaywright = createRequire(fromTest.resolve('playwright'));
  return (fromPlaywright('playwright-core/lib/utilsBundle') as { sourceMapSupport: SourceMapSupport }).sourceMapSupport;
}

/** The source map Node keeps for a file tsx compiled, its sources as paths; null for any other file. */
export function nodeSourceMap(source: string): { url: string; map: object } | null {
  const file = source.startsWith('file://') ? fileURLToPath(source) : source;
  if (!/\.[cm]?tsx?$/.test(file)) return null;
  const map = findSourceMap(pathToFileURL(file).href) ?? findSourceMap(file);
  if (!map) return null;
  const payload = map.payload as { sources?: string[] };
  return { url: file, map: { ...payload, sources: (payload.sources ?? []).map((s) => (s.startsWith('file://') ? fileURLToPath(s) : s)) } };
}

/** Let Playwright map what tsx compiled (once per process, installed harness only). */
export function installSourceMapsForTsx(): void {
  if (!INSTALLED) return;
  playwrightSourceMapSupport().install({ retrieveSourceMap: nodeSourceMap });
}
