import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isCheckable, type Requirement } from '../../harness/catalogue.ts';

/**
 * Which requirements the conformance suites tag, and which they do not. Pure apart from reading
 * the files it is given, so the certify CLI or a report can reuse it.
 *
 * A tag is `@AREA-NNN` in a TypeScript file under suites/ (tests and their helpers); Markdown is
 * not scanned, so an example in a README never counts as a test. The lookbehind keeps
 * `user@HOST-123`-like text from counting.
 */
export const TAG_PATTERN = /(?<![\w@.])@([A-Z]+-\d{3})\b/g;

export interface Coverage {
  /** Checkable requirement IDs (not client-side, not not-checkable, not withdrawn) that no file tags. */
  missing: string[];
  /** Tags that name no catalogue entry, with the files that carry them. */
  unknown: { id: string; files: string[] }[];
}

/** Every file under `dir` whose name ends with `suffix`, sorted; none when `dir` is absent. */
export function filesUnder(dir: string, suffix: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(path, suffix));
    else if (entry.isFile() && entry.name.endsWith(suffix)) found.push(path);
  }
  return found.sort();
}

/** ID → the files (relative to `base`) that tag it. */
export function scanTags(files: readonly string[], base: string): Map<string, string[]> {
  const tags = new Map<string, string[]>();
  for (const file of files) {
    const ids = new Set([...readFileSync(file, 'utf8').matchAll(TAG_PATTERN)].map((m) => m[1] as string));
    for (const id of ids) tags.set(id, [...(tags.get(id) ?? []), relative(base, file)]);
  }
  return tags;
}

export function computeCoverage(requirements: readonly Requirement[], tags: ReadonlyMap<string, readonly string[]>): Coverage {
  const known = new Set(requirements.map((r) => r.id));
  // A withdrawn entry stays in the catalogue (IDs are never reused) but needs no test.
  const needed = requirements.filter((r) => isCheckable(r) && !(r as { withdrawn?: boolean }).withdrawn);
  return {
    missing: needed.map((r) => r.id).filter((id) => !tags.has(id)),
    unknown: [...tags].filter(([id]) => !known.has(id)).map(([id, files]) => ({ id, files: [...files] })).sort((a, b) => a.id.localeCompare(b.id)),
  };
}

/** The whole check for a suites folder: its spec files, and the coverage of the catalogue. */
export function suitesCoverage(suitesDir: string, requirements: readonly Requirement[]): { specFiles: string[]; coverage: Coverage } {
  const specFiles = filesUnder(suitesDir, '.spec.ts');
  const tags = scanTags(filesUnder(suitesDir, '.ts'), suitesDir);
  return { specFiles, coverage: computeCoverage(requirements, tags) };
}
