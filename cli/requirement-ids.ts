// npx tsx cli/requirement-ids.ts
//
// Writes harness/requirement-ids.ts from the catalogue (spec/requirements.yaml): every requirement
// ID not withdrawn, as a type, so that a mistyped ID in a matcher or a helper fails the type
// check instead of leaving a failure unattributed. test/spec/requirement-ids.test.ts fails when
// the file and the catalogue differ, and names this command.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadCatalogue, type Catalogue } from '../harness/catalogue.ts';

export const REQUIREMENT_IDS_PATH = fileURLToPath(new URL('../harness/requirement-ids.ts', import.meta.url));

/** The text of harness/requirement-ids.ts for `catalogue`. */
export function requirementIdsModule(catalogue: Catalogue): string {
  const ids = catalogue.requirements.filter((r) => !r.withdrawn).map((r) => r.id);
  return [
    '// Generated from spec/requirements.yaml by `npx tsx cli/requirement-ids.ts`: do not edit.',
    '// test/spec/requirement-ids.test.ts keeps it in step with the catalogue.',
    '',
    '/** Every requirement of the catalogue that is not withdrawn. */',
    'export const REQUIREMENT_IDS = [',
    ...ids.map((id) => `  '${id}',`),
    '] as const;',
    '',
    'export type RequirementId = (typeof REQUIREMENT_IDS)[number];',
    '',
    '/**',
    ' * What a check is judged against: a requirement, alone or with what the check looked at',
    ' * ("SEND-005: precondition: …"), or several, the first of them typed ("IDEM-005, IDEM-103: …").',
    ' */',
    'export type RequirementLabel = RequirementId | `${RequirementId}: ${string}` | `${RequirementId}, ${string}`;',
    '',
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(REQUIREMENT_IDS_PATH, requirementIdsModule(loadCatalogue()));
  console.log(`wrote ${REQUIREMENT_IDS_PATH}`);
}
