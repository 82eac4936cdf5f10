import { expect, test } from '@playwright/test';

test('a standard-level check fails', { tag: ['@FIX-101'] }, async () => {
  expect('no-cache', 'Requirement FIX-101: Cache-Control must be no-store').toBe('no-store');
});

test('a standard-level check passes', { tag: ['@FIX-102'] }, async () => {});

test('a profile-level check passes', { tag: ['@FIX-201'] }, async () => {});

test('a profile-level check fails', { tag: ['@FIX-202'] }, async () => {
  expect(200, 'Requirement FIX-202: the profile chose 202').toBe(202);
});
