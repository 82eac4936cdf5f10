import { randomUUID } from 'node:crypto';
import type { ApiResponse } from '../../harness/api-client.ts';
import { expect, profileOnly, test } from '../../harness/fixtures.ts';
import { anyOwnNumber, deliveredRecipients, smsPayload } from '../support/sends.ts';
import { BODY_OPERATIONS } from '../support/core-routes.ts';
import { recordOf, settableOf } from '../support/settings.ts';
import { MALFORMED_JSON } from '../support/malformed-json.ts';
import { ERROR_PROBES, malformedRequest } from './error-probes.ts';

// The reference profile's error format (spec/profile.yaml errors.format): malformed JSON is
// 400 INVALID_REQUEST, and every CORE error repeats its requestId in x-request-id.

test.describe('profile: error format', () => {
  test.beforeEach(({ target }) => profileOnly(target));

  for (const op of BODY_OPERATIONS) {
    for (const { name, spoil } of MALFORMED_JSON) {
      test(`${op} answers ${name} with 400 INVALID_REQUEST`, { tag: ['@ERR-201'] }, async ({ api, target, knownNumbers, newKey }) => {
        const res = await api.call(op, await malformedRequest(op, { api, target, knownNumbers, newKey }, spoil));
        expect(res).toBeCoreError(400, 'INVALID_REQUEST', `ERR-201: ${op} with ${name}`);
      });
    }
  }

  for (const probe of ERROR_PROBES) {
    test(`${probe.name}: the answer repeats its requestId in the x-request-id header`, { tag: ['@ERR-201'] }, async ({ api, target, knownNumbers, newKey }) => {
      const res = await api.call(probe.op, await probe.build({ api, target, knownNumbers, newKey }));
      expect(res.status, `ERR-201: precondition: ${probe.name} is an error; got ${res.describe()}`).toBeGreaterThanOrEqual(400);
      expect(res.headers['x-request-id'], `ERR-201: x-request-id repeats the body's requestId ${JSON.stringify(res.body?.requestId)}`).toBe(res.body?.requestId);
    });
  }
});

// The reference profile's body limit (spec/profile.yaml errors.format, send.limits): 256 KiB,
// and a body over it 413 PAYLOAD_TOO_LARGE naming the limit. On both routes that take a body,
// each over the limit by a field its own checks would also refuse, so an answer of that check
// (400 INVALID_REQUEST for a text too long) is told apart from the body limit's.
const BODY_LIMIT_BYTES = 256 * 1024;

test.describe('profile: the body limit', () => {
  test.beforeEach(({ target }) => profileOnly(target));

  test('a body over 256 KiB is 413 PAYLOAD_TOO_LARGE with the limit in bytes, on the send and the update, and changes nothing', { tag: ['@ERR-203'] }, async ({ api, target, knownNumbers, settings, newKey }) => {
    const own = anyOwnNumber(knownNumbers);
    // Remembered first, so a server that applies the update all the same is put right after.
    const before = await recordOf(api, own, 'primary', 'ERR-203');
    settings.remember(before);
    const big = 'x'.repeat(BODY_LIMIT_BYTES + 40 * 1024);
    const [sent, updated] = await Promise.all([
      api.call('send', { headers: { 'idempotency-key': newKey() }, json: { ...smsPayload(own, deliveredRecipients(target), 'err-limit'), text: big } }),
      api.call('update', { params: { numberId: own }, json: { campaignregId: big } }),
    ]);
    for (const [name, res] of [['the send', sent], ['the update', updated]] as const) {
      expect.soft(res).toBeCoreError(413, 'PAYLOAD_TOO_LARGE', `ERR-203: ${name} with a body of 296 KiB is 413 PAYLOAD_TOO_LARGE`);
      expect.soft(res.body?.error?.details?.limit, `ERR-203: ${name}'s error.details.limit is the limit in bytes`).toBe(BODY_LIMIT_BYTES);
    }
    expect(settableOf(await recordOf(api, own, 'primary', 'ERR-203')), 'ERR-203: the refused update changed nothing').toEqual(settableOf(before));
  });
});

