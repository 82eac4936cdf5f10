import { expect, test } from '@playwright/test';
import { bearerChallenge, malformedParts } from '../../suites/support/challenge.ts';

// WWW-Authenticate read as RFC 9110 11.6.1 writes it (AUTH-101..AUTH-103 read the Bearer challenge
// through it): the parts its grammar does not take are named, and the rest still parses.
test.describe('malformedParts', () => {
  test('well-formed challenges have none: quoted strings with escapes and commas, token values, token68, empty list elements, several challenges', () => {
    for (const value of [
      'Bearer realm="messaging"',
      'Bearer realm="messaging", error="invalid_token", error_description="the token \\"t1\\" expired, get another"',
      'Bearer error=invalid_token',
      'Basic dGVzdDp0ZXN0==',
      'Bearer realm="a", , Basic realm="b"',
      'Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple"',
    ]) {
      expect(malformedParts(value), value).toEqual([]);
    }
  });
  test('a quote not escaped inside a quoted string, a quoted string left open, two params without a comma and a bare word are each named', () => {
    const unescaped = 'Bearer realm="messaging", error="invalid_token", error_description="token "expired""';
    expect(malformedParts(unescaped)).toEqual(['error_description="token "expired""']);
    // The lenient reading still finds the error code, which is why the grammar is checked apart.
    expect(bearerChallenge(unescaped)?.params.error).toBe('invalid_token');
    expect(malformedParts('Bearer realm="messaging')).toContain('a quoted string left open: Bearer realm="messaging');
    expect(malformedParts('Bearer realm="a" error="invalid_token"')).toEqual(['Bearer realm="a" error="invalid_token"']);
    expect(malformedParts('Bearer realm="a", =oops')).toEqual(['=oops']);
  });
});
