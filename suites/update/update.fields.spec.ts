import fc from 'fast-check';
import { test } from '../../harness/fixtures.ts';
import { isRequestDefectAnswer } from '../../harness/answer-classes.ts';
import { checkProperty } from '../../harness/property.ts';
import { readNumbers } from '../../harness/known-numbers.ts';
import { UPDATE_FIELDS, applyFieldDefect, defectsBreaking, everyDefectOnce, fieldDefectCase, type FieldDefectCase } from '../../generators/field-type-defects.ts';
import { check, recordRun, routeRequest } from '../support/properties.ts';
import { SETTABLE_FIELDS, differentValue, guardFields, recordOf, scratchNumber } from './update-support.ts';

// Sections 2 and 4.5 type every settable attribute: campaignregId and the two webhook
// overrides are "string or null", smsEnabled and mmsEnabled booleans. An update giving one of
// them another JSON type (or null to a boolean) is a request the document does not allow: it is
// rejected as section 7.3 reads a request defect, and it changes nothing: every settable
// attribute, re-listed (section 4.3), is as it was. That holds of the whole request, so the
// defect is also sent beside a valid change of another attribute, which must not be stored
// either: a client told its update was refused believes nothing in it took.

test.describe('4.5 settable attributes, generated: a value of another JSON type is a request defect that changes nothing', () => {
  for (const field of Object.keys(UPDATE_FIELDS.fields)) {
    test(`an update giving ${field} a value of another JSON type is rejected as a request defect and changes nothing`, { tag: ['@UPD-005'] }, async ({ api, target, knownNumbers, settings, webhooks }) => {
      const numberId = scratchNumber(knownNumbers);
      const record = await recordOf(api, numberId, 'primary', 'UPD-005');
      // Every attribute the list shows is registered with the settings fixture, so a server that
      // wrongly applies the change is put right; a field the list does not show (the record is
      // open) cannot be read back, only its answer checked.
      const shown = SETTABLE_FIELDS.filter((f) => f in record);
      await guardFields('UPD-005', settings, api, numberId, shown);
      // One valid change of each other attribute the list shows, a value it does not have now:
      // a server that stores it before refusing the defect is seen to.
      const companions: Array<Record<string, unknown>> = shown
        .filter((other) => other !== field)
        .map((other) => ({ [other]: differentValue(other, record[other], knownNumbers, () => webhooks.channel(`upd5-${other}`).url) }));
      const defects = defectsBreaking(UPDATE_FIELDS, 'UPD-005').filter((d) => d.field === field);
      const beside = (valid: Record<string, unknown>) => (Object.keys(valid).length === 0 ? '' : ` beside the valid change ${JSON.stringify(valid)}`);
      // One case at a time: each reads the number back, and a change one case wrongly applied
      // would show in another's reading, blamed on the wrong defect. The test holds the number
      // alone (the settings fixture), so what one case read after its update is what the next
      // would read before its own: each case reads once, after its update (before judging it, so
      // that the next case starts from what is there even when this one fails).
      let seen = (await readNumbers(api)).find((n) => n.numberId === numberId);
      const property = fc.asyncProperty(fieldDefectCase(fc.constantFrom<Record<string, unknown>>({}, ...companions), defects), async ({ valid, defect, body }) => {
        const before = seen;
        const res = await api.call('update', { params: { numberId }, json: body });
        const after = (seen = (await readNumbers(api)).find((n) => n.numberId === numberId));
        check(isRequestDefectAnswer(res.status), `UPD-005: ${defect.label}${beside(valid)} was answered ${res.status}, expected a request defect (section 7.3: a 4xx other than 401, 403, 404, 408, 409, 429): ${res.text.slice(0, 200)}`);
        const changed = SETTABLE_FIELDS.filter((f) => JSON.stringify(after?.[f]) !== JSON.stringify(before?.[f]));
        check(changed.length === 0, `UPD-005: the rejected update (${defect.label}${beside(valid)}) changed ${changed.map((f) => `${f} from ${JSON.stringify(before?.[f])} to ${JSON.stringify(after?.[f])}`).join(', ')}`);
      });
      // Every defect alone, and every defect again beside one valid change, the companions taken in turn.
      const withCompanion: Array<[FieldDefectCase<Record<string, unknown>>]> = companions.length === 0 ? [] : defects.map((defect, i) => {
        const valid = companions[i % companions.length]!;
        return [{ valid, defect, body: applyFieldDefect(valid, defect) }];
      });
      recordRun(
        await checkProperty('UPD-005', property, {
          grep: `"giving ${field} a value"`,
          parameters: { examples: [...everyDefectOnce<Record<string, unknown>>({}, defects), ...withCompanion] },
          toRequests: ([c]) => [routeRequest(target, 'update', c.body, { numberId })],
        }),
      );
    });
  }
});
