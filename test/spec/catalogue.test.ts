import { test, expect } from '@playwright/test';
import type { Catalogue, Requirement } from '../../harness/catalogue.ts';
import { declaredNeeds } from './catalogue-header.ts';
import { walk } from './pointer.ts';
import { isObject, OPENAPI_PATH, PROFILE_PATH, readYaml, REQUIREMENTS_PATH } from './spec-files.ts';

// spec/requirements.yaml: its format (see its header comment) and its links to openapi.yaml,
// profile.yaml and the interface document's sections.
const catalogue = readYaml(REQUIREMENTS_PATH) as unknown as Catalogue;
const requirements: Requirement[] = catalogue.requirements;
const ids = new Set(requirements.map((r) => r.id));
const needs = declaredNeeds(REQUIREMENTS_PATH);
const profileChoices = Object.keys((readYaml(PROFILE_PATH).choices ?? {}) as object);

const LEVEL_BY_HUNDREDS = { 0: 'document', 1: 'standard', 2: 'profile' } as const;
const CHECKS = ['black-box', 'fixture', 'hook', 'client-side', 'not-checkable'];

test('the catalogue is for interface 0.2.0 and lists requirements', () => {
  expect(String(catalogue.interface)).toBe('0.2.0');
  expect(requirements.length).toBeGreaterThan(50);
});

test('IDs are unique and shaped AREA-NNN', () => {
  const seen = new Map<string, number>();
  for (const r of requirements) seen.set(r.id, (seen.get(r.id) ?? 0) + 1);
  expect([...seen].filter(([, n]) => n > 1).map(([id]) => id), 'duplicated IDs').toEqual([]);
  expect(requirements.map((r) => r.id).filter((id) => !/^[A-Z]+-\d{3}$/.test(id)), 'malformed IDs').toEqual([]);
});

test('the level follows the hundreds: 001–099 document, 101–199 standard, 201–299 profile', () => {
  const wrong = requirements.filter((r) => {
    const n = Number(r.id.split('-')[1]);
    const expected = n % 100 === 0 ? undefined : LEVEL_BY_HUNDREDS[Math.floor(n / 100) as 0 | 1 | 2];
    return r.level !== expected;
  });
  expect(wrong.map((r) => `${r.id} is ${r.level}`)).toEqual([]);
});

test('every entry has a declared area, a source, a statement and a check', () => {
  const areas = new Set(catalogue.areas.map((a) => a.id));
  for (const r of requirements) {
    expect(areas.has(r.area), `${r.id} area ${r.area}`).toBe(true);
    expect(r.source, `${r.id} source`).toMatch(/\S/);
    expect(r.statement, `${r.id} statement`).toMatch(/\S/);
    expect(CHECKS, `${r.id} check`).toContain(r.check);
  }
});

test('every declared area holds at least one entry', () => {
  const used = new Set(requirements.map((r) => r.area));
  expect(catalogue.areas.map((a) => a.id).filter((a) => !used.has(a))).toEqual([]);
});

test('the header comment declares the fixture and hook names', () => {
  // Guards the parser below: an edited header must still be readable.
  expect(needs.fixtures).toContain('secondClient');
  expect(needs.hooks).toContain('upstreamFailure');
});

test('fixture and hook entries say what they need, using declared names only', () => {
  for (const r of requirements.filter((x) => x.check === 'fixture' || x.check === 'hook')) {
    expect(r.needs?.length, `${r.id} needs`).toBeGreaterThan(0);
    const allowed = r.check === 'fixture' ? needs.fixtures : [...needs.fixtures, ...needs.hooks];
    expect((r.needs ?? []).filter((n) => !allowed.includes(n)), `${r.id}: undeclared names in needs`).toEqual([]);
    // A hook entry needs some hook; otherwise it is a fixture entry.
    if (r.check === 'hook') expect((r.needs ?? []).some((n) => needs.hooks.includes(n)), `${r.id} names a hook`).toBe(true);
  }
  const stray = requirements.filter((r) => r.needs && r.check !== 'fixture' && r.check !== 'hook');
  expect(stray.map((r) => r.id), '`needs` on an entry that is neither fixture nor hook').toEqual([]);
});

test('client-side and not-checkable entries give their reason', () => {
  const missing = requirements.filter((r) => (r.check === 'client-side' || r.check === 'not-checkable') && !/\S/.test(r.reason ?? ''));
  expect(missing.map((r) => r.id)).toEqual([]);
});

test('profile entries, and only they, name a profile.yaml choice', () => {
  for (const r of requirements) {
    if (r.level === 'profile') expect(profileChoices, `${r.id} choice`).toContain(r.choice);
    else expect(r.choice, `${r.id} is not a profile entry`).toBeUndefined();
  }
});

test('every x-requirements ID in openapi.yaml is in the catalogue', () => {
  const referenced: string[] = [];
  walk(readYaml(OPENAPI_PATH), (node) => {
    if (isObject(node) && Array.isArray(node['x-requirements'])) referenced.push(...node['x-requirements'].map(String));
  });
  expect(referenced.length).toBeGreaterThan(0);
  expect(referenced.filter((id) => !ids.has(id))).toEqual([]);
});

test('every requirement ID named in the text of openapi.yaml is in the catalogue', () => {
  // Descriptions cite IDs too ("standard level, TOKEN-101"); a typo there misleads a reader.
  const text = JSON.stringify(readYaml(OPENAPI_PATH));
  const named = [...text.matchAll(/\b[A-Z]{2,}-[A-Z0-9]\d{2}\b/g)].map((m) => m[0]);
  expect([...new Set(named)].filter((id) => !ids.has(id))).toEqual([]);
});

test('each of the eight rules of section 4.6 has an entry citing it', () => {
  const cited = new Set(requirements.flatMap((r) => r.source.split(';').map((s) => s.trim())).flatMap((s) => /^4\.6 rule (\d+)$/.exec(s)?.[1] ?? []));
  expect([1, 2, 3, 4, 5, 6, 7, 8].filter((n) => !cited.has(String(n)))).toEqual([]);
});
