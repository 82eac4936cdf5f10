import fc from 'fast-check';
import { expect, test } from '../../harness/fixtures.ts';
import { isRequestDefectAnswer } from '../../harness/answer-classes.ts';
import { CASES_AT_ONCE, checkProperty } from '../../harness/property.ts';
import { SEND_FIELDS, defectsBreaking, everyDefectOnce, fieldDefectCase } from '../../generators/field-type-defects.ts';
import { validSendPayload } from '../../generators/valid-send-payload.ts';
import { deliverTo, expectNoStrayCallbacks } from '../support/callbacks.ts';
import { check, payloadConstraints, recordRun, routeRequest } from '../support/properties.ts';
import { deliveredRecipients, externalRef, messageIdsOf, send, smsNumber, smsPayload } from '../support/sends.ts';

// Section 4.6's table types every field of the send: a field of another JSON type, null, or a
// scalar where `to` is an array is a request the document does not allow (SEND-016). Missing
// fields and an empty `to` have their own entries (SEND-011, SEND-013, SEND-014). Each is read
// as section 7.3 reads a request defect, and a rejected send reports no messageId and is never
// reported by a delivery callback.

const FIELDS = Object.keys(SEND_FIELDS.fields);

test.describe('4.6 request fields, generated: a field of another JSON type is a request defect', () => {
  for (const field of FIELDS) {
    test(`a send whose ${field} breaks its section 4.6 type is rejected as a request defect`, { tag: ['@SEND-016'] }, async ({ api, target, knownNumbers, newKey }) => {
      const sms = smsNumber(knownNumbers);
      const base = smsPayload(sms, deliveredRecipients(target), 'field-type');
      const defects = defectsBreaking(SEND_FIELDS, 'SEND-016', base).filter((d) => d.field === field);
      const valid = validSendPayload({ ...payloadConstraints(target, knownNumbers, sms), messageTypes: ['SMS'] });
      const property = fc.asyncProperty(fieldDefectCase(valid, defects), async ({ defect, body }) => {
        const res = await send(api, newKey(), body);
        check(isRequestDefectAnswer(res.status), `SEND-016: ${defect.label} was answered ${res.status}, expected a request defect (section 7.3: a 4xx other than 401, 403, 404, 408, 409, 429): ${res.text.slice(0, 200)}`);
        check(messageIdsOf(res).length === 0, `SEND-016: the rejected send (${defect.label}) reports no accepted messageId: ${res.text.slice(0, 200)}`);
      });
      recordRun(
        await checkProperty('SEND-016', property, {
          grep: `"whose ${field} breaks"`,
          parameters: { examples: everyDefectOnce(base, defects) },
          independentCases: true,
          toRequests: ([c]) => [routeRequest(target, 'send', c.body, {}, { 'Idempotency-Key': '<a fresh key>' })],
        }),
      );
    });
  }
});

// As for SEND-015: a control send after the rejected ones bounds the wait, and a server that
// reports out of order gets as long again (quietPeriod) before no stray callback is concluded.
test.describe('4.6 request fields: a send rejected for a field of another type queues nothing', () => {
  test('sends rejected for a field of another JSON type are never reported by a delivery callback', { tag: ['@SEND-016'] }, async ({ api, target, knownNumbers, newKey, settings, webhooks }) => {
    const numberId = smsNumber(knownNumbers);
    const channel = webhooks.channel('field-types');
    await deliverTo(settings, numberId, channel.url, 'SEND-016');
    const rejectedRef = externalRef('field-type-rejected');
    const base = { ...smsPayload(numberId, deliveredRecipients(target), 'field-type-rejected'), externalReference: rejectedRef };
    const cases = everyDefectOnce(base, defectsBreaking(SEND_FIELDS, 'SEND-016', base)).map(([c]) => c);
    // Sent a few at a time: each is judged on its own answer, and the control goes after them all.
    for (let i = 0; i < cases.length; i += CASES_AT_ONCE) {
      const batch = cases.slice(i, i + CASES_AT_ONCE);
      const answers = await Promise.all(batch.map(({ body }) => send(api, newKey(), body)));
      answers.forEach((res, j) => expect(res).toBeRequestDefect(`SEND-016: ${batch[j]!.defect.label}`));
    }
    await expectNoStrayCallbacks(api, target, channel, numberId, newKey(), rejectedRef, 'SEND-016', 'a rejected send');
  });
});
