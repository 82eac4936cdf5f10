import { expect, test } from '@playwright/test';
import type { ApiResponse } from '../../harness/api-client.ts';
import type { Target } from '../../harness/config.ts';
import { routeRequested } from '../../suites/support/core-routes.ts';

// The profile's route checks (CTX-201, NUM-201, SEARCH-201, UPD-201) compare the route a request
// used with the profile's; a baseUrl with a path of its own is not part of the route.
const answered = (url: string, method = 'GET') => ({ request: { method, url, headers: {} } }) as unknown as ApiResponse;
const at = (baseUrl: string) => ({ baseUrl }) as Target;

test.describe('routeRequested', () => {
  test('a baseUrl without a path: the whole path, without the query', () => {
    expect(routeRequested(at('http://127.0.0.1:8080'), answered('http://127.0.0.1:8080/api/core/whoami?x=1'))).toBe('GET /api/core/whoami');
  });
  test("a baseUrl with a path, with or without a trailing slash: the route after it", () => {
    for (const base of ['https://api.example.com/sandbox', 'https://api.example.com/sandbox/']) {
      expect(routeRequested(at(base), answered('https://api.example.com/sandbox/api/core/numbers/n%201', 'PATCH'))).toBe('PATCH /api/core/numbers/n%201');
    }
  });
  test("a path outside the baseUrl's is shown whole", () => {
    expect(routeRequested(at('https://api.example.com/sandbox'), answered('https://api.example.com/api/core/whoami'))).toBe('GET /api/core/whoami');
  });
});
