import { test } from '@playwright/test';
import { NOT_APPLICABLE, NOT_TESTABLE } from './annotations.ts';
import type { Target } from './config.ts';

/**
 * Stop the test and report its requirements "not testable here" with the reason: a fixture or
 * hook the target does not offer. Never a pass.
 */
export function notTestable(reason: string): never {
  test.info().annotations.push({ type: NOT_TESTABLE, description: reason });
  test.skip(true, `not testable here: ${reason}`);
  throw new Error('unreachable: test.skip stops the test');
}

/**
 * Profile-level checks hold a target to the reference profile's choices, which the document
 * leaves open: they run only for a target that declares `profile: reference`.
 */
export function profileOnly(target: Target): void {
  if (target.profile === 'reference') return;
  const reason = 'a reference-profile choice; the target does not declare profile: reference';
  test.info().annotations.push({ type: NOT_APPLICABLE, description: reason });
  test.skip(true, `not run: ${reason}`);
}
