import { test, expect } from './helpers.ts';

// POST /api/auth/token: section 4.1, RFC 6749, profile token.*.

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id).replace(/%20/g, '+')}:${encodeURIComponent(secret).replace(/%20/g, '+')}`).toString('base64')}`;

test.describe('token endpoint', () => {
  test('issues a bearer token for JSON body credentials, with no-store and the configured lifetime', async ({ server }) => {
    const { clientId, clientSecret } = server.client('primary');
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.pragma).toBe('no-cache');
    const body = response.json();
    expect(body).toEqual({ access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), token_type: 'bearer', expires_in: 3600 });
  });

  test('issues a token for form-encoded body credentials', async ({ server }) => {
    const { clientId, clientSecret } = server.client('secondary');
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString(),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().token_type).toBe('bearer');
  });

  test('decodes HTTP Basic per RFC 6749 2.3.1 so ":" and "+" in id and secret survive', async ({ server }) => {
    const { clientId, clientSecret } = server.client('special');
    expect(clientId).toContain(':');
    expect(clientSecret).toContain('+');
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: { authorization: basic(clientId, clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials',
    });
    expect(response.statusCode).toBe(200);
  });

  test('a Basic secret sent without form-encoding ("+" read as a space) fails as invalid_client', async ({ server }) => {
    const { clientId, clientSecret } = server.client('special');
    const raw = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${clientSecret}`).toString('base64')}`;
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      headers: { authorization: raw },
      payload: { grant_type: 'client_credentials' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('invalid_client');
  });

  const failures: Array<{ name: string; status: number; error: string; request: (c: { clientId: string; clientSecret: string }) => { headers?: Record<string, string>; payload?: string | object; url?: string } }> = [
    { name: 'a wrong secret', status: 401, error: 'invalid_client', request: (c) => ({ payload: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: 'wrong' } }) },
    { name: 'an unknown client', status: 401, error: 'invalid_client', request: () => ({ payload: { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' } }) },
    { name: 'a wrong Basic secret', status: 401, error: 'invalid_client', request: (c) => ({ headers: { authorization: basic(c.clientId, 'nope') }, payload: { grant_type: 'client_credentials' } }) },
    { name: 'a Bearer header instead of client authentication', status: 401, error: 'invalid_client', request: () => ({ headers: { authorization: 'Bearer abc' }, payload: { grant_type: 'client_credentials' } }) },
    { name: 'an undecodable Basic header', status: 401, error: 'invalid_client', request: () => ({ headers: { authorization: 'Basic ####' }, payload: { grant_type: 'client_credentials' } }) },
    { name: 'a missing grant_type', status: 400, error: 'invalid_request', request: (c) => ({ payload: { client_id: c.clientId, client_secret: c.clientSecret } }) },
    { name: 'an unsupported grant_type', status: 400, error: 'unsupported_grant_type', request: (c) => ({ payload: { grant_type: 'password', client_id: c.clientId, client_secret: c.clientSecret } }) },
    { name: 'a missing client_secret', status: 400, error: 'invalid_request', request: (c) => ({ payload: { grant_type: 'client_credentials', client_id: c.clientId } }) },
    { name: 'an empty client_secret (empty counts as absent)', status: 400, error: 'invalid_request', request: (c) => ({ payload: { grant_type: 'client_credentials', client_id: c.clientId, client_secret: '' } }) },
    { name: 'no body at all', status: 400, error: 'invalid_request', request: () => ({}) },
    { name: 'Basic and body credentials together', status: 400, error: 'invalid_request', request: (c) => ({ headers: { authorization: basic(c.clientId, c.clientSecret) }, payload: { grant_type: 'client_credentials', client_secret: c.clientSecret } }) },
    {
      name: 'a repeated parameter',
      status: 400,
      error: 'invalid_request',
      request: (c) => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&client_id=${encodeURIComponent(c.clientId)}&client_id=x&client_secret=${encodeURIComponent(c.clientSecret)}` }),
    },
    { name: 'credentials in the URI', status: 400, error: 'invalid_request', request: (c) => ({ url: `/api/auth/token?client_id=${c.clientId}&client_secret=${c.clientSecret}`, payload: { grant_type: 'client_credentials' } }) },
    { name: 'malformed JSON', status: 400, error: 'invalid_request', request: () => ({ headers: { 'content-type': 'application/json' }, payload: '{"grant_type":' }) },
    { name: 'a non-string client_id', status: 400, error: 'invalid_request', request: () => ({ payload: { grant_type: 'client_credentials', client_id: 7, client_secret: 'x' } }) },
    { name: 'a JSON array body', status: 400, error: 'invalid_request', request: () => ({ headers: { 'content-type': 'application/json' }, payload: '[1]' }) },
    { name: 'an unsupported content type', status: 400, error: 'invalid_request', request: () => ({ headers: { 'content-type': 'text/plain' }, payload: 'grant_type=client_credentials' }) },
    { name: 'an oversized body', status: 413, error: 'invalid_request', request: () => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&pad=${'x'.repeat(20_000)}` }) },
  ];

  for (const failure of failures) {
    test(`answers ${failure.name} with ${failure.status} ${failure.error} in the OAuth body`, async ({ server }) => {
      const { headers, payload, url } = failure.request(server.client('primary'));
      const response = await server.app.inject({ method: 'POST', url: url ?? '/api/auth/token', headers, payload });
      expect(response.statusCode).toBe(failure.status);
      expect(response.json()).toEqual({ error: failure.error, error_description: expect.any(String) });
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers.pragma).toBe('no-cache');
      if (failure.status === 401) expect(response.headers['www-authenticate']).toBe('Basic realm="token"');
      else expect(response.headers['www-authenticate']).toBeUndefined();
    });
  }

  test('answers other methods with 405 and Allow: POST', async ({ server }) => {
    const response = await server.app.inject({ method: 'GET', url: '/api/auth/token' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(response.json().error).toBe('invalid_request');
  });

  test('stores tokens only as hashes', async ({ server }) => {
    const token = await server.token('primary');
    const rows = server.query<{ token_hash: string }>('SELECT token_hash FROM tokens');
    expect(rows.length).toBe(1);
    expect(rows[0]!.token_hash).not.toContain(token);
    const secrets = server.query<{ secret_hash: string }>('SELECT secret_hash FROM clients');
    for (const { secret_hash } of secrets) expect(secret_hash).toMatch(/^scrypt\$/);
  });
});

test.describe('token lifetime', () => {
  test.use({ serverOptions: { tokenTtlSeconds: 120 } });

  test('expires_in follows the configured token lifetime', async ({ server }) => {
    const { clientId, clientSecret } = server.client('primary');
    const response = await server.app.inject({
      method: 'POST',
      url: '/api/auth/token',
      payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
    });
    expect(response.json().expires_in).toBe(120);
  });
});
