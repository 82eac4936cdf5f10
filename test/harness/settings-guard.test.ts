// The settings fixture's guard: it puts back what a test changed, and checks that the numbers the
// test held and did not change stayed as they were (UPD-007), putting them back too.
import { expect, test } from '@playwright/test';
import type { ApiClient } from '../../harness/api-client.ts';
import { NeighbourChanged, SettingsGuard } from '../../harness/settings-guard.ts';

type Record_ = { numberId: string; campaignregId: string | null; smsEnabled: boolean };

/**
 * A numbers list and an update route over it. `spread`: an update of n1 that names campaignregId
 * also applies it to every number that had n1's old value ('campaign'), or switches n2's SMS off
 * ('flag').
 */
function fakeApi(numbers: Record_[], spread: false | 'campaign' | 'flag') {
  const updates: string[] = [];
  const api = {
    target: { routes: { numbersItemsPath: 'numbers' } },
    async call(op: string, options: { params?: { numberId: string }; json?: Partial<Record_> }) {
      if (op === 'numbers') return { status: 200, body: { numbers: numbers.map((n) => ({ ...n })) }, text: '', describe: () => '200' };
      const n = numbers.find((x) => x.numberId === options.params!.numberId)!;
      updates.push(`${n.numberId} ${JSON.stringify(options.json)}`);
      const changes = options.json ?? {};
      if (spread === 'campaign' && 'campaignregId' in changes) for (const other of numbers) if (other !== n && other.campaignregId === n.campaignregId) other.campaignregId = changes.campaignregId!;
      if (spread === 'flag' && n.numberId === 'n1') numbers[1]!.smsEnabled = false;
      Object.assign(n, changes);
      return { status: 200, body: { ...n }, text: '', describe: () => '200' };
    },
  };
  return { api: api as unknown as ApiClient, updates };
}

const seed = (): Record_[] => [
  { numberId: 'n1', campaignregId: 'C1', smsEnabled: true },
  { numberId: 'n2', campaignregId: 'C1', smsEnabled: true },
  { numberId: 'n3', campaignregId: null, smsEnabled: false },
];
const held = ['n1', 'n2', 'n3'].map((numberId) => ({ role: 'primary' as const, numberId }));

test('a server that applies one number\'s update to the others fails UPD-007 at restore, naming each number that moved', async () => {
  // Putting n1 back to C1 spreads C1 to n3, whose null it shared by then: the guard sees n3 moved.
  const { api } = fakeApi(seed(), 'campaign');
  const guard = new SettingsGuard(api, held);
  await guard.change('n1', { campaignregId: null });
  const error = await guard.restore().then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(NeighbourChanged);
  expect((error as NeighbourChanged).judgement).toEqual({ kind: 'requirements', ids: ['UPD-007'] });
  expect((error as Error).message).toContain("while the test updated primary's n1");
  expect((error as Error).message).toContain("the primary client's n3: campaignregId null → \"C1\"");
});

test('a neighbour that moved is put back, so that later tests and the vendor find it as it was', async () => {
  const numbers = seed();
  const { api } = fakeApi(numbers, 'flag');
  const guard = new SettingsGuard(api, held);
  await guard.change('n1', { smsEnabled: false });
  await expect(guard.restore()).rejects.toThrow("the primary client's n2: smsEnabled true → false");
  expect(numbers).toEqual(seed());
});

test('a server that changes only the number named passes, and the guard reads nothing more than a list per client for it', async () => {
  const numbers = seed();
  const { api, updates } = fakeApi(numbers, false);
  const guard = new SettingsGuard(api, held);
  await guard.change('n3', { smsEnabled: true });
  await expect(guard.restore()).resolves.toBeUndefined();
  expect(numbers).toEqual(seed());
  expect(updates).toEqual(['n3 {"smsEnabled":true}', 'n3 {"smsEnabled":false}']);
});

test('numbers the test changed itself (remembered) are not its neighbours; a guard that changed nothing checks nothing', async () => {
  const numbers = seed();
  const { api, updates } = fakeApi(numbers, 'campaign');
  const guard = new SettingsGuard(api, held);
  guard.remember({ ...numbers[1]! }, 'primary');
  await expect(guard.restore()).resolves.toBeUndefined();
  expect(updates).toEqual(['n2 {"campaignregId":"C1","smsEnabled":true}']);
});
