import fc from 'fast-check';
import { expect, notTestable, profileOnly, test } from '../../harness/fixtures.ts';
import type { SettingsGuard } from '../../harness/settings-guard.ts';
import { checkProperty, propertySettings } from '../../harness/property.ts';
import { isRequestDefectAnswer } from '../../harness/answer-classes.ts';
import { e164SendFrom } from '../../generators/e164-send-from.ts';
import { INVALID_RECIPIENT_CLASSES, invalidRecipient, type InvalidRecipient } from '../../generators/invalid-recipient.ts';
import {
  SINGLE_DEFECT_REQUIREMENTS,
  breakableRequirements,
  singleDefectPayload,
  type SingleDefectPayloadConstraints,
  type SingleDefectRequirement,
} from '../../generators/single-defect-payload.ts';
import { validSendPayload } from '../../generators/valid-send-payload.ts';
import { asRequest } from './property-support.ts';
import { check, payloadConstraints, recordRun } from '../support/properties.ts';
import { deliveredRecipients, messageIdsOf, reportsQueued, send, smsNumber, smsPayload } from '../support/sends.ts';

// Section 4.6 with generated inputs. Every property runs the run's number of cases (quick by
// default, certify --deep for certification); a failure prints the seed, the shrunk
// request to replay and the command that replays it (harness/property.ts).

const isSuccess = (status: number) => status >= 200 && status < 300;
const isClientError = (status: number) => status >= 400 && status < 500;

test.describe('4.6 rule 6, generated: recipients that are not E.164', () => {
  // One property per class, so every class is tried whatever the seed. The runs are shared
  // out: a fifth of the runs per class (at least 3), which keeps the twenty classes
  // within about four properties' worth of sends (the target's sendCap counts them all).
  const settings = propertySettings();
  const perClass = { ...settings, numRuns: Math.max(3, Math.ceil(settings.numRuns / 5)) };
  for (const invalidClass of INVALID_RECIPIENT_CLASSES) {
    test(`recipients of class ${invalidClass} are rejected`, { tag: ['@SEND-007'] }, async ({ api, target, knownNumbers, newKey }) => {
      const sendFrom = smsNumber(knownNumbers);
      const [valid] = deliveredRecipients(target);
      // Alone, or beside a valid recipient: rule 6 makes the whole request invalid either way.
      const body = (bad: InvalidRecipient, alone: boolean) => ({ ...smsPayload(sendFrom, [], `invalid-${invalidClass}`), to: alone ? [bad.value] : [valid, bad.value] });
      const property = fc.asyncProperty(invalidRecipient({ classes: [invalidClass] }), fc.boolean(), async (bad, alone) => {
        const res = await send(api, newKey(), body(bad, alone));
        check(isRequestDefectAnswer(res.status), `SEND-007: recipient ${JSON.stringify(bad.value)} (${invalidClass}) was answered ${res.status}, expected a request defect (section 7.3): ${res.text.slice(0, 200)}`);
      });
      const toRequests = ([bad, alone]: [InvalidRecipient, boolean]) => [asRequest(body(bad, alone))];
      // The boundary itself, whatever the seed draws: a real mobile number (+44 7400 123456) lengthened to 16 digits, alone.
      const examples: Array<[InvalidRecipient, boolean]> = invalidClass === 'too-many-digits' ? [[{ value: '+4474001234567890', invalidClass }, true]] : [];
      recordRun(await checkProperty('SEND-007', property, { settings: perClass, grep: `"of class ${invalidClass} are"`, toRequests, independentCases: true, parameters: { examples } }));
    });
  }
});

