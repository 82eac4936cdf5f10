import { test, expect } from '@playwright/test';
import { contractAjv, validatorAt } from './contract-ajv.ts';
import { operations, responseSchemaPointer } from './openapi-locations.ts';
import { OPENAPI_PATH, readYaml, type Json } from './spec-files.ts';

// The schemas catch real violations. Each case starts from a body the schema accepts and breaks
// one thing, so a failure here means the schema lost that rule, not that the sample was off.
const doc = readYaml(OPENAPI_PATH);
const ajv = contractAjv(doc);

function coreError(code: string, details: Json = {}): { error: { code: string; message: string; details: Json }; requestId?: string } {
  return { error: { code, message: 'human-readable', details }, requestId: 'req_01' };
}

function check(pointer: string, body: unknown): { valid: boolean; errors: string } {
  const validate = validatorAt(ajv, pointer);
  const valid = validate(body) === true;
  return { valid, errors: JSON.stringify(validate.errors) };
}

test('a CORE error without requestId is refused (section 7.2)', () => {
  const pointer = '/components/schemas/CoreError';
  const body = coreError('NOT_FOUND');
  expect(check(pointer, body).valid).toBe(true);
  delete body.requestId;
  const result = check(pointer, body);
  expect(result.valid).toBe(false);
  expect(result.errors).toContain('requestId');
});

test('a 502 without details.providerStatus is refused (sections 4.4 and 7.2)', () => {
  const pointer = responseSchemaPointer(doc, 'search', '502');
  expect(check(pointer, coreError('UPSTREAM_ERROR', { providerStatus: 503 })).valid).toBe(true);
  const result = check(pointer, coreError('UPSTREAM_ERROR', {}));
  expect(result.valid).toBe(false);
  expect(result.errors).toContain('providerStatus');
});

test('a 401 with code INVALID_REQUEST is refused (section 7.2 table)', () => {
  const pointer = responseSchemaPointer(doc, 'whoami', '401');
  expect(check(pointer, coreError('UNAUTHORIZED')).valid).toBe(true);
  const result = check(pointer, coreError('INVALID_REQUEST'));
  expect(result.valid).toBe(false);
  expect(result.errors).toContain('UNAUTHORIZED');
});

test('a token response without expires_in is refused (section 4.1)', () => {
  const pointer = responseSchemaPointer(doc, 'token', '2XX');
  const body: Record<string, unknown> = { access_token: 'opaque', token_type: 'Bearer', expires_in: 3600 };
  expect(check(pointer, body).valid).toBe(true);
  delete body.expires_in;
  const result = check(pointer, body);
  expect(result.valid).toBe(false);
  expect(result.errors).toContain('expires_in');
});

test('a send response without errors is refused (section 4.6)', () => {
  const pointer = responseSchemaPointer(doc, 'send', '2XX');
  const body: Record<string, unknown> = { results: [{ messageId: 'msg_1', status: 'QUEUED' }], errors: [] };
  expect(check(pointer, body).valid).toBe(true);
  delete body.errors;
  const result = check(pointer, body);
  expect(result.valid).toBe(false);
  expect(result.errors).toContain('errors');
});

test('a send request with an empty `to` or a non-E.164 recipient is refused (section 4.6)', () => {
  const pointer = '/components/schemas/SendRequest';
  const body = { sendFrom: 'num_01', to: ['+12025550123'], messageType: 'SMS', externalReference: 'r-1' };
  expect(check(pointer, body).valid).toBe(true);
  expect(check(pointer, { ...body, to: [] }).valid).toBe(false);
  expect(check(pointer, { ...body, to: ['202-555-0123'] }).valid).toBe(false);
  expect(check(pointer, { ...body, messageType: 'FAX' }).valid).toBe(false);
});

// Section 7.2: on every core route, each status of the table takes its own code and no other.
const TABLE: Record<string, string> = {
  '400': 'INVALID_REQUEST',
  '401': 'UNAUTHORIZED',
  '403': 'FORBIDDEN',
  '404': 'NOT_FOUND',
  '409': 'CONFLICT',
  '500': 'SERVER_ERROR',
  '502': 'UPSTREAM_ERROR',
};
for (const { operationId } of operations(doc).filter((o) => o.path.startsWith('/api/core/'))) {
  test(`${operationId}: each status of the 7.2 table answers its code, and only that code`, () => {
    for (const [status, code] of Object.entries(TABLE)) {
      const pointer = responseSchemaPointer(doc, operationId, status);
      const details: Json = code === 'UPSTREAM_ERROR' ? { providerStatus: 503 } : {};
      expect(check(pointer, coreError(code, details)).valid, `${status} ${code}`).toBe(true);
      const other = status === '400' ? 'FORBIDDEN' : 'INVALID_REQUEST';
      expect(check(pointer, coreError(other, details)).valid, `${status} refuses ${other}`).toBe(false);
    }
  });
}
