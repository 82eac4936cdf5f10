// What the harness gives real suites, reduced to what the fixture suite needs: the
// not-testable skip and the evidence attachment, shaped as ARCHITECTURE.md describes them.
import { test } from '@playwright/test';

export function notTestable(reason: string): void {
  test.info().annotations.push({ type: 'not-testable', description: reason });
  test.skip(true, reason);
}

export async function attachEvidence(exchanges: unknown): Promise<void> {
  await test.info().attach('evidence', { body: JSON.stringify(exchanges), contentType: 'application/json' });
}

/** FIXTURE_BREAK=FIX-008 makes that requirement's test fail: a regression on demand. */
export const broken = (id: string): boolean => (process.env.FIXTURE_BREAK ?? '').split(',').includes(id);

// A raw credential that must never reach a report file (the reporter redacts it).
export const LEAKY_TOKEN = 'sekret-bearer-7d1f0c';
export const LEAKY_CLIENT_SECRET = 'sekret-client-93ab';
