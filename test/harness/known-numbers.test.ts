// A config's numbers.pool is spread across the workers: each share offers what the whole pool
// offers the suites, so no test of a worker becomes not testable for want of a number another holds.
import { expect, test } from '@playwright/test';
import { spreadPool, type NumberRecord } from '../../harness/known-numbers.ts';

const n = (numberId: string, campaignregId: string | null, mmsEnabled = false): NumberRecord => ({ numberId, campaignregId, smsEnabled: true, mmsEnabled });

/** Three kinds the suites pick: a campaignregId with MMS, one without MMS, none. */
const trio = (i: number) => [n(`mms${i}`, `C${i}A`, true), n(`sms${i}`, `C${i}B`), n(`none${i}`, null)];

test('a pool of two of every kind makes two shares, each with every kind, none shared', () => {
  const shares = spreadPool([...trio(0), ...trio(1)], 2);
  expect(shares).toHaveLength(2);
  const kinds = (share: NumberRecord[]) => share.map((r) => `${r.campaignregId === null ? 'none' : 'campaign'}-${r.mmsEnabled}`).sort();
  for (const share of shares) expect(kinds(share)).toEqual(kinds(trio(0)));
  expect(new Set(shares.flat().map((r) => r.numberId)).size).toBe(6);
});

test('a pool too small for a share per worker makes fewer shares, and the workers take turns', () => {
  expect(spreadPool([...trio(0), n('extra', 'CX')], 2)).toHaveLength(1);
  expect(spreadPool([...trio(0), ...trio(1)], 4)).toHaveLength(2);
});

test('a number to avoid stays out of the shares where the rest allows, and is used where not', () => {
  const pool = [...trio(0), ...trio(1), n('inbound', 'CI')];
  expect(spreadPool(pool, 2, new Set(['inbound'])).flat().map((r) => r.numberId)).not.toContain('inbound');
  const tight = trio(0);
  expect(spreadPool(tight, 1, new Set(['sms0'])).flat().map((r) => r.numberId)).toContain('sms0');
});

test('an empty pool offers no share', () => {
  expect(spreadPool([], 2)).toEqual([]);
});
