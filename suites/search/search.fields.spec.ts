import fc from 'fast-check';
import { notTestable, test } from '../../harness/fixtures.ts';
import { isRequestDefectAnswer } from '../../harness/answer-classes.ts';
import { checkProperty } from '../../harness/property.ts';
import { SEARCH_FIELDS, defectsBreaking, everyDefectOnce, fieldDefectCase } from '../../generators/field-type-defects.ts';
import { SEARCH_CANDIDATES, acceptedSearch } from '../support/core-routes.ts';
import { check, recordRun, routeRequest } from '../support/properties.ts';

// Section 4.4: the search's request fields are "all strings". Which are required is not shown,
// so each defect is applied to a search the target accepts (one of SEARCH_CANDIDATES): a field
// of another JSON type, or null, is a request the document does not allow, rejected as section
// 7.3 reads a request defect.

test.describe('4.4 search fields, generated: a field of another JSON type is a request defect', () => {
  test('a search with one field of another JSON type than string is rejected as a request defect', { tag: ['@SEARCH-003'] }, async ({ api, target }) => {
    const found = await acceptedSearch(api);
    if (!found.body) notTestable('no search body among the candidates was accepted, so no search is known to succeed (SEARCH-001 reports why)');
    const base = found.body!;
    // Every defect also beside every other criterion (the search naming all six, where the
    // target accepts it): a server that type-checks a field only when some other criterion is
    // absent is right on the search of one field.
    const all = SEARCH_CANDIDATES.at(-2)!;
    const allAccepted = JSON.stringify(all) !== JSON.stringify(base) && (await api.call('search', { json: all })).status < 300;
    const bases = allAccepted ? [base, all] : [base];
    const defects = defectsBreaking(SEARCH_FIELDS, 'SEARCH-003', { ...Object.fromEntries(Object.keys(SEARCH_FIELDS.fields).map((f) => [f, '202'])), ...base });
    const property = fc.asyncProperty(fieldDefectCase(fc.constantFrom(...bases), defects), async ({ valid, defect, body }) => {
      const res = await api.call('search', { json: body });
      const beside = Object.keys(valid).filter((k) => k !== defect.field);
      check(isRequestDefectAnswer(res.status), `SEARCH-003: ${defect.label}${beside.length > 0 ? ` beside ${beside.join(', ')}` : ''} was answered ${res.status}, expected a request defect (section 7.3: a 4xx other than 401, 403, 404, 408, 409, 429): ${res.text.slice(0, 200)}`);
    });
    recordRun(
      await checkProperty('SEARCH-003', property, {
        parameters: { examples: bases.flatMap((b) => everyDefectOnce(b, defects)) },
        independentCases: true,
        toRequests: ([c]) => [routeRequest(target, 'search', c.body)],
      }),
    );
  });
});
