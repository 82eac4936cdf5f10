import fc from 'fast-check';
import type { ApiClient, ApiResponse } from '../../harness/api-client.ts';
import { expect, notTestable, test } from '../../harness/fixtures.ts';
import { isRequestDefectAnswer } from '../../harness/answer-classes.ts';
import { readNumbers } from '../../harness/known-numbers.ts';
import { checkProperty, propertySettings } from '../../harness/property.ts';
import { describeSpelling, formSpelling, jsonMediaType, PLAIN_SPELLING, respelling, spell, spellForm, type JsonSpelling } from '../../generators/json-spelling.ts';
import { acceptedMessageIds, reportsQueued } from '../../generators/send-port.ts';
import { acceptedSearch } from '../support/core-routes.ts';
import { recordRun } from '../support/properties.ts';
import { deliveredRecipients, externalRef, smsNumber, smsPayload } from '../support/sends.ts';
import { SETTABLE_FIELDS, differentValue, scratchNumber } from '../support/settings.ts';

// Invariance (ERR-007): the answer to a request does not depend on how its JSON is written.
// RFC 8259 makes whitespace between tokens, the order of an object's members and a character
// written as an escape insignificant (sections 2, 4, 7); a form body's field order and
// percent-encoded letters likewise. For each operation with a body, generated spellings of the
// same value (generators/json-spelling.ts) are sent beside the plain one, and each must be
// answered alike: the same status, the same error, the same change. Only what JSON makes
// insignificant is varied; numbers and repeated names, which RFC 8259 leaves to
// implementations, are not.

/** Cases per operation: a quarter of a property's (7 at the quick depth), at most 40; scaled with --runs, as the send budget is. */
function settingsFor() {
  const settings = propertySettings();
  return { ...settings, numRuns: Math.min(40, Math.ceil(settings.numRuns / 4)) };
}

/** What must not change with the spelling: the status, and the error the body names (CORE code or OAuth error). */
function answerOf(res: ApiResponse): string {
  const error: unknown = res.body?.error;
  const named = typeof error === 'string' ? error : typeof (error as { code?: unknown } | undefined)?.code === 'string' ? (error as { code: string }).code : '';
  return `${res.status}${named ? ` ${named}` : ''}`;
}

function sameAnswer(id: string, plain: ApiResponse, spelled: ApiResponse, spelling: string, what: string): void {
  if (answerOf(spelled) !== answerOf(plain)) {
    throw new Error(`ERR-007: ${what} written ${spelling} was answered ${answerOf(spelled)}, written plainly ${answerOf(plain)} (${id})\n  answered: ${spelled.text.slice(0, 300)}\n  request:  ${spelled.describe()}`);
  }
}

function jsonCall(api: ApiClient, operation: 'token' | 'search' | 'update' | 'send', value: unknown, spelling: JsonSpelling, extra: { params?: Record<string, string>; headers?: Record<string, string> } = {}) {
  return api.call(operation, { body: spell(value, spelling), ...(extra.params && { params: extra.params }), headers: { 'content-type': 'application/json', ...extra.headers } });
}

