import { test, expect } from '@playwright/test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { deref, resolvePointer } from './pointer.ts';
import { operationById, operations } from './openapi-locations.ts';
import { isObject, OPENAPI_PATH, readYaml, type Json } from './spec-files.ts';

// The OpenAPI document as a whole: valid OpenAPI 3.1, and holding what section 4 of the
// interface document fixes (operations, paths where shown, headers, security, error contracts).
const doc = readYaml(OPENAPI_PATH);

test('openapi.yaml is a valid OpenAPI 3.1 document', async () => {
  const validator = new Validator();
  const result = await validator.validate(doc);
  expect(result.errors ?? [], 'errors from the OpenAPI 3.1 schema').toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
});

test('the OpenAPI 3.1 validator rejects a broken copy (so the check above can fail)', async () => {
  const broken = structuredClone(doc);
  if (isObject(broken.info)) delete broken.info.title;
  const result = await new Validator().validate(broken);
  expect(result.valid).toBe(false);
});

test('info.version is the interface version 0.2.0 (section 9)', () => {
  expect(isObject(doc.info) && doc.info.version).toBe('0.2.0');
});

test('every operation of section 4 exists once, with its operationId', () => {
  const ids = operations(doc).map((o) => o.operationId).sort();
  expect(ids).toEqual(['numbers', 'search', 'send', 'token', 'update', 'whoami']);
});

test('the methods and paths the document shows are the ones written', () => {
  const shown = (id: string) => { const o = operationById(doc, id); return `${o.method.toUpperCase()} ${o.path}`; };
  // Sections 4.1 and 4.6 show method and path; 4.2 and 4.3 show the path only.
  expect(shown('token')).toBe('POST /api/auth/token');
  expect(shown('send')).toBe('POST /api/core/messages/send');
  expect(operationById(doc, 'whoami').path).toBe('/api/core/whoami');
  expect(operationById(doc, 'numbers').path).toBe('/api/core/numbers');
  expect(operationById(doc, 'search').path).toMatch(/^\/api\/core\//);
  // Section 4.5: the path carries the required string parameter numberId.
  const update = operationById(doc, 'update');
  expect(update.path).toMatch(/^\/api\/core\/.*\{numberId\}/);
  const params = (update.operation.parameters ?? []) as Json[];
  expect(params).toContainEqual(expect.objectContaining({ name: 'numberId', in: 'path', required: true, schema: expect.objectContaining({ type: 'string' }) }));
});

test('send requires the Idempotency-Key header (section 4.6 rule 1)', () => {
  const params = ((operationById(doc, 'send').operation.parameters ?? []) as Json[]).map((p) => deref(doc, p).node);
  const key = params.find((p) => isObject(p) && p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key');
  expect(key, 'an Idempotency-Key header parameter').toBeDefined();
  expect(isObject(key) && key.required).toBe(true);
});

test('the token request is accepted as JSON and as form-encoded fields (section 4.1)', () => {
  const content = resolvePointer(doc, `${operationById(doc, 'token').pointer}/requestBody/content`);
  expect(Object.keys(isObject(content) ? content : {}).sort()).toEqual(['application/json', 'application/x-www-form-urlencoded']);
});

test('core routes require the bearer token; the token endpoint takes HTTP Basic or none (section 5)', () => {
  const schemes = resolvePointer(doc, '/components/securitySchemes');
  expect(schemes).toMatchObject({ clientBasic: { type: 'http', scheme: 'basic' }, bearerToken: { type: 'http', scheme: 'bearer' } });
  for (const op of operations(doc)) {
    // An operation's own `security` replaces the top-level one (OpenAPI 3.1, Operation Object).
    const effective = op.operation.security ?? doc.security;
    if (op.path.startsWith('/api/core/')) expect(effective, `${op.operationId} security`).toEqual([{ bearerToken: [] }]);
    else expect(effective, 'token security: Basic, or credentials in the body').toEqual([{ clientBasic: [] }, {}]);
  }
});

test('both error contracts of section 7 are reusable schemas', () => {
  expect(resolvePointer(doc, '/components/schemas/OAuthError')).toMatchObject({ type: 'object', required: expect.arrayContaining(['error']) });
  expect(resolvePointer(doc, '/components/schemas/CoreError')).toMatchObject({
    type: 'object',
    required: expect.arrayContaining(['error', 'requestId']),
    properties: { error: { required: expect.arrayContaining(['code', 'message', 'details']) } },
  });
  // The token endpoint's errors are the OAuth body, never the wrapper.
  expect(resolvePointer(doc, `${operationById(doc, 'token').pointer}/responses/4XX/content/application~1json/schema`)).toEqual({ $ref: '#/components/schemas/OAuthError' });
});

test('every error answer of a core route is the CORE wrapper', () => {
  for (const op of operations(doc).filter((o) => o.path.startsWith('/api/core/'))) {
    const responses = op.operation.responses;
    expect(isObject(responses)).toBe(true);
    for (const [status, response] of Object.entries(isObject(responses) ? responses : {})) {
      if (!/^[45]/.test(status)) continue;
      const text = JSON.stringify(deref(doc, response).node);
      expect(text, `${op.operationId} ${status} names the CORE wrapper`).toContain('#/components/schemas/CoreError');
    }
  }
});
