import fc from 'fast-check';
import { test } from '../../harness/fixtures.ts';
import { checkProperty } from '../../harness/property.ts';
import { TOKEN_FIELDS, defectsBreaking, everyDefectOnce, fieldDefectCase } from '../../generators/field-type-defects.ts';
import { check, recordRun, routeRequest } from '../support/properties.ts';

// Section 4.1 types the token parameters as strings: a value of another JSON type is not
// client_credentials, nor a client's id or secret, so it issues no token (TOKEN-012, document
// level, as SEND-016 and UPD-005 hold the other routes' types), an array holding the right
// string included. Which error answers it is the RFC's: JSON bodies are this interface's
// extension of RFC 6749, whose parameters are always strings; RFC 6749 5.2 files a request
// with a malformed parameter value under invalid_request (400), and 3.2 reads an empty (null)
// parameter as absent, which is invalid_request too; a grant_type that is not the string
// client_credentials may also be unsupported_grant_type (TOKEN-112, standard level).

test.describe('4.1 and RFC 6749 3.2 and 5.2, generated: a JSON token parameter that is not a string', () => {
  for (const field of Object.keys(TOKEN_FIELDS.fields)) {
    test(`a token request whose ${field} is not a string issues no token and answers 400 invalid_request`, { tag: ['@TOKEN-012', '@TOKEN-112'] }, async ({ api, target }) => {
      const { clientId, clientSecret } = target.clients.primary;
      const base = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
      const defects = defectsBreaking(TOKEN_FIELDS, 'TOKEN-112', base).filter((d) => d.field === field);
      // The secret stays out of failure messages and the replayed request (it may sit in a defect's value).
      const hidden = (text: string) => text.split(clientSecret).join('<the client secret>');
      const errors = field === 'grant_type' ? ['invalid_request', 'unsupported_grant_type'] : ['invalid_request'];
      const property = fc.asyncProperty(fieldDefectCase(fc.constant(base), defects), async ({ defect, body }) => {
        const res = await api.call('token', { json: body });
        check(res.body?.access_token === undefined, `TOKEN-012: ${hidden(defect.label)} was answered with a token (${res.status}): section 4.1 types it as a string`);
        check(res.status === 400 && errors.includes(res.body?.error), `TOKEN-112: ${hidden(defect.label)} was answered ${res.status} ${JSON.stringify(res.body?.error)}, expected 400 ${errors.join(' or ')}`);
      });
      recordRun(
        await checkProperty('TOKEN-112', property, {
          grep: `"whose ${field} is not a string"`,
          parameters: { examples: everyDefectOnce(base, defects) },
          independentCases: true,
          toRequests: ([c]) => [routeRequest(target, 'token', JSON.parse(hidden(JSON.stringify(c.body))))],
        }),
      );
    });
  }
});
