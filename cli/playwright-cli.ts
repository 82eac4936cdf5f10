// How cli/ starts Playwright's command line. Its entry is resolved like any import: in a clone
// it is under this repository's node_modules, in an installed package wherever npm put (hoisted)
// it. tsx is loaded first because Playwright compiles TypeScript only outside node_modules, and
// an installed harness's playwright.config.ts and suites live inside it; tsx is resolved from
// here, not from the directory the user runs in.
import { fileURLToPath } from 'node:url';

export const PLAYWRIGHT_NODE_ARGS = ['--import', import.meta.resolve('tsx'), fileURLToPath(import.meta.resolve('@playwright/test/cli'))];
