import { expect, notTestable, profileOnly, test } from '../../harness/fixtures.ts';
import { deliveredRecipients, expectCorrectedRetryIsFirstAttempt, externalRef, messageIdsOf, send, smsNumber, smsPayload } from '../support/sends.ts';

// The reference profile's answers where section 4.6 leaves a choice open
// (spec/profile.yaml send.successStatus, send.items, send.media, send.limits).
test.beforeEach(({ target }) => profileOnly(target));

/** NANP fictional recipients the profile delivers (+1 NPA 555 0100..0149), `count` distinct ones. */
function fictionalRecipients(count: number): string[] {
  const areaCodes = ['202', '212', '303', '415', '512', '617', '702', '808'];
  const out: string[] = [];
  for (const npa of areaCodes) for (let line = 100; line <= 149 && out.length < count; line++) out.push(`+1${npa}555${String(line).padStart(4, '0')}`);
  return out;
}

test.describe('profile send.successStatus', () => {
  test('a successful send answers 202', { tag: ['@SEND-201'] }, async ({ api, target, knownNumbers, newKey }) => {
    const res = await send(api, newKey(), smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'status-202'));
    expect(res).toHaveStatus(202, 'SEND-201: a queued send is 202 Accepted');
  });
});

test.describe('profile send.items', () => {
  test('results hold one {to, messageId, status QUEUED} item per recipient', { tag: ['@SEND-202'] }, async ({ api, target, knownNumbers, newKey }) => {
    const to = deliveredRecipients(target, 3);
    const res = await send(api, newKey(), smsPayload(smsNumber(knownNumbers), to, 'items'));
    expect(res).toHaveStatus(202, 'SEND-202');
    const results: any[] = res.body.results;
    expect(results.map((r) => r.to).sort(), 'SEND-202: one result item per recipient, naming it in `to`').toEqual([...to].sort());
    for (const item of results) {
      expect(item, `SEND-202: result item for ${item.to} is {to, messageId, status: QUEUED}`).toEqual({ to: item.to, messageId: expect.any(String), status: 'QUEUED' });
    }
    expect(new Set(messageIdsOf(res)).size, 'SEND-202: one distinct messageId per recipient').toBe(to.length);
    expect(res.body.errors, 'SEND-202: errors is empty').toEqual([]);
  });

  test('a repeated recipient is accepted once and each repeat is reported as DUPLICATE_RECIPIENT', { tag: ['@SEND-202'] }, async ({ api, target, knownNumbers, newKey }) => {
    const [a, b] = deliveredRecipients(target, 2);
    const res = await send(api, newKey(), smsPayload(smsNumber(knownNumbers), [a!, b!, a!, a!], 'duplicate'));
    expect(res).toHaveStatus(202, 'SEND-202');
    const results: any[] = res.body.results;
    expect(results.map((r) => r.to).sort(), 'SEND-202: each distinct recipient has exactly one result item').toEqual([a, b].sort());
    const errors: any[] = res.body.errors;
    expect(errors.length, `SEND-202: each of the two repeats of ${a} is an error item; errors ${JSON.stringify(errors)}`).toBe(2);
    for (const error of errors) {
      expect(error, 'SEND-202: an error item is {to, code: DUPLICATE_RECIPIENT, message}').toEqual({ to: a, code: 'DUPLICATE_RECIPIENT', message: expect.any(String) });
    }
  });
});

/** The profile's send.limits: a field over its limit is refused with details {field, rule, limit}, so a client can fit it. */
function expectLimitNamed(res: { body: any }, field: string, limit: number, what: string): void {
  const details = res.body?.error?.details;
  expect(details?.limit, `SEND-203: ${what}: error.details.limit names the limit (${limit}); details ${JSON.stringify(details)}`).toBe(limit);
  expect(typeof details?.rule === 'string' && details.rule !== '', `SEND-203: ${what}: error.details.rule names the rule broken; details ${JSON.stringify(details)}`).toBe(true);
  expect(typeof details?.field === 'string' && details.field.includes(field), `SEND-203: ${what}: error.details.field names ${field}; details ${JSON.stringify(details)}`).toBe(true);
}

