import { readFileSync } from 'node:fs';

/** The fixture and hook names the catalogue's header comment declares for `needs`. */
export interface DeclaredNeeds {
  fixtures: string[];
  hooks: string[];
}

/**
 * Reads "Fixture names: a, b. Hook names: c, d." from the leading comment block of
 * spec/requirements.yaml. The comment is the one place the names are defined, so the test
 * reads it rather than keeping a second list that could drift.
 */
export function declaredNeeds(path: string): DeclaredNeeds {
  const lines = readFileSync(path, 'utf8').split('\n');
  const header = lines.slice(0, lines.findIndex((l) => !l.startsWith('#'))).map((l) => l.replace(/^#\s?/, '')).join(' ');
  const list = (label: string): string[] => {
    const match = new RegExp(`${label} names:([^.]*)\\.`).exec(header);
    return match?.[1] ? match[1].split(',').map((s) => s.trim()).filter(Boolean) : [];
  };
  return { fixtures: list('Fixture'), hooks: list('Hook') };
}
