import { test, expect } from './helpers.ts';

// Section 5 and 7.2: every /api/core route needs a bearer token; every error is the CORE wrapper
// with a requestId that is also the x-request-id header; RFC 6750 3 challenges.

const CORE_ROUTES = [
  { method: 'GET', url: '/api/core/whoami' },
  { method: 'GET', url: '/api/core/numbers' },
  { method: 'POST', url: '/api/core/numbers/search', payload: {} },
  { method: 'PATCH', url: '/api/core/numbers/num_x', payload: {} },
  { method: 'POST', url: '/api/core/messages/send', payload: {} },
] as const;

function expectCoreError(response: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number, code: string) {
  expect(response.statusCode).toBe(status);
  const body = response.json();
  expect(body).toEqual({ error: { code, message: expect.any(String), details: expect.any(Object) }, requestId: expect.stringMatching(/^req_/) });
  expect(response.headers['x-request-id']).toBe(body.requestId);
}

test.describe('bearer authentication on core routes', () => {
  for (const route of CORE_ROUTES) {
    test(`${route.method} ${route.url} without a token is 401 with a bare Bearer challenge`, async ({ server }) => {
      const response = await server.app.inject({ method: route.method, url: route.url, ...('payload' in route ? { payload: route.payload } : {}) });
      expectCoreError(response, 401, 'UNAUTHORIZED');
      expect(response.headers['www-authenticate']).toBe('Bearer realm="api"');
    });

    test(`${route.method} ${route.url} with an unknown token is 401 invalid_token`, async ({ server }) => {
      const response = await server.app.inject({
        method: route.method,
        url: route.url,
        headers: { authorization: 'Bearer not-a-real-token' },
        ...('payload' in route ? { payload: route.payload } : {}),
      });
      expectCoreError(response, 401, 'UNAUTHORIZED');
      expect(response.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
    });
  }

  const malformed = ['Bearer', 'Bearer ', 'Basic abc', 'Token abc', 'Bearer a b', 'Bearer ä'];
  for (const authorization of malformed) {
    test(`a malformed Authorization header (${JSON.stringify(authorization)}) is 401`, async ({ server }) => {
      const response = await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization } });
      expectCoreError(response, 401, 'UNAUTHORIZED');
      expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="api"/);
    });
  }

  for (const authorization of ['Basic abc', 'Token abc']) {
    test(`another scheme (${JSON.stringify(authorization)}) is a lack of bearer credentials: no error code in the challenge (RFC 6750 3)`, async ({ server }) => {
      const response = await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization } });
      expectCoreError(response, 401, 'UNAUTHORIZED');
      expect(response.headers['www-authenticate']).toBe('Bearer realm="api"');
    });
  }

  test('a malformed Bearer header is a failed token: invalid_token in the challenge', async ({ server }) => {
    const response = await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: 'Bearer a b' } });
    expect(response.headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
  });

  test('the Bearer scheme name is case-insensitive (RFC 9110 11.1)', async ({ server }) => {
    const token = await server.token();
    const response = await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `bearer ${token}` } });
    expect(response.statusCode).toBe(200);
  });

  test('an expired token is 401 invalid_token', async ({ server }) => {
    const token = await server.token();
    const expire = await server.control('POST', '/_control/tokens/expire', { clientId: server.client('primary').clientId });
    expect(expire.json()).toEqual({ expired: 1 });
    const response = await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `Bearer ${token}` } });
    expectCoreError(response, 401, 'UNAUTHORIZED');
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  test('an unknown core path or method is 404 NOT_FOUND in the wrapper', async ({ server }) => {
    expectCoreError(await server.app.inject({ method: 'GET', url: '/api/core/nothing' }), 404, 'NOT_FOUND');
    expectCoreError(await server.app.inject({ method: 'DELETE', url: '/api/core/whoami' }), 404, 'NOT_FOUND');
  });

  test('a client-sent x-request-id is not echoed: the server assigns its own', async ({ server }) => {
    const response = await server.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { 'x-request-id': 'mine' } });
    expect(response.headers['x-request-id']).not.toBe('mine');
    expect(response.json().requestId).toBe(response.headers['x-request-id']);
  });
});