test.describe('profile send.media and send.limits: invalid sends are 400 INVALID_REQUEST', () => {
  // The document's "invalid" requests, answered with the profile's exact status and code.
  type Context = { media: unknown[]; mmsNumber: string | undefined };
  const documentDefects: Array<[string, (valid: Record<string, unknown>, context: Context) => Record<string, unknown>]> = [
    ['an SMS with media', (valid, { media }) => ({ ...valid, media })],
    ['an MMS without media', (valid, { mmsNumber }) => ({ ...valid, sendFrom: mmsNumber ?? valid.sendFrom, messageType: 'MMS' })],
    ['an E.164 sendFrom', (valid) => ({ ...valid, sendFrom: '+12025550199' })],
    ['an invalid recipient', (valid) => ({ ...valid, to: ['12025550100'] })],
    ['an empty to array', (valid) => ({ ...valid, to: [] })],
    ['an unknown messageType', (valid) => ({ ...valid, messageType: 'TEXT' })],
    ['a missing externalReference', ({ externalReference: _dropped, ...rest }) => rest],
    ['a missing sendFrom', ({ sendFrom: _dropped, ...rest }) => rest],
    ['an unknown field', (valid) => ({ ...valid, priority: 'high' })],
  ];
  for (const [defect, breakIt] of documentDefects) {
    test(`${defect} is 400 INVALID_REQUEST`, { tag: ['@SEND-203'] }, async ({ api, target, knownNumbers, newKey }) => {
      const valid = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'profile-invalid');
      const res = await send(api, newKey(), breakIt({ ...valid }, { media: target.mediaSample, mmsNumber: knownNumbers.mms }));
      expect(res).toBeCoreError(400, 'INVALID_REQUEST', `SEND-203: ${defect} is 400 INVALID_REQUEST`);
    });
  }

  const mediaDefects: Array<[string, unknown[]]> = [
    ['a media url over http', [{ url: 'http://cdn.example.com/conformance/pixel.png', contentType: 'image/png' }]],
    ['a relative media url', [{ url: '/conformance/pixel.png', contentType: 'image/png' }]],
    ['a media item without url', [{ contentType: 'image/png' }]],
    ['a media item without contentType', [{ url: 'https://cdn.example.com/conformance/pixel.png' }]],
    ['a contentType that is not type/subtype', [{ url: 'https://cdn.example.com/conformance/pixel.png', contentType: 'png' }]],
    ['a media item with a member the profile does not define', [{ url: 'https://cdn.example.com/conformance/pixel.png', contentType: 'image/png', caption: 'hello' }]],
    ['an empty media array', []],
    ['eleven media items', Array.from({ length: 11 }, (_, i) => ({ url: `https://cdn.example.com/conformance/p${i}.png`, contentType: 'image/png' }))],
  ];
  for (const [defect, media] of mediaDefects) {
    test(`an MMS with ${defect} is 400 INVALID_REQUEST`, { tag: ['@SEND-203'] }, async ({ api, target, knownNumbers, newKey }) => {
      if (!knownNumbers.mms) notTestable('needs an MMS-capable primary number with a campaignregId');
      const res = await send(api, newKey(), { sendFrom: knownNumbers.mms, to: deliveredRecipients(target), messageType: 'MMS', media, externalReference: externalRef('media') });
      expect(res).toBeCoreError(400, 'INVALID_REQUEST', `SEND-203: ${defect} is 400 INVALID_REQUEST`);
      if (media.length > 10) expectLimitNamed(res, 'media', 10, defect);
    });
  }

  test('an MMS with ten media items is accepted', { tag: ['@SEND-203'] }, async ({ api, target, knownNumbers, newKey }) => {
    if (!knownNumbers.mms) notTestable('needs an MMS-capable primary number with a campaignregId');
    const media = Array.from({ length: 10 }, (_, i) => ({ url: `https://cdn.example.com/conformance/p${i}.png`, contentType: 'image/png' }));
    const res = await send(api, newKey(), { sendFrom: knownNumbers.mms, to: deliveredRecipients(target), messageType: 'MMS', media, externalReference: externalRef('media-10') });
    expect(res).toHaveStatus(202, 'SEND-203: ten media items are within the limit');
  });

  test('101 recipients are refused with the limit named in details, and 100 are accepted', { tag: ['@SEND-203'] }, async ({ api, target, knownNumbers, newKey }) => {
    const to = fictionalRecipients(101);
    const allowed = new RegExp(target.recipients.allowPattern);
    if (!to.every((r) => allowed.test(r))) notTestable('recipients.allowPattern does not admit 101 fictional NANP numbers (+1 NPA 555 0100..0149)');
    const over = await send(api, newKey(), smsPayload(smsNumber(knownNumbers), to, 'recipients-101'));
    expect(over).toBeCoreError(400, 'INVALID_REQUEST', 'SEND-203: more than 100 recipients is 400 INVALID_REQUEST');
    expectLimitNamed(over, 'to', 100, '101 recipients');
    const at = await send(api, newKey(), smsPayload(smsNumber(knownNumbers), to.slice(0, 100), 'recipients-100'));
    expect(at).toHaveStatus(202, 'SEND-203: 100 recipients are within the limit');
  });

  test('text over 1600 characters is refused with the limit named in details, and 1600 is accepted', { tag: ['@SEND-203'] }, async ({ api, target, knownNumbers, newKey }) => {
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'text-limit');
    const over = await send(api, newKey(), { ...body, text: 'x'.repeat(1601) });
    expect(over).toBeCoreError(400, 'INVALID_REQUEST', 'SEND-203: text of 1601 characters is 400 INVALID_REQUEST');
    expectLimitNamed(over, 'text', 1600, 'text of 1601 characters');
    const at = await send(api, newKey(), { ...body, externalReference: externalRef('text-1600'), text: 'x'.repeat(1600) });
    expect(at).toHaveStatus(202, 'SEND-203: text of 1600 characters is within the limit');
  });
});

