import type { ApiResponse } from '../../harness/api-client.ts';
import type { NumberRecord } from '../../harness/known-numbers.ts';
import { expect, notTestable, profileOnly, test } from '../../harness/fixtures.ts';
import { routeRequested, unknownNumberIdLike } from '../support/core-routes.ts';
import { SETTABLE_FIELDS, guardFields, recordOf, scratchNumber, settableOf, type SettableField } from './update-support.ts';

// The reference profile's update (spec/profile.yaml update.route, update.foreignNumber):
// PATCH /api/core/numbers/{numberId}, 200 with the updated Number; another client's number is
// the same 404 NOT_FOUND as one that does not exist; a bad setting changes nothing.

/**
 * Bodies that break the update in exactly one way. Each also carries a valid change of
 * another field (`flip`), so "changes nothing" is observable: a server that applied the valid
 * part and ignored the rest would show it in the list.
 */
const BAD_UPDATES: ReadonlyArray<{ name: string; flip: SettableField; extra: Record<string, unknown> }> = [
  { name: 'smsEnabled given as a string', flip: 'mmsEnabled', extra: { smsEnabled: 'yes' } },
  { name: 'mmsEnabled given as a number', flip: 'smsEnabled', extra: { mmsEnabled: 1 } },
  { name: 'smsEnabled given as null', flip: 'mmsEnabled', extra: { smsEnabled: null } },
  { name: 'campaignregId given as a number', flip: 'mmsEnabled', extra: { campaignregId: 12345 } },
  { name: 'webhookInboundOverride given as a boolean', flip: 'mmsEnabled', extra: { webhookInboundOverride: false } },
  { name: 'webhookDeliveryOverride given as an array', flip: 'mmsEnabled', extra: { webhookDeliveryOverride: ['https://hooks.example.com/delivery'] } },
  { name: 'an unknown field', flip: 'mmsEnabled', extra: { colour: 'blue' } },
  { name: 'campaignregId misspelt as campaignRegId', flip: 'mmsEnabled', extra: { campaignRegId: 'CDEMO01' } },
];

/** An error answer with the numberId it names replaced, so two answers about two ids compare. */
function shapeOf(res: ApiResponse, numberId: string): string {
  return JSON.stringify({ status: res.status, error: res.body?.error }).split(numberId).join('{numberId}');
}

