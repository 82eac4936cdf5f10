import fc from 'fast-check';

/**
 * Single-defect requests at the level of one field's JSON type: for every field of an
 * operation's request, each way the document's type for it can be broken on its own (the field
 * missing when it is required, a value of another JSON type, null where null is not allowed, a
 * scalar where an array is required, an empty array where the document forbids one). Each
 * defect carries the requirement it breaks; the tables below say where the types come from.
 * The rest of the request stays valid: a defect is applied to a valid body the caller supplies.
 */

/** A field's type as the document gives it. */
export type FieldType = 'string' | 'boolean' | 'array-of-strings';

export interface FieldSpec {
  type: FieldType;
  /** The document marks it required: leaving it out is a defect. */
  required: boolean;
  /** The document allows null ("string or null"). */
  nullable: boolean;
  /** The document forbids an empty value (`to`: non-empty). */
  nonEmpty?: boolean;
  /** The requirement a missing field breaks, when that is not the table's own. */
  missingBreaks?: string;
  /** The requirement an empty value breaks, when that is not the table's own. */
  emptyBreaks?: string;
}

export type DefectKind = 'missing' | 'wrong-type' | 'null' | 'scalar-for-array' | 'empty';

/** A field of one operation broken one way, and the requirement that says it is a defect. */
export interface FieldDefect {
  field: string;
  kind: DefectKind;
  /** The value put in the field's place; absent when the defect is the field's absence. */
  value?: unknown;
  requirementId: string;
  /** How the defect reads in a title or a failure: `to: "+12025550100" (a scalar where an array is required)`. */
  label: string;
}

/** One operation's fields, and the requirement a field of the wrong type breaks. */
export interface FieldTable {
  operation: 'send' | 'update' | 'search' | 'token';
  /** The requirement every defect breaks unless its field names another. */
  requirementId: string;
  fields: Readonly<Record<string, FieldSpec>>;
}

/**
 * Section 4.6's table. Missing fields and an empty `to` have their own entries; every other
 * type defect is SEND-016. `media` is left to SEND-002/SEND-003: present on an SMS it is a
 * defect whatever its type, and its element shape is not shown.
 */
export const SEND_FIELDS: FieldTable = {
  operation: 'send',
  requirementId: 'SEND-016',
  fields: {
    sendFrom: { type: 'string', required: true, nullable: false, missingBreaks: 'SEND-014' },
    to: { type: 'array-of-strings', required: true, nullable: false, nonEmpty: true, missingBreaks: 'SEND-014', emptyBreaks: 'SEND-011' },
    messageType: { type: 'string', required: true, nullable: false, missingBreaks: 'SEND-014' },
    text: { type: 'string', required: false, nullable: false },
    externalReference: { type: 'string', required: true, nullable: false, missingBreaks: 'SEND-013' },
  },
};

/** Section 2 and 4.5: the settable attributes, all optional. */
export const UPDATE_FIELDS: FieldTable = {
  operation: 'update',
  requirementId: 'UPD-005',
  fields: {
    campaignregId: { type: 'string', required: false, nullable: true },
    smsEnabled: { type: 'boolean', required: false, nullable: false },
    mmsEnabled: { type: 'boolean', required: false, nullable: false },
    webhookInboundOverride: { type: 'string', required: false, nullable: true },
    webhookDeliveryOverride: { type: 'string', required: false, nullable: true },
  },
};

/** Section 4.4: "all strings"; which are required is not shown, so none is left out. */
export const SEARCH_FIELDS: FieldTable = {
  operation: 'search',
  requirementId: 'SEARCH-003',
  fields: Object.fromEntries(['npa', 'nxx', 'city', 'state', 'zipCode', 'rateCenter'].map((f) => [f, { type: 'string', required: false, nullable: false }])),
};

/**
 * Section 4.1 (JSON body): the three parameters are strings. Missing ones are TOKEN-009; null
 * counts as empty, which RFC 6749 3.2 reads as absent, so it is a missing parameter too.
 */
export const TOKEN_FIELDS: FieldTable = {
  operation: 'token',
  requirementId: 'TOKEN-112',
  fields: {
    grant_type: { type: 'string', required: false, nullable: false },
    client_id: { type: 'string', required: false, nullable: false },
    client_secret: { type: 'string', required: false, nullable: false },
  },
};