// The reference profile's words (spec/profile.yaml errors.format): every error says what is
// wrong. Each request breaks one rule the document states, where the config gives what it
// needs; an answer that is not an error is another requirement's concern and is left out here.
test.describe('profile: every error says what is wrong', () => {
  test.beforeEach(({ target }) => profileOnly(target));

  test("each kind of CORE error carries a non-empty error.message", { tag: ['@ERR-202'] }, async ({ api, target, knownNumbers, settings, newKey }) => {
    const own = anyOwnNumber(knownNumbers);
    const to = deliveredRecipients(target);
    const sendOf = (name: string, json: unknown): [string, () => Promise<ApiResponse>] => [name, () => api.call('send', { headers: { 'idempotency-key': newKey() }, json })];
    const cases: Array<[string, () => Promise<ApiResponse>]> = [
      ...ERROR_PROBES.map((probe): [string, () => Promise<ApiResponse>] => [probe.name, async () => api.call(probe.op, await probe.build({ api, target, knownNumbers, newKey }))]),
      ['whoami with a bearer scheme and no token', () => api.call('whoami', { as: 'none', headers: { authorization: 'Bearer' } })],
      ['whoami with another scheme', () => api.call('whoami', { as: 'none', headers: { authorization: 'Token abc' } })],
      sendOf('an SMS with media', { ...smsPayload(own, to, 'err-words'), media: target.mediaSample }),
      sendOf('an MMS without media', { ...smsPayload(own, to, 'err-words'), messageType: 'MMS' }),
      sendOf('an invalid recipient', smsPayload(own, ['+1'], 'err-words')),
      sendOf('an empty to', smsPayload(own, [], 'err-words')),
      sendOf('a messageType other than SMS or MMS', { ...smsPayload(own, to, 'err-words'), messageType: 'FAX' }),
      sendOf('no externalReference', { sendFrom: own, to, messageType: 'SMS', text: 'Conformance check err-words' }),
      ['an update with smsEnabled of another type', async () => api.call('update', { params: { numberId: own }, json: { smsEnabled: 'yes' } })],
      // Over the profile's 256 KiB body limit: refused before any route reads it (413).
      ['an update whose body is over 256 KiB', async () => api.call('update', { params: { numberId: own }, json: { campaignregId: 'x'.repeat(300 * 1024) } })],
      ...(knownNumbers.withoutCampaign !== undefined ? [sendOf('a sendFrom without a campaignregId', smsPayload(knownNumbers.withoutCampaign, to, 'err-words'))] : []),
      ...(knownNumbers.foreign !== undefined
        ? [sendOf("a sendFrom of another client's", smsPayload(knownNumbers.foreign, to, 'err-words')), ["an update of another client's number", () => api.call('update', { params: { numberId: knownNumbers.foreign! }, json: {} })] as [string, () => Promise<ApiResponse>]]
        : []),
    ];
    const answers = await Promise.all(cases.map(async ([name, call]) => ({ name, res: await call() })));
    // And a number's own state (profile send.numberCapability): an SMS from a number with SMS off.
    if ((await settings.change(own, { smsEnabled: false })).status < 300) {
      answers.push({ name: 'an SMS from a number whose smsEnabled is false', res: await api.call('send', { headers: { 'idempotency-key': newKey() }, json: smsPayload(own, to, 'err-words') }) });
    }
    for (const { name, res } of answers.filter(({ res }) => res.status >= 400)) {
      const message: unknown = res.body?.error?.message;
      expect.soft(typeof message === 'string' && message.trim() !== '', `ERR-202: ${name} is answered ${res.status} with error.message ${JSON.stringify(message)}: the profile says in words what is wrong`).toBe(true);
      expect.soft(res.body?.error?.code, `ERR-202: ${name} is answered ${res.status} with an error.code`).toEqual(expect.stringMatching(/\S/));
    }
  });

  test('each kind of token error carries a non-empty error_description', { tag: ['@ERR-202'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const cases: Array<[string, Record<string, string>]> = [
      ['an unknown client', { grant_type: 'client_credentials', client_id: `unknown-${randomUUID()}`, client_secret: clientSecret }],
      ['another grant_type', { grant_type: 'password', client_id: clientId, client_secret: clientSecret }],
      ['no client_id', { grant_type: 'client_credentials', client_secret: clientSecret }],
      ['no client_secret', { grant_type: 'client_credentials', client_id: clientId }],
      ['no grant_type', { client_id: clientId, client_secret: clientSecret }],
    ];
    const answers = await Promise.all(cases.map(async ([name, form]) => ({ name, res: await api.call('token', { form }) })));
    for (const { name, res } of answers.filter(({ res }) => res.status >= 400)) {
      const description: unknown = res.body?.error_description;
      expect.soft(typeof description === 'string' && description.trim() !== '', `ERR-202: a token request with ${name} is answered ${res.status} with error_description ${JSON.stringify(description)}: the profile says in words what is wrong`).toBe(true);
    }
  });
});
