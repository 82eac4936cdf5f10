// The one loader of spec/requirements.yaml (harness/catalogue.ts): the shipped catalogue loads,
// and every way a catalogue can be broken gets a message that names the entry.
import { expect, test } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatalogueError, loadCatalogue, parseCatalogue } from '../../harness/catalogue.ts';
import { loadCatalogue as loadForReport } from '../../reports/catalogue.ts';
import { InputError } from '../../reports/errors.ts';

const area = { id: 'a', title: 'Area A' };
const entry = { id: 'A-001', area: 'a', level: 'document', source: '1', statement: 's', check: 'black-box' };
const doc = (requirements: unknown[], extra: object = {}) => ({ interface: '0.2.0', profile: 'reference', areas: [area], requirements, ...extra });

test('the shipped catalogue loads with its profile, and is read once per process', () => {
  const catalogue = loadCatalogue();
  expect(catalogue.interface).toBe('0.2.0');
  expect(catalogue.profile).toBe('reference');
  expect(catalogue.requirements.length).toBeGreaterThan(50);
  expect(loadCatalogue()).toBe(catalogue);
});

test('a broken catalogue is refused with a message naming the entry', () => {
  const cases: Array<[unknown, RegExp]> = [
    [[], /not a YAML mapping/],
    [{ areas: [], requirements: [] }, /"interface" \(the interface version\) is missing/],
    [doc([{ ...entry, id: 'A1' }]), /A1: id must look like AREA-NNN/],
    [doc([entry, entry]), /A-001: duplicate id/],
    [doc([{ ...entry, area: 'b' }]), /A-001: area "b" is not listed under areas/],
    [doc([{ ...entry, level: 'vendor' }]), /A-001: level "vendor" is not one of document, standard, profile/],
    [doc([{ ...entry, check: 'maybe' }]), /A-001: check "maybe" is not one of/],
    [doc([{ ...entry, check: 'client-side' }]), /A-001: check client-side needs a "reason"/],
    [doc([{ ...entry, statement: '' }]), /A-001: "statement" must be a non-empty string/],
  ];
  for (const [input, message] of cases) expect(() => parseCatalogue(input, 'x.yaml')).toThrow(message);
  expect(() => parseCatalogue([], 'x.yaml')).toThrow(CatalogueError);
});

test('an unreadable or non-YAML file is a CatalogueError; the report layer sees it as an InputError (exit 2)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'catalogue-'));
  const bad = join(dir, 'requirements.yaml');
  writeFileSync(bad, 'areas: [unclosed\n');
  expect(() => loadCatalogue(join(dir, 'missing.yaml'))).toThrow(/cannot read the requirement catalogue/);
  expect(() => loadCatalogue(bad)).toThrow(/is not valid YAML/);
  expect(() => loadForReport(bad)).toThrow(InputError);
});