test.describe('profile: number update', () => {
  test.beforeEach(({ target }) => profileOnly(target));

  test('PATCH /api/core/numbers/{numberId} answers 200 with the updated number record', { tag: ['@UPD-201'] }, async ({ api, target, knownNumbers, settings }) => {
    const numberId = scratchNumber(knownNumbers);
    const before = await recordOf(api, numberId, 'primary', 'UPD-201');
    const value = before.mmsEnabled !== true;
    const res = await settings.change(numberId, { mmsEnabled: value });
    expect(routeRequested(target, res), 'UPD-201: the profile route is PATCH /api/core/numbers/{numberId}').toBe(
      `PATCH /api/core/numbers/${encodeURIComponent(numberId)}`,
    );
    expect(res).toHaveStatus(200, 'UPD-201: the update is answered 200');
    expect(res.body?.numberId, 'UPD-201: the answer is the updated number record').toBe(numberId);
    expect(res.body?.mmsEnabled, 'UPD-201: the record in the answer carries the new value').toBe(value);
    const listed = await recordOf(api, numberId, 'primary', 'UPD-201');
    expect(res.body, 'UPD-201: the answer is the record the numbers list now shows').toEqual(listed);
  });

  test("another client's number is answered 404 NOT_FOUND", { tag: ['@UPD-202'] }, async ({ api, knownNumbers, settings, secondClient }) => {
    const foreign = knownNumbers.foreign;
    if (!foreign) notTestable(`the second client (${secondClient.clientId}) has no numbers to try`);
    const before = await guardFields('UPD-202', settings, api, foreign!, ['mmsEnabled'], 'secondary');
    const res = await api.call('update', { params: { numberId: foreign! }, json: { mmsEnabled: before.mmsEnabled !== true } });
    expect(res).toBeCoreError(404, 'NOT_FOUND', `UPD-202: the primary client updating the second client's number ${foreign}`);
  });

  test('a numberId that does not exist is answered 404 NOT_FOUND', { tag: ['@UPD-202'] }, async ({ api, knownNumbers }) => {
    const like = knownNumbers.foreign ?? scratchNumber(knownNumbers);
    const unknown = unknownNumberIdLike(like);
    const res = await api.call('update', { params: { numberId: unknown }, json: { mmsEnabled: true } });
    expect(res).toBeCoreError(404, 'NOT_FOUND', `UPD-202: updating ${unknown}, a numberId that does not exist`);
  });

  test("another client's number cannot be told from one that does not exist", { tag: ['@UPD-202'] }, async ({ api, knownNumbers, settings, secondClient }) => {
    const foreign = knownNumbers.foreign;
    if (!foreign) notTestable(`the second client (${secondClient.clientId}) has no numbers to try`);
    const before = await guardFields('UPD-202', settings, api, foreign!, ['mmsEnabled'], 'secondary');
    const patch = { mmsEnabled: before.mmsEnabled !== true };
    const unknown = unknownNumberIdLike(foreign!);
    const theirs = await api.call('update', { params: { numberId: foreign! }, json: patch });
    const nobodys = await api.call('update', { params: { numberId: unknown }, json: patch });
    expect(shapeOf(theirs, foreign!), `UPD-202: the answers for another client's number and for an unknown one differ only in the numberId`).toBe(shapeOf(nobodys, unknown));
  });

  for (const { name, flip, extra } of BAD_UPDATES) {
    test(`an update with ${name} is answered 400 INVALID_REQUEST and changes nothing`, { tag: ['@UPD-203'] }, async ({ api, knownNumbers, settings }) => {
      const numberId = scratchNumber(knownNumbers);
      const settable = Object.keys(extra).filter((k): k is SettableField => (SETTABLE_FIELDS as readonly string[]).includes(k));
      const before: NumberRecord = await guardFields('UPD-203', settings, api, numberId, [flip, ...settable]);
      const res = await api.call('update', { params: { numberId }, json: { [flip]: before[flip] !== true, ...extra } });
      expect(res).toBeCoreError(400, 'INVALID_REQUEST', `UPD-203: an update with ${name} (${JSON.stringify(extra)})`);
      const after = await recordOf(api, numberId, 'primary', 'UPD-203');
      expect(settableOf(after), `UPD-203: the refused update changed nothing, not even the valid ${flip} it carried`).toEqual(settableOf(before));
    });
  }
});

// profile webhook.targets: an override the server would call inside its own network is refused
// when set. Private and link-local only: an operator may allow loopback, as the embedded run
// does for the harness's own receiver.
test.describe('profile webhook.targets', () => {
  test.beforeEach(({ target }) => profileOnly(target));

  const REFUSED_TARGETS = [
    { field: 'webhookDeliveryOverride', url: 'http://169.254.169.254/latest/meta-data/', what: 'the link-local cloud metadata address' },
    { field: 'webhookInboundOverride', url: 'http://10.0.0.1/hooks/inbound', what: 'a private address' },
  ] as const;
  for (const { field, url, what } of REFUSED_TARGETS) {
    test(`a ${field} at ${what} is answered 400 INVALID_REQUEST and is not stored`, { tag: ['@UPD-210'] }, async ({ api, knownNumbers, settings }) => {
      const numberId = scratchNumber(knownNumbers);
      const before = await guardFields('UPD-210', settings, api, numberId, [field]);
      const res = await api.call('update', { params: { numberId }, json: { [field]: url } });
      expect(res).toBeCoreError(400, 'INVALID_REQUEST', `UPD-210: ${field} ${url}`);
      const after = await recordOf(api, numberId, 'primary', 'UPD-210');
      expect(after[field], `UPD-210: the refused ${field} is not stored`).toEqual(before[field]);
    });
  }
});
