import { expect, test } from '@playwright/test';
import { loadCatalogue } from '../../harness/catalogue.ts';
import { SEARCH_FIELDS, SEND_FIELDS, TOKEN_FIELDS, UPDATE_FIELDS, applyFieldDefect, fieldDefects, type FieldTable } from '../../generators/field-type-defects.ts';
import { brokenRules } from './send-rules.ts';

const VALID_SEND = { sendFrom: 'num_01', to: ['+12025550100'], messageType: 'SMS', text: 'hi', externalReference: 'ref-1' };
const SENDERS = { sendable: ['num_01'] };
const TABLES: Array<[FieldTable, 'document' | 'standard']> = [
  [SEND_FIELDS, 'document'],
  [UPDATE_FIELDS, 'document'],
  [SEARCH_FIELDS, 'document'],
  [TOKEN_FIELDS, 'standard'],
];

test('every defect breaks a requirement of the catalogue at the level of its source', () => {
  const byId = new Map(loadCatalogue().requirements.map((r) => [r.id, r]));
  for (const [table, level] of TABLES) {
    for (const defect of fieldDefects(table, VALID_SEND)) {
      expect(byId.get(defect.requirementId)?.level, `${table.operation} ${defect.label} → ${defect.requirementId}`).toBe(level);
    }
  }
});

test('each defect changes exactly its field, and a send defect breaks a rule of section 4.6 by an independent reading', () => {
  for (const defect of fieldDefects(SEND_FIELDS, VALID_SEND)) {
    const body = applyFieldDefect(VALID_SEND, defect);
    const changed = Object.keys({ ...VALID_SEND, ...body }).filter((f) => JSON.stringify((VALID_SEND as Record<string, unknown>)[f]) !== JSON.stringify(body[f]));
    expect(changed, defect.label).toEqual([defect.field]);
    expect(brokenRules(body, { 'Idempotency-Key': 'k' }, SENDERS).length, `${defect.label} breaks something`).toBeGreaterThan(0);
  }
  expect(brokenRules(VALID_SEND, { 'Idempotency-Key': 'k' }, SENDERS)).toEqual([]);
});

test('a missing field or an empty to is traced to its own entry; every other type defect to the table\'s', () => {
  const defects = fieldDefects(SEND_FIELDS, VALID_SEND);
  const missing = Object.fromEntries(defects.filter((d) => d.kind === 'missing').map((d) => [d.field, d.requirementId]));
  expect(missing).toEqual({ sendFrom: 'SEND-014', to: 'SEND-014', messageType: 'SEND-014', externalReference: 'SEND-013' });
  expect(defects.find((d) => d.kind === 'empty')).toMatchObject({ field: 'to', value: [], requirementId: 'SEND-011' });
  expect(defects.find((d) => d.kind === 'scalar-for-array')).toMatchObject({ field: 'to', value: '+12025550100', requirementId: 'SEND-016' });
  expect(new Set(defects.filter((d) => d.kind === 'wrong-type' || d.kind === 'null').map((d) => d.requirementId))).toEqual(new Set(['SEND-016']));
});

test('null is a defect only where the document does not allow it, and optional fields are never left out', () => {
  const updates = fieldDefects(UPDATE_FIELDS);
  expect(updates.filter((d) => d.kind === 'null').map((d) => d.field)).toEqual(['smsEnabled', 'mmsEnabled']);
  expect(updates.filter((d) => d.kind === 'missing')).toEqual([]);
  // A boolean is refused in the lookalike forms a lenient server coerces.
  expect(updates.filter((d) => d.field === 'smsEnabled').map((d) => d.value)).toEqual(expect.arrayContaining(['true', 'false', 1, 0]));
  expect(fieldDefects(SEARCH_FIELDS).every((d) => d.kind === 'wrong-type' || d.kind === 'null')).toBe(true);
});