test.describe('4.6 rule 6, generated: sendFrom given as an E.164 number', () => {
  test('E.164 numbers given as sendFrom are rejected', { tag: ['@SEND-006'] }, async ({ api, target, knownNumbers, newKey }) => {
    const owned = knownNumbers.all.map((n) => n.phoneNumber).filter((p): p is string => typeof p === 'string');
    const to = deliveredRecipients(target);
    const property = fc.asyncProperty(e164SendFrom({ ownedPhoneNumbers: owned }), async (sendFrom) => {
      const res = await send(api, newKey(), smsPayload(sendFrom, to, 'e164-send-from'));
      check(isRequestDefectAnswer(res.status), `SEND-006: sendFrom ${sendFrom} was answered ${res.status}, expected a request defect (section 7.3): ${res.text.slice(0, 200)}`);
    });
    const toRequests = ([sendFrom]: [string]) => [asRequest(smsPayload(sendFrom, to, 'e164-send-from'))];
    recordRun(await checkProperty('SEND-006', property, { toRequests, independentCases: true }));
  });
});

type Target = Parameters<typeof payloadConstraints>[0];
type Known = Parameters<typeof payloadConstraints>[1];

/** The single-defect generator's constraints for this target, and the requirements it can break here. */
function defectSetup(target: Target, knownNumbers: Known): { constraints: SingleDefectPayloadConstraints; available: SingleDefectRequirement[] } {
  const base = payloadConstraints(target, knownNumbers, smsNumber(knownNumbers));
  const constraints: SingleDefectPayloadConstraints = {
    ...base,
    foreignNumberIds: knownNumbers.foreign ? [knownNumbers.foreign] : [],
    unregisteredNumberIds: knownNumbers.withoutCampaign ? [knownNumbers.withoutCampaign] : [],
    ownedPhoneNumbers: knownNumbers.all.map((n) => n.phoneNumber).filter((p): p is string => typeof p === 'string'),
  };
  return { constraints, available: breakableRequirements(constraints) };
}

/**
 * Constraints under which the generator breaks `id` and nothing else on this target; the test
 * is not testable when the target lacks what the rule needs.
 */
async function constraintsFor(id: SingleDefectRequirement, target: Target, knownNumbers: Known, settings: SettingsGuard): Promise<SingleDefectPayloadConstraints> {
  const { constraints } = defectSetup(target, knownNumbers);
  switch (id) {
    case 'SEND-003': {
      // The defect removes the media, so the media item shape (open in the document) never
      // reaches the target: any target with an MMS number can have this rule broken.
      const mms = knownNumbers.mms;
      if (!mms) notTestable('needs an MMS-capable primary number with a campaignregId (numbers.mms in the target config)');
      return { ...constraints, mmsNumberIds: [mms!] };
    }
    case 'SEND-004':
      if (!knownNumbers.foreign) notTestable('needs a number of a second client (clients.secondary or numbers.foreign in the target config)');
      return constraints;
    case 'SEND-005': {
      // The number's only fault must be its missing campaignregId: SMS enabled, and MMS drawn
      // only when it is MMS-enabled too. Without such a fixture, the SMS number's registration
      // is cleared for this test (the settings fixture restores it).
      let numberId = knownNumbers.withoutCampaign;
      let record = knownNumbers.primary.find((n) => n.numberId === numberId);
      if (!numberId || record?.smsEnabled === false) {
        numberId = smsNumber(knownNumbers);
        record = knownNumbers.primary.find((n) => n.numberId === numberId);
        const cleared = await settings.change(numberId, { campaignregId: null });
        expect(cleared).toSucceed('SEND-005: precondition: clearing campaignregId through the update route');
      }
      const mmsToo = target.profile === 'reference' && record?.mmsEnabled === true;
      return { ...constraints, unregisteredNumberIds: [numberId], mmsNumberIds: mmsToo ? [numberId] : [] };
    }
    default:
      return constraints;
  }
}

