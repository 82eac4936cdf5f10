import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadCatalogue } from '../../harness/catalogue.ts';
import { areaTable, areaPrefixes, sectionIndex } from './readme-tables.ts';
import { SPEC_DIR } from './spec-files.ts';

// spec/README.md is where a newcomer looks a rule up; its tables must say what the catalogue says.
const readme = readFileSync(`${SPEC_DIR}README.md`, 'utf8');
const catalogue = loadCatalogue();

function between(name: string): string {
  const match = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(readme);
  return match?.[1]?.trim() ?? `(no ${name} markers in spec/README.md)`;
}

test('the section index matches the catalogue', () => {
  expect(between('section-index')).toBe(sectionIndex(catalogue));
});

test('the areas table matches the catalogue', () => {
  expect(between('areas')).toBe(areaTable(catalogue));
});

test('each area has one ID prefix, used by no other area', () => {
  const prefixes = areaPrefixes(catalogue);
  expect([...prefixes].filter(([, p]) => p.length !== 1).map(([area, p]) => `${area}: ${p.join(', ')}`)).toEqual([]);
  const all = [...prefixes.values()].flat();
  expect(all.length).toBe(new Set(all).size);
});

test('the tool versions in the README are the ones scripts/spec-tools.sh runs', () => {
  const script = readFileSync(fileURLToPath(new URL('../../scripts/spec-tools.sh', import.meta.url)), 'utf8');
  for (const name of ['PRISM_VERSION', 'SPECMATIC_VERSION']) {
    const version = new RegExp(`^${name}=(\\S+)`, 'm').exec(script)?.[1];
    expect(version, `${name} in scripts/spec-tools.sh`).toBeDefined();
    expect(readme, `spec/README.md names ${name} ${version}`).toContain(`@${version} `);
  }
});
