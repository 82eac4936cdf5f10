import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadCatalogue, type Catalogue } from '../../harness/catalogue.ts';

/**
 * The two tables of spec/README.md that are derived from spec/requirements.yaml: the areas, and
 * the index from a section of the interface document to the IDs that cite it. The README test
 * checks the README holds exactly these, so the tables cannot drift from the catalogue.
 * Print them with `node --import tsx test/spec/readme-tables.ts`.
 */

/** The ID prefix of an area ("SEND" for send), taken from its entries. */
export function areaPrefixes(catalogue: Catalogue): Map<string, string[]> {
  const prefixes = new Map<string, string[]>();
  for (const r of catalogue.requirements) {
    const prefix = r.id.split('-')[0] ?? '';
    const known = prefixes.get(r.area) ?? [];
    if (!known.includes(prefix)) prefixes.set(r.area, [...known, prefix]);
  }
  return prefixes;
}

export function areaTable(catalogue: Catalogue): string {
  const prefixes = areaPrefixes(catalogue);
  const rows = catalogue.areas.map((a) => `| ${a.id} | ${(prefixes.get(a.id) ?? []).join(', ')} | ${a.title} | ${a.sections} |`);
  return ['| Area | ID prefix | Title | Sections |', '|---|---|---|---|', ...rows].join('\n');
}

/** "4.6 rule 4" → [4, 6, 4]; "7" → [7]; anything else (an RFC, profile.yaml) is not a section. */
function sectionKey(part: string): number[] | undefined {
  const match = /^(\d+(?:\.\d+)?)(?: rule (\d+))?$/.exec(part);
  if (!match?.[1]) return undefined;
  return [...match[1].split('.').map(Number), ...(match[1].includes('.') ? [] : [0]), match[2] ? Number(match[2]) : 0];
}

/**
 * Document-level entries only: their sources are sections of the interface document. A
 * standard's source continues its own numbering ("RFC 6749 2.3; 5.2" means RFC section 5.2).
 */
export function sectionIndex(catalogue: Catalogue): string {
  const bySection = new Map<string, string[]>();
  for (const r of catalogue.requirements.filter((x) => x.level === 'document')) {
    for (const part of r.source.split(';').map((s) => s.trim())) {
      if (sectionKey(part)) bySection.set(part, [...(bySection.get(part) ?? []), r.id]);
    }
  }
  const compare = (a: string, b: string): number => {
    const [ka, kb] = [sectionKey(a) ?? [], sectionKey(b) ?? []];
    for (let i = 0; i < Math.max(ka.length, kb.length); i++) if ((ka[i] ?? 0) !== (kb[i] ?? 0)) return (ka[i] ?? 0) - (kb[i] ?? 0);
    return 0;
  };
  const rows = [...bySection.keys()].sort(compare).map((s) => `| ${s} | ${(bySection.get(s) ?? []).join(', ')} |`);
  return ['| Section | Requirement IDs |', '|---|---|', ...rows].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const catalogue = loadCatalogue();
  console.log(`${areaTable(catalogue)}\n\n${sectionIndex(catalogue)}`);
}
