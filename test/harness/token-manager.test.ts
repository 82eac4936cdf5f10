import { expect, test } from '@playwright/test';
import { TokenManager } from '../../harness/token-manager.ts';

// Section 5 rule 5 (AUTH-006), which the harness obeys as a client: one new token and one
// retry on an authentication failure, never a loop.
function managerCountingTokens(now = () => 0) {
  let issued = 0;
  const manager = new TokenManager({ obtain: async () => ({ accessToken: `t${++issued}`, expiresAt: 3_600_000 }), now });
  return { manager, issued: () => issued };
}

test('a 401 makes it obtain one new token and retry once with it', async () => {
  const { manager, issued } = managerCountingTokens();
  const seen: string[] = [];
  const answer = await manager.withToken(async (token) => {
    seen.push(token);
    return { status: seen.length === 1 ? 401 : 200 };
  });
  expect(answer.status).toBe(200);
  expect(seen).toEqual(['t1', 't2']);
  expect(issued()).toBe(2);
});

test('a 401 that persists is returned after one retry, not retried again', async () => {
  const { manager, issued } = managerCountingTokens();
  let attempts = 0;
  const answer = await manager.withToken(async () => {
    attempts++;
    return { status: 401 };
  });
  expect(answer.status).toBe(401);
  expect(attempts).toBe(2);
  expect(issued()).toBe(2);
});

test('a success needs no second token', async () => {
  const { manager, issued } = managerCountingTokens();
  await manager.withToken(async () => ({ status: 200 }));
  await manager.withToken(async () => ({ status: 204 }));
  expect(issued()).toBe(1);
});

test('a token close to expiry is renewed before use', async () => {
  let clock = 0;
  const { manager, issued } = managerCountingTokens(() => clock);
  expect(await manager.token()).toBe('t1');
  clock = 3_600_000 - 1_000; // inside the 5 s skew
  expect(await manager.token()).toBe('t2');
  expect(issued()).toBe(2);
});

test('concurrent callers share one token request', async () => {
  const { manager, issued } = managerCountingTokens();
  const tokens = await Promise.all(Array.from({ length: 10 }, () => manager.token()));
  expect(new Set(tokens).size).toBe(1);
  expect(issued()).toBe(1);
});

test('a failing token endpoint surfaces its error and is asked again next time', async () => {
  let calls = 0;
  const manager = new TokenManager({
    obtain: async () => {
      if (++calls === 1) throw new Error('token endpoint down');
      return { accessToken: 'ok', expiresAt: Date.now() + 60_000 };
    },
  });
  await expect(manager.token()).rejects.toThrow('token endpoint down');
  expect(await manager.token()).toBe('ok');
});

test('it tells the token it holds and when it obtained it, and nothing before the first', async () => {
  let now = 1_000;
  const manager = new TokenManager({ obtain: async () => ({ accessToken: `t${now}`, expiresAt: now + 60_000 }), now: () => now });
  expect(manager.held()).toBeUndefined();
  await manager.token();
  now = 5_000;
  expect(manager.held()).toEqual({ accessToken: 't1000', expiresAt: 61_000, obtainedAt: 1_000 });
  manager.invalidate();
  expect(manager.held()).toBeUndefined();
});

// TOKEN-011 behind the retry: a held token refused with more than the tolerance of its lifetime
// left is recorded, one refused at its end is not, and without a tolerance nothing is judged.
test('a held token refused 401 well within its lifetime is recorded as an early refusal; one refused at its end is not', async () => {
  let clock = 0;
  const manager = new TokenManager({ obtain: async () => ({ accessToken: `t${clock}`, expiresAt: clock + 10_000 }), now: () => clock, skewMs: 0, earlyToleranceMs: 1_500 });
  await manager.withToken(async () => ({ status: 200 }));
  clock = 3_000;
  await manager.withToken(async (token) => ({ status: token === 't0' ? 401 : 200 }));
  expect(manager.refusals).toEqual([{ obtainedAt: 0, expiresAt: 10_000, refusedAt: 3_000 }]);
  // The second token (t3000) lives until 13 000: refused at 12 000, within the tolerance of its end.
  clock = 12_000;
  await manager.withToken(async (token) => ({ status: token === 't3000' ? 401 : 200 }));
  expect(manager.refusals).toHaveLength(1);
  const lenient = new TokenManager({ obtain: async () => ({ accessToken: 'x', expiresAt: 10_000 }), now: () => 0 });
  await lenient.withToken(async () => ({ status: 401 }));
  expect(lenient.refusals, 'no tolerance given: nothing judged').toEqual([]);
});