/**
 * Values of another JSON type than `type`, one per JSON type plus the lookalikes a lenient
 * server coerces ("true" for a boolean, 202 for a string of digits, a one-element array).
 */
const OTHER_TYPES: Readonly<Record<FieldType, readonly unknown[]>> = {
  string: [202, 1.5, true, {}, ['202']],
  boolean: ['true', 'false', 1, 0, {}, [true]],
  'array-of-strings': [1, true, {}],
};

const show = (value: unknown) => JSON.stringify(value);

/**
 * Every single-field type defect of `table`, in field order. `sample` gives valid values: a
 * scalar where an array is required is one of the array's valid elements, and a string field's
 * array lookalike wraps its valid value.
 */
export function fieldDefects(table: FieldTable, sample: object = {}): FieldDefect[] {
  return Object.entries(table.fields).flatMap(([field, spec]): FieldDefect[] => {
    const typed = (kind: DefectKind, value: unknown, why: string, requirementId = table.requirementId): FieldDefect => ({
      field,
      kind,
      value,
      requirementId,
      label: `${field}: ${show(value)} (${why})`,
    });
    const defects: FieldDefect[] = [];
    if (spec.required) defects.push({ field, kind: 'missing', requirementId: spec.missingBreaks ?? table.requirementId, label: `${field} missing (required)` });
    const validValue = (sample as Record<string, unknown>)[field];
    // A string field's array lookalike wraps its own valid value, which a lenient server unwraps.
    const others = spec.type === 'string' && typeof validValue === 'string' ? OTHER_TYPES.string.map((v) => (Array.isArray(v) ? [validValue] : v)) : OTHER_TYPES[spec.type];
    for (const value of others) defects.push(typed('wrong-type', value, `${Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value} where the type is ${spec.type}`));
    if (!spec.nullable) defects.push(typed('null', null, 'null where the document does not allow it'));
    if (spec.type === 'array-of-strings') {
      const element = Array.isArray(validValue) && typeof validValue[0] === 'string' ? validValue[0] : 'x';
      defects.push(typed('scalar-for-array', element, 'a scalar where an array is required'));
      if (spec.nonEmpty) defects.push(typed('empty', [], 'empty where the document requires at least one', spec.emptyBreaks ?? table.requirementId));
    }
    return defects;
  });
}

/** `valid` with one defect applied: the field removed or its value replaced. */
export function applyFieldDefect(valid: object, defect: FieldDefect): Record<string, unknown> {
  const { [defect.field]: _replaced, ...rest } = valid as Record<string, unknown>;
  return defect.kind === 'missing' ? rest : { ...rest, [defect.field]: defect.value };
}

/** The defects of `table` that break `requirementId`. */
export function defectsBreaking(table: FieldTable, requirementId: string, sample: object = {}): FieldDefect[] {
  return fieldDefects(table, sample).filter((d) => d.requirementId === requirementId);
}

/** A valid body with one defect applied: what a field-defect property draws. */
export interface FieldDefectCase<T> {
  valid: T;
  defect: FieldDefect;
  body: Record<string, unknown>;
}

/** A valid body drawn from `valid` with one of `defects` applied, as a property input. */
export function fieldDefectCase<T extends object>(valid: fc.Arbitrary<T>, defects: readonly FieldDefect[]): fc.Arbitrary<FieldDefectCase<T>> {
  if (defects.length === 0) throw new Error('fieldDefectCase: no defects to apply');
  return fc.tuple(valid, fc.constantFrom(...defects)).map(([v, defect]) => ({ valid: v, defect, body: applyFieldDefect(v, defect) }));
}

/**
 * Every defect applied once to `base`, as fast-check `examples` (run before the random draws),
 * so a quick run still tries each defect whatever the seed.
 */
export function everyDefectOnce<T extends object>(base: T, defects: readonly FieldDefect[]): Array<[FieldDefectCase<T>]> {
  return defects.map((defect) => [{ valid: base, defect, body: applyFieldDefect(base, defect) }]);
}
