import { expect, test } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlTokenActions, EarlyTokenRefusals, recordControlTokenAction, refusalsNotCaused } from '../../harness/token-refusals.ts';

// The refusals of held tokens reported against TOKEN-011 are the server's: a control-plane action
// on the client's tokens, in any worker, between the token's issue and its refusal, was the harness's.
test('a refusal after a control-plane action on the client since the token was obtained is the harness\'s; one before it, or for another client, is the server\'s', () => {
  const runDir = mkdtempSync(join(tmpdir(), 'token-refusals-'));
  recordControlTokenAction(runDir, { clientId: 'primary-id', action: 'expire tokens', at: 5_000 });
  recordControlTokenAction(runDir, { clientId: 'other-id', action: 'status', at: 1_000 });
  const actions = controlTokenActions(runDir, 'primary-id');
  expect(actions).toEqual([{ clientId: 'primary-id', action: 'expire tokens', at: 5_000 }]);
  const afterAction = { obtainedAt: 4_000, expiresAt: 60_000, refusedAt: 6_000 };
  const beforeAction = { obtainedAt: 1_000, expiresAt: 60_000, refusedAt: 2_000 };
  const tokenAfterAction = { obtainedAt: 7_000, expiresAt: 60_000, refusedAt: 8_000 };
  expect(refusalsNotCaused([afterAction, beforeAction, tokenAfterAction], actions)).toEqual([beforeAction, tokenAfterAction]);
  expect(controlTokenActions(mkdtempSync(join(tmpdir(), 'token-refusals-')), 'primary-id'), 'no file: no action').toEqual([]);
});

test('the report of early refusals names TOKEN-011, the client and the lifetime left, and is judged after the checks', () => {
  const error = new EarlyTokenRefusals([{ role: 'primary', clientId: 'demo-primary', refusal: { obtainedAt: 0, expiresAt: 3_600_000, refusedAt: 12_000 } }]);
  expect(error.message).toMatch(/^TOKEN-011: the primary client's token \(demo-primary\).*refused 401 12\.0 s after it was obtained, with 3588\.0 s of its lifetime left/);
  expect(error.judgement).toEqual({ kind: 'requirements', ids: ['TOKEN-011'], afterChecks: true });
});
