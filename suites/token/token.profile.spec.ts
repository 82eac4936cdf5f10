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
});
