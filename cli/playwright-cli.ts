// How cli/ starts Playwright's command line. Its entry is resolved like any import: in a clone
// it is under this repository's node_modules, in an installed package wherever npm put (hoisted)
// it. Playwright compiles TypeScript only outside node_modules, so an installed harness, whose
// playwright.config.ts and suites live inside it, is run with tsx loaded first (resolved from
// here, not from the directory the user runs in). A clone is not: there Playwright's own
// transform does it, and tsx's hooks in the runner and every worker would only cost time
// (about 0.6 s of a default run's wall time, 1 s of its CPU, measured with bench/certify-time.ts).
// (Playwright then keeps the lines of the .ts sources through the maps tsx leaves:
// harness/installed-source-maps.ts.)
import { fileURLToPath } from 'node:url';
import { INSTALLED } from '../harness/installed-source-maps.ts';

/** Playwright's command-line entry. */
export const PLAYWRIGHT_CLI = fileURLToPath(import.meta.resolve('@playwright/test/cli'));

export const PLAYWRIGHT_NODE_ARGS = [...(INSTALLED ? ['--import', import.meta.resolve('tsx')] : []), PLAYWRIGHT_CLI];