test.describe('4 and RFC 8259: the same JSON written another way gets the same answer', () => {
  test('a token request is answered alike however its JSON or form fields are written', { tag: ['@ERR-007', '@TOKEN-003', '@TOKEN-004', '@TOKEN-008'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const valid = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
    const refused = { ...valid, grant_type: 'password' };
    const plain = { valid: await jsonCall(api, 'token', valid, PLAIN_SPELLING), refused: await jsonCall(api, 'token', refused, PLAIN_SPELLING), form: await api.call('token', { form: valid }) };
    expect(plain.valid).toSucceed('TOKEN-003: precondition: the plain JSON token request is accepted');
    const property = fc.asyncProperty(respelling(), formSpelling(), async (spelling, form) => {
      const how = describeSpelling(spelling);
      sameAnswer('TOKEN-003', plain.valid, await jsonCall(api, 'token', valid, spelling), how, 'a valid JSON token request');
      sameAnswer('TOKEN-008', plain.refused, await jsonCall(api, 'token', refused, spelling), how, 'a JSON token request with grant_type password');
      const body = spellForm(Object.entries(valid), form);
      sameAnswer('TOKEN-004', plain.form, await api.call('token', { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }), `as ${body.replace(clientSecret, '[secret]')}`, 'a valid form-encoded token request');
    });
    recordRun(await checkProperty(['ERR-007'], property, { settings: settingsFor(), grep: '"however its JSON or form fields are written"', independentCases: true }));
  });

  test('a search is answered alike however its JSON is written', { tag: ['@ERR-007', '@SEARCH-001'] }, async ({ api }) => {
    const found = await acceptedSearch(api);
    if (!found.body || !found.response) notTestable('no search body among the candidates was accepted, so no search is known to succeed (SEARCH-001 reports why)');
    const property = fc.asyncProperty(respelling(), async (spelling) => {
      let spelled = await jsonCall(api, 'search', found.body, spelling);
      // A provider's failure (502 UPSTREAM_ERROR, section 4.4) is transient (section 7.3), not
      // the spelling's doing: the search is asked again, written the same way, before judging,
      // and while the provider fails the plain search too there is nothing to compare.
      const failedUpstream = (res: typeof spelled) => res.status === 502 && found.response!.status !== 502;
      for (let again = 0; again < 2 && failedUpstream(spelled); again++) spelled = await jsonCall(api, 'search', found.body, spelling);
      const comparable = !failedUpstream(spelled) || !failedUpstream(await jsonCall(api, 'search', found.body, PLAIN_SPELLING));
      if (comparable) sameAnswer('SEARCH-001', found.response!, spelled, describeSpelling(spelling), `the search ${JSON.stringify(found.body)}`);
    });
    recordRun(await checkProperty(['ERR-007'], property, { settings: settingsFor(), grep: '"search is answered alike"', independentCases: true }));
  });

  test('a send is answered alike however its JSON is written: accepted and queued, refused with the same error, or replayed as the safe retry', { tag: ['@ERR-007', '@SEND-008', '@SEND-007', '@IDEM-004'] }, async ({ api, target, knownNumbers, newKey }) => {
    const sendFrom = smsNumber(knownNumbers);
    const to = deliveredRecipients(target);
    const refusedBody = { ...smsPayload(sendFrom, to, 'invariance-refused'), to: [...to, '2025550100'] };
    const plainRefused = await jsonCall(api, 'send', refusedBody, PLAIN_SPELLING, { headers: { 'idempotency-key': newKey() } });
    expect(plainRefused).toBeRequestDefect('SEND-007: precondition: the plain send with one invalid recipient is refused');
    // Text beyond ASCII, and beyond the BMP, so that a spelling with escapes writes a surrogate
    // pair (RFC 8259 section 7: "\ud83d\udce8" is one character), and one without writes UTF-8.
    const withText = (payload: ReturnType<typeof smsPayload>) => ({ ...payload, text: `${payload.text}: café ✓ 📨` });
    // The label varies too (ERR-009's spellings of application/json): a server that takes the
    // Content-Type into the payload it compares refuses the retry so labelled.
    const property = fc.asyncProperty(respelling(), jsonMediaType(), async (spelling, mediaType) => {
      const how = `${describeSpelling(spelling)}, labelled ${mediaType}`;
      // A fresh payload and key per case: each is a first attempt.
      const res = await jsonCall(api, 'send', withText(smsPayload(sendFrom, to, 'invariance')), spelling, { headers: { 'idempotency-key': newKey(), 'content-type': mediaType } });
      if (!(res.status >= 200 && res.status < 300) || acceptedMessageIds(res.body).length === 0 || !reportsQueued(res.body)) {
        throw new Error(`ERR-007: a valid send written ${how} was not accepted with QUEUED and its messageIds (SEND-008)\n  answered: ${res.status} ${res.text.slice(0, 300)}`);
      }
      sameAnswer('SEND-007', plainRefused, await jsonCall(api, 'send', { ...refusedBody, externalReference: `${refusedBody.externalReference}-${newKey().slice(0, 8)}` }, spelling, { headers: { 'idempotency-key': newKey() } }), how, 'a send with one invalid recipient');
      // The same payload written plainly, retried under the key of the send above: the safe retry
      // (IDEM-004), written plainly again first, then as this case writes it, then plainly once
      // more. Every retry is the same payload, so each replays the first answer: a server that
      // stores something of each replay's text (its bytes, its spelling) as the payload to compare
      // is right on the first retry and wrong on a later one.
      const key = newKey();
      const payload = withText(smsPayload(sendFrom, to, 'invariance-retry'));
      const first = await jsonCall(api, 'send', payload, PLAIN_SPELLING, { headers: { 'idempotency-key': key } });
      if (first.status >= 200 && first.status < 300) {
        const firstIds = acceptedMessageIds(first.body);
        for (const [nth, retrySpelling] of [['a plain retry', PLAIN_SPELLING], [`a retry written ${how}`, spelling], ['a plain retry after it', PLAIN_SPELLING]] as const) {
          const retry = await jsonCall(api, 'send', payload, retrySpelling, { headers: { 'idempotency-key': key, ...(retrySpelling === spelling && { 'content-type': mediaType }) } });
          const retryIds = acceptedMessageIds(retry.body);
          if (!(retry.status >= 200 && retry.status < 300) || JSON.stringify(retryIds) !== JSON.stringify(firstIds)) {
            throw new Error(`IDEM-004: ${nth} of a send (the same payload, the same key) was answered ${retry.status} with messageIds [${retryIds.join(', ')}]; the first answer had [${firstIds.join(', ')}]: the same payload under the same key is the safe retry, however it is written and however often it comes\n  answered: ${retry.text.slice(0, 300)}`);
          }
        }
      }
    });
    recordRun(await checkProperty(['ERR-007'], property, { settings: settingsFor(), grep: '"send is answered alike"', independentCases: true }));
  });

  // The same for an MMS, whose media items are objects inside the payload: every spelling that
  // reorders members reorders theirs too. A server that puts only the top-level members in order
  // before comparing a retry with the first request is right on every SMS above.
  test('an MMS retried with its JSON written another way, its media items\' members reordered too, is the safe retry', { tag: ['@IDEM-004'] }, async ({ api, target, knownNumbers, newKey }) => {
    if (target.mediaSample.length === 0) notTestable('needs a media sample (mediaSample in the target config)');
    if (!knownNumbers.mms) notTestable('needs an MMS-capable primary number with a campaignregId (numbers.mms in the target config)');
    const mms = { sendFrom: knownNumbers.mms!, to: deliveredRecipients(target), messageType: 'MMS', text: 'Conformance check invariance-mms-retry', media: target.mediaSample, externalReference: externalRef('invariance-mms-retry') };
    const key = newKey();
    const first = await jsonCall(api, 'send', mms, PLAIN_SPELLING, { headers: { 'idempotency-key': key } });
    expect(first).toSucceed('IDEM-004: precondition: the MMS is accepted');
    const firstIds = acceptedMessageIds(first.body);
    const spellings: JsonSpelling[] = [
      { ...PLAIN_SPELLING, reverseMembers: true },
      { ...PLAIN_SPELLING, rotateMembers: 1 },
      { ...PLAIN_SPELLING, whitespace: '\n', escapes: 'symbols', rotateMembers: 2 },
      PLAIN_SPELLING,
    ];
    for (const spelling of spellings) {
      const retry = await jsonCall(api, 'send', mms, spelling, { headers: { 'idempotency-key': key } });
      const replayed = retry.status >= 200 && retry.status < 300 && JSON.stringify(acceptedMessageIds(retry.body)) === JSON.stringify(firstIds);
      expect.soft(replayed, `IDEM-004: the MMS retried under its key, written ${describeSpelling(spelling)}, replays the first answer (messageIds ${firstIds.join(', ')}); got ${retry.status} ${retry.text.slice(0, 200)}`).toBe(true);
    }
  });

  // The member names themselves written with escapes, on the sends whose answer turns on a member
  // being there: "\u006dedia" is the member media (RFC 8259 section 7). A server that looks for
  // the name in the raw text, not in the parsed object, refuses an MMS that carries media, or
  // queues an SMS that does; one that checks recipients in the text refuses a "+" written as an
  // escape ("symbols", names left plain). Every spelling that escapes characters is tried, not a
  // drawn few: each send below is answered as its plain spelling was.
  const ESCAPING: readonly JsonSpelling[] = (['first-letter', 'every-letter', 'symbols', 'all'] as const).map((escapes) => ({ ...PLAIN_SPELLING, escapes }));
  async function answeredAsPlain(api: ApiClient, body: { externalReference: string }, newKey: () => string, plain: ApiResponse, what: string): Promise<void> {
    for (const spelling of ESCAPING) {
      const res = await jsonCall(api, 'send', { ...body, externalReference: `${body.externalReference}-${spelling.escapes}` }, spelling, { headers: { 'idempotency-key': newKey() } });
      expect.soft(answerOf(res), `ERR-007: ${what} written ${describeSpelling(spelling)} is answered as written plainly; got ${res.text.slice(0, 200)}`).toBe(answerOf(plain));
    }
  }

  test('an SMS is accepted with every string and member name written in escapes', { tag: ['@ERR-007'] }, async ({ api, target, knownNumbers, newKey }) => {
    const sms = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'invariance-escaped');
    const plain = await jsonCall(api, 'send', sms, PLAIN_SPELLING, { headers: { 'idempotency-key': newKey() } });
    await answeredAsPlain(api, sms, newKey, plain, 'an SMS');
  });

  test('an SMS with media is refused with its member names written in escapes', { tag: ['@ERR-007', '@SEND-002'] }, async ({ api, target, knownNumbers, newKey }) => {
    if (target.mediaSample.length === 0) notTestable('needs a media sample (mediaSample in the target config)');
    const smsWithMedia = { ...smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'invariance-sms-media'), media: target.mediaSample };
    const refused = await jsonCall(api, 'send', smsWithMedia, PLAIN_SPELLING, { headers: { 'idempotency-key': newKey() } });
    expect(refused).toBeRequestDefect('SEND-002: precondition: the plain SMS with media is refused');
    await answeredAsPlain(api, smsWithMedia, newKey, refused, 'an SMS with media (SEND-002 refuses it)');
  });

  test('an MMS with media is accepted with its member names written in escapes', { tag: ['@ERR-007', '@SEND-003'] }, async ({ api, target, knownNumbers, newKey }) => {
    if (target.mediaSample.length === 0) notTestable('needs a media sample (mediaSample in the target config)');
    if (!knownNumbers.mms) notTestable('needs an MMS-capable primary number with a campaignregId (numbers.mms in the target config)');
    const mms = { sendFrom: knownNumbers.mms!, to: deliveredRecipients(target), messageType: 'MMS', text: 'Conformance check invariance-mms', media: target.mediaSample, externalReference: externalRef('invariance-mms') };
    const accepted = await jsonCall(api, 'send', mms, PLAIN_SPELLING, { headers: { 'idempotency-key': newKey() } });
    expect(accepted).toSucceed('SEND-003: precondition: the plain MMS with media is accepted');
    await answeredAsPlain(api, mms, newKey, accepted, 'an MMS with media (SEND-003 accepts it)');
  });

  test('an update is answered alike however its JSON is written, and the list then shows the same change', { tag: ['@ERR-007', '@UPD-001', '@UPD-004', '@UPD-005'] }, async ({ api, knownNumbers, settings, webhooks }) => {
    const numberId = scratchNumber(knownNumbers);
    const record = (await readNumbers(api)).find((n) => n.numberId === numberId);
    if (!record) notTestable(`number ${numberId} is not in the primary client's list`);
    const fields = SETTABLE_FIELDS.filter((f) => f in record!);
    if (fields.length === 0) notTestable(`the numbers list shows no settable field of ${numberId}`);
    settings.remember(record!);
    const property = fc.asyncProperty(respelling(), fc.constantFrom(...fields), async (spelling, field) => {
      const how = describeSpelling(spelling);
      const before = (await readNumbers(api)).find((n) => n.numberId === numberId)!;
      const value = differentValue(field, before[field], knownNumbers, () => webhooks.channel(`invariance-${field}`).url);
      // What an update did: its answer, and the attribute as the list then shows it.
      const update = async (body: Record<string, unknown>, written: JsonSpelling) => {
        const res = await jsonCall(api, 'update', body, written, { params: { numberId } });
        return { res, shown: (await readNumbers(api)).find((n) => n.numberId === numberId)![field] };
      };
      const applied = (u: { res: { status: number }; shown: unknown }) => u.res.status >= 200 && u.res.status < 300 && JSON.stringify(u.shown) === JSON.stringify(value);
      const spelled = await update({ [field]: value }, spelling);
      if (!applied(spelled)) {
        // Written plainly too? Then the update itself is wrong (UPD-001), whatever the spelling.
        const plain = await update({ [field]: value }, PLAIN_SPELLING);
        const what = (u: typeof spelled) => `answered ${u.res.status}, the list then showing ${JSON.stringify(u.shown)}`;
        if (!applied(plain)) throw new Error(`UPD-001: an update of ${field} to ${JSON.stringify(value)} does not take, written ${how} (${what(spelled)}) or plainly (${what(plain)})`);
        throw new Error(`ERR-007: an update of ${field} to ${JSON.stringify(value)} written ${how} was ${what(spelled)}; written plainly it takes`);
      }
      // The same attribute given another JSON type, written the same way: still refused, still nothing changed.
      const wrong = field === 'smsEnabled' || field === 'mmsEnabled' ? 'true' : 42;
      const kept = (u: typeof spelled) => isRequestDefectAnswer(u.res.status) && JSON.stringify(u.shown) === JSON.stringify(value);
      const refused = await update({ [field]: wrong }, spelling);
      if (!kept(refused)) {
        const plain = await update({ [field]: wrong }, PLAIN_SPELLING);
        const what = (u: typeof spelled) => `answered ${u.res.status} and left ${field} ${JSON.stringify(u.shown)}`;
        const rule = kept(plain) ? `ERR-007` : `UPD-005`;
        throw new Error(`${rule}: an update giving ${field} the ${typeof wrong} ${JSON.stringify(wrong)}, written ${how}, was ${what(refused)}${kept(plain) ? '; written plainly it is refused and changes nothing' : `, and written plainly ${what(plain)}`}; a request defect changes nothing (UPD-005)`);
      }
      // A nullable attribute cleared, written the same way: null is a JSON value like any other,
      // and a server that recognises it only as the compact text "field":null keeps the value.
      if (field === 'campaignregId' || field === 'webhookInboundOverride' || field === 'webhookDeliveryOverride') {
        const cleared = (u: typeof spelled) => u.res.status >= 200 && u.res.status < 300 && u.shown === null;
        const nulled = await update({ [field]: null }, spelling);
        if (!cleared(nulled)) {
          await update({ [field]: value }, PLAIN_SPELLING);
          const plain = await update({ [field]: null }, PLAIN_SPELLING);
          const what = (u: typeof spelled) => `answered ${u.res.status}, the list then showing ${JSON.stringify(u.shown)}`;
          throw new Error(`${cleared(plain) ? 'ERR-007' : 'UPD-004'}: an update of ${field} to null written ${how} was ${what(nulled)}${cleared(plain) ? '; written plainly it clears it' : `, and written plainly ${what(plain)}`}`);
        }
      }
    });
    // Every string-valued attribute under each escape that changes its characters, before the
    // drawn cases: an override URL with its slashes written \/, its symbols as \u escapes, or
    // every character escaped is the same value (RFC 8259 section 7), and a server whose parser
    // refuses one of them is right on every drawn case that missed it.
    const examples = fields
      .filter((f) => f === 'campaignregId' || f === 'webhookInboundOverride' || f === 'webhookDeliveryOverride')
      .flatMap((field) => (['slashes', 'symbols', 'all'] as const).map((escapes): [JsonSpelling, (typeof fields)[number]] => [{ ...PLAIN_SPELLING, escapes }, field]));
    // Cases read what earlier ones changed: one after another.
    recordRun(await checkProperty(['ERR-007'], property, { settings: settingsFor(), grep: '"update is answered alike"', parameters: { examples } }));
  });
});