// profile send.replay: a rejection is not stored, so its key stays free for the corrected payload.
test.describe('profile send.replay: a rejected send does not claim its key', () => {
  const defects: Array<[string, (valid: Record<string, unknown>) => Record<string, unknown>]> = [
    ['an invalid recipient', (valid) => ({ ...valid, to: ['2025550100'] })],
    ['an E.164 sendFrom', (valid) => ({ ...valid, sendFrom: '+12025550199' })],
    ['an empty to array', (valid) => ({ ...valid, to: [] })],
    ['an unknown messageType', (valid) => ({ ...valid, messageType: 'TEXT' })],
    ['a missing externalReference', ({ externalReference: _dropped, ...rest }) => rest],
    ['a missing to', ({ to: _dropped, ...rest }) => rest],
    ['media on an SMS', (valid) => ({ ...valid, media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }] })],
  ];
  for (const [defect, breakIt] of defects) {
    test(`after a send rejected for ${defect}, the corrected send with the same key is a first attempt`, { tag: ['@IDEM-203'] }, async ({ api, target, knownNumbers, newKey }) => {
      const valid = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'corrected');
      const key = newKey();
      const rejected = await send(api, key, breakIt({ ...valid }));
      expect(rejected).toHaveStatus(400, `IDEM-203: precondition: the send with ${defect} is rejected`);
      await expectCorrectedRetryIsFirstAttempt(api, key, valid, 'IDEM-203');
    });
  }
});

// profile send.numberCapability: smsEnabled and mmsEnabled are states of the number, like its
// campaignregId (rule 5), so a send of a disabled type is a request defect.
test.describe('profile send.numberCapability', () => {
  test('an SMS from a number whose smsEnabled is false is 400 INVALID_REQUEST naming the setting, and queues nothing', { tag: ['@SEND-210'] }, async ({ api, target, knownNumbers, settings, newKey }) => {
    const numberId = smsNumber(knownNumbers);
    expect(await settings.change(numberId, { smsEnabled: false })).toSucceed(`SEND-210: precondition: setting smsEnabled of ${numberId} to false`);
    const res = await send(api, newKey(), smsPayload(numberId, deliveredRecipients(target), 'sms-disabled'));
    expect(res).toBeCoreError(400, 'INVALID_REQUEST', 'SEND-210: an SMS from a number whose smsEnabled is false');
    expect(res.body?.error?.details, 'SEND-210: error.details names the number and its setting').toEqual({ field: 'sendFrom', numberId, setting: 'smsEnabled' });
    expect(messageIdsOf(res), 'SEND-210: no message is reported accepted').toEqual([]);
  });

  test('an MMS from a number whose mmsEnabled is false is 400 INVALID_REQUEST naming the setting, and queues nothing', { tag: ['@SEND-210'] }, async ({ api, target, knownNumbers, settings, newKey }) => {
    const numberId = knownNumbers.mms;
    if (!numberId) notTestable('needs an MMS-capable primary number with a campaignregId');
    expect(await settings.change(numberId!, { mmsEnabled: false })).toSucceed(`SEND-210: precondition: setting mmsEnabled of ${numberId} to false`);
    const res = await send(api, newKey(), { sendFrom: numberId, to: deliveredRecipients(target), messageType: 'MMS', media: target.mediaSample, externalReference: externalRef('mms-disabled') });
    expect(res).toBeCoreError(400, 'INVALID_REQUEST', 'SEND-210: an MMS from a number whose mmsEnabled is false');
    expect(res.body?.error?.details, 'SEND-210: error.details names the number and its setting').toEqual({ field: 'sendFrom', numberId, setting: 'mmsEnabled' });
    expect(messageIdsOf(res), 'SEND-210: no message is reported accepted').toEqual([]);
  });
});
