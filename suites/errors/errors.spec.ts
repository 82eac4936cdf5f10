import type { ApiResponse } from '../../harness/api-client.ts';
import { expect, test } from '../../harness/fixtures.ts';
import { BODY_OPERATIONS, CORE_OPERATIONS, acceptedRequestFor, requestFor } from '../support/core-routes.ts';
import { ERROR_PROBES, MALFORMED_JSON, malformedRequest } from './error-probes.ts';

// Section 7.2 (the CORE wrapper and its status table) and 7.3 (malformed JSON is a request
// defect), over errors provoked on every core route. Which 4xx a route picks where the
// document is silent is left open: these tests read the form of the answer.

/** Section 7.2's table: each status and the code it goes with. */
const TABLE: Readonly<Record<number, string>> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  500: 'SERVER_ERROR',
  502: 'UPSTREAM_ERROR',
};

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function expectWrapper(res: ApiResponse, id: string, what: string): void {
  const body = res.body;
  const shown = res.text.slice(0, 300);
  expect(res.status, `${id}: ${what} is answered with an error status; got ${res.describe()}`).toBeGreaterThanOrEqual(400);
  expect(isPlainObject(body), `${id}: ${what}: the body is a JSON object; body ${shown}`).toBe(true);
  expect(isPlainObject(body.error), `${id}: ${what}: error is an object; body ${shown}`).toBe(true);
  expect.soft(typeof body.error.code === 'string' && body.error.code !== '', `${id}: ${what}: error.code is a non-empty string; body ${shown}`).toBe(true);
  expect.soft(typeof body.error.message, `${id}: ${what}: error.message is a string; body ${shown}`).toBe('string');
  expect.soft(isPlainObject(body.error.details), `${id}: ${what}: error.details is an object (it may be empty); body ${shown}`).toBe(true);
  expect.soft(typeof body.requestId === 'string' && body.requestId !== '', `${id}: ${what}: requestId is a non-empty string; body ${shown}`).toBe(true);
}

test.describe('7.2 The CORE error wrapper', () => {
  for (const probe of ERROR_PROBES) {
    test(`${probe.name} is answered in the CORE wrapper`, { tag: ['@ERR-001'] }, async ({ api, target, knownNumbers, newKey }) => {
      const res = await api.call(probe.op, await probe.build({ api, target, knownNumbers, newKey }));
      expectWrapper(res, 'ERR-001', probe.name);
    });
  }
});

test.describe('7.2 Status and error.code agree with the table', () => {
  for (const probe of ERROR_PROBES) {
    test(`${probe.name}: the status and error.code agree with the section 7.2 table`, { tag: ['@ERR-002'] }, async ({ api, target, knownNumbers, newKey }) => {
      const res = await api.call(probe.op, await probe.build({ api, target, knownNumbers, newKey }));
      expect(res.status, `ERR-002: ${probe.name} is answered with an error status; got ${res.describe()}`).toBeGreaterThanOrEqual(400);
      const code: unknown = res.body?.error?.code;
      const expectedCode = TABLE[res.status];
      if (expectedCode !== undefined) {
        expect(code, `ERR-002: status ${res.status} goes with error.code ${expectedCode}`).toBe(expectedCode);
      }
      const statusOfCode = Object.entries(TABLE).find(([, c]) => c === code)?.[0];
      if (statusOfCode !== undefined) {
        expect(res.status, `ERR-002: error.code ${String(code)} goes with status ${statusOfCode}`).toBe(Number(statusOfCode));
      }
      // A status outside the table with a code outside it is allowed: the codes are patterns and
      // a route need not emit every one, so only the table's pairs are held together.
    });
  }
});

// Section 7.2: requestId is "to be recorded for support", so it names one request: a support
// desk given it must find that failure and no other.
test.describe('7.2 Each error names its own request', () => {
  test('every error answer carries a requestId no other answer carries, even for the same request sent twice', { tag: ['@ERR-006'] }, async ({ api, target, knownNumbers, newKey }) => {
    const seen = new Map<string, string>();
    for (const probe of ERROR_PROBES) {
      for (const attempt of ['first', 'second']) {
        const res = await api.call(probe.op, await probe.build({ api, target, knownNumbers, newKey }));
        const requestId: unknown = res.body?.requestId;
        if (typeof requestId !== 'string') continue; // Its form is ERR-001's to judge.
        const what = `${probe.name} (${attempt})`;
        expect(seen.get(requestId), `ERR-006: ${what} carries requestId ${requestId}, already given to another answer`).toBeUndefined();
        seen.set(requestId, what);
      }
    }
    expect(seen.size, 'ERR-006: the error answers carry requestIds to compare').toBeGreaterThan(1);
  });
});

test.describe('7.3 Malformed JSON is a request defect', () => {
  for (const op of BODY_OPERATIONS) {
    for (const { name, spoil } of MALFORMED_JSON) {
      test(`${op} answers ${name} as a request defect in the CORE wrapper, never a 5xx`, { tag: ['@ERR-003'] }, async ({ api, target, knownNumbers, newKey }) => {
        const res = await api.call(op, await malformedRequest(op, { api, target, knownNumbers, newKey }, spoil));
        expect(res).toBeRequestDefect(`ERR-003: ${op} with ${name}`);
        expectWrapper(res, 'ERR-003', `${op} with ${name}`);
      });
    }
  }
});

test.describe('4: response bodies are JSON', () => {
  function expectJson(res: ApiResponse, what: string): void {
    if (res.text === '') return; // No body (a 204, or an update that answers with none) has no media type to check.
    expect(res.headers['content-type'] ?? '', `ERR-004: ${what}: Content-Type is application/json; got ${res.describe()}`).toMatch(/^application\/(?:[\w.+-]+\+)?json\b/i);
    expect(() => JSON.parse(res.text), `ERR-004: ${what}: the body parses as JSON`).not.toThrow();
  }

  for (const op of CORE_OPERATIONS) {
    test(`a successful answer of ${op} is JSON`, { tag: ['@ERR-004'] }, async ({ api, target, knownNumbers, newKey }) => {
      const res = await api.call(op, await acceptedRequestFor(op, { api, target, knownNumbers, newKey }));
      expect(res).toSucceed(`ERR-004: precondition: ${op} answers 2xx`);
      expectJson(res, `${op} success`);
    });

    test(`an error answer of ${op} is JSON`, { tag: ['@ERR-004'] }, async ({ api, target, knownNumbers, newKey }) => {
      const res = await api.call(op, { ...(await requestFor(op, { api, target, knownNumbers, newKey })), as: 'none' });
      expect(res.status, `ERR-004: precondition: ${op} without a token is an error; got ${res.describe()}`).toBeGreaterThanOrEqual(400);
      expectJson(res, `${op} without a token`);
    });
  }
});
