// harness/requirement-ids.ts is the catalogue's IDs as a type (cli/requirement-ids.ts writes it):
// it must say exactly what the catalogue says.
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { REQUIREMENT_IDS_PATH, requirementIdsModule } from '../../cli/requirement-ids.ts';
import { loadCatalogue } from '../../harness/catalogue.ts';

test('harness/requirement-ids.ts lists every requirement of the catalogue not withdrawn, and nothing else', () => {
  expect(readFileSync(REQUIREMENT_IDS_PATH, 'utf8'), 'harness/requirement-ids.ts differs from the catalogue: run npx tsx cli/requirement-ids.ts').toBe(requirementIdsModule(loadCatalogue()));
});
