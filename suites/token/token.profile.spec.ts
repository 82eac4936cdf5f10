import { expect, profileOnly, test } from '../../harness/fixtures.ts';
import { failingClient } from './failing-clients.ts';

// The reference profile's answers for the token endpoint (spec/profile.yaml token.*).
test.describe('profile: token endpoint', () => {
  test.beforeEach(({ target }) => profileOnly(target));

  test('invalid_client is 401 with a Basic challenge, whatever the authentication method', { tag: ['@TOKEN-201'] }, async ({ api, target }) => {
    const res = await api.call('token', { json: { grant_type: 'client_credentials', client_id: failingClient(target, 6).clientId, client_secret: 'wrong' } });
    expect(res).toHaveStatus(401, 'TOKEN-201: invalid_client with body credentials is 401');
    expect(res.headers['www-authenticate'] ?? '', 'TOKEN-201: the challenge names Basic').toMatch(/^\s*basic\b/i);
  });

  test('every token answer carries Cache-Control: no-store and Pragma: no-cache', { tag: ['@TOKEN-202'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    // Independent requests: they go out together.
    const answers = await Promise.all([
      api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } }),
      api.call('token', { json: { grant_type: 'password', client_id: clientId, client_secret: clientSecret } }),
      api.call('token', { json: { grant_type: 'client_credentials', client_id: failingClient(target, 7).clientId, client_secret: 'wrong' } }),
    ]);
    for (const res of answers) {
      expect(res.headers['cache-control'] ?? '', `TOKEN-202: ${res.describe()} Cache-Control`).toMatch(/no-store/i);
      expect(res.headers['pragma'] ?? '', `TOKEN-202: ${res.describe()} Pragma`).toMatch(/no-cache/i);
    }
  });

  // The body carries valid credentials too: the query's copy alone must decide the refusal.
  test('client credentials in the query string are 400 invalid_request, and no token is issued', { tag: ['@TOKEN-203'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const grant = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
    const answers = await Promise.all([
      api.call('token', { json: grant, query: { client_secret: clientSecret } }),
      api.call('token', { form: grant, query: { client_id: clientId, client_secret: clientSecret } }),
    ]);
    for (const res of answers) {
      expect(res).toBeOAuthError('invalid_request', `TOKEN-203: ${res.describe()}: credentials in the URI are invalid_request`);
      expect(res.status, `TOKEN-203: ${res.describe()} is 400`).toBe(400);
      expect(res.body?.access_token, `TOKEN-203: ${res.describe()} issues no token`).toBeUndefined();
    }
  });

  test('GET, PUT and DELETE at the token path are 405 invalid_request with Allow: POST', { tag: ['@TOKEN-204'] }, async ({ api }) => {
    const answers = await Promise.all(['GET', 'PUT', 'DELETE'].map((method) => api.call('token', { method })));
    for (const res of answers) {
      expect(res).toBeOAuthError('invalid_request', 'TOKEN-204: another method at the token path is invalid_request');
      expect(res.status, `TOKEN-204: ${res.describe()} is 405`).toBe(405);
      expect(res.headers['allow'] ?? '', `TOKEN-204: ${res.describe()} carries Allow: POST`).toMatch(/^\s*POST\s*$/i);
    }
  });
});
