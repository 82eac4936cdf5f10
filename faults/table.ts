import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FAULTS, FAULT_NAMES } from './index.ts';

/**
 * The fault table of faults/README.md, made from the catalogue; test/reference/faults.test.ts
 * keeps the README's copy equal to it. Print it with `npx tsx faults/table.ts`.
 */
export function faultTable(): string {
  const rows = FAULT_NAMES.map((name) => `| \`${name}\` | ${FAULTS[name].breaks.join(', ')} | ${FAULTS[name].description} |`);
  return ['| fault | breaks | what the server does |', '|---|---|---|', ...rows].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) console.log(faultTable());