test.describe('4.6, generated: a payload with exactly one rule broken gets the answer for that rule', () => {
  for (const id of SINGLE_DEFECT_REQUIREMENTS) {
    test(`single-defect payloads breaking ${id} get the document's answer`, { tag: [`@${id}`] }, async ({ api, target, knownNumbers, settings }) => {
      const constraints = await constraintsFor(id, target, knownNumbers, settings);
      const property = fc.asyncProperty(singleDefectPayload({ ...constraints, requirementIds: [id] }), async (c) => {
        const res = await api.call('send', { headers: c.headers, json: c.payload });
        const { status, code } = c.expected;
        const what = `${c.defect}${c.variant === undefined ? '' : ` (${c.variant})`}`;
        if (status === 'request-defect') {
          check(isRequestDefectAnswer(res.status), `${id}: ${what} was answered ${res.status}, expected a request defect (section 7.3: a 4xx other than 401, 403, 404, 408, 409, 429): ${res.text.slice(0, 200)}`);
        } else {
          check(res.status === status && res.body?.error?.code === code, `${id}: ${what} was answered ${res.status} ${res.body?.error?.code ?? ''}, expected ${status} ${code}: ${res.text.slice(0, 200)}`);
        }
        check(messageIdsOf(res).length === 0, `${id}: a rejected request reports no accepted messageId: ${res.text.slice(0, 200)}`);
      });
      recordRun(await checkProperty(id, property, { grep: `"breaking ${id} get"`, independentCases: true }));
    });
  }
});

// Profile send.replay (IDEM-203): rejections are not stored, so the key stays free.
test.describe('profile send.replay, generated: a rejected send does not claim its key', () => {
  test('after any single-defect rejection, the corrected payload under the same key is a first attempt', { tag: ['@IDEM-203'] }, async ({ api, target, knownNumbers }) => {
    profileOnly(target);
    const { constraints, available } = defectSetup(target, knownNumbers);
    // Without a key there is no key to reuse (SEND-001).
    const requirementIds = available.filter((id) => id !== 'SEND-001');
    const property = fc.asyncProperty(singleDefectPayload({ ...constraints, requirementIds }), async (c) => {
      const rejected = await api.call('send', { headers: c.headers, json: c.payload });
      check(isClientError(rejected.status), `IDEM-203: precondition: ${c.defect} (${c.requirementId}) was answered ${rejected.status}, expected a 4xx`);
      const corrected = await api.call('send', { headers: c.headers, json: c.valid });
      check(isSuccess(corrected.status), `IDEM-203: after ${c.defect} was rejected, the corrected payload under the same key was answered ${corrected.status}, expected a first attempt (2xx): ${corrected.text.slice(0, 200)}`);
      check(messageIdsOf(corrected).length > 0, `IDEM-203: the corrected send reports its messageIds: ${corrected.text.slice(0, 200)}`);
    });
    recordRun(await checkProperty('IDEM-203', property, { independentCases: true }));
  });
});

test.describe('4.6 rule 7, generated: valid payloads are queued', () => {
  test('valid payloads to test recipients are accepted with QUEUED and messageIds', { tag: ['@SEND-008'] }, async ({ api, target, knownNumbers, newKey }) => {
    const constraints = payloadConstraints(target, knownNumbers, smsNumber(knownNumbers));
    const property = fc.asyncProperty(validSendPayload(constraints), async (payload) => {
      const res = await send(api, newKey(), payload);
      check(isSuccess(res.status), `SEND-008: a valid ${payload.messageType} was answered ${res.status}, expected a 2xx: ${res.text.slice(0, 300)}`);
      const ids = messageIdsOf(res);
      check(ids.length > 0, `SEND-008: the answer names no messageId in results[*].messageId: ${res.text.slice(0, 300)}`);
      check(new Set(ids).size === ids.length, `SEND-008: messageIds are distinct: ${ids.join(', ')}`);
      check(reportsQueued(res), `SEND-008: the answer reports QUEUED (a property of the answer, or of each result item with a messageId, whose value is QUEUED): ${res.text.slice(0, 300)}`);
    });
    recordRun(await checkProperty('SEND-008', property, { independentCases: true }));
  });
});
