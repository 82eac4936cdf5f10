import type { ClientRole } from '../../harness/api-client.ts';
import { readNumbers } from '../../harness/known-numbers.ts';
import { HOLDS_EVERYTHING, HOLDS_EVERY_NUMBER, expect, notTestable, profileOnly, test } from '../../harness/fixtures.ts';
import { canSendSms } from '../../harness/known-numbers.ts';
import { SEARCH_PROBE, issueToken, routeRequested } from '../support/core-routes.ts';
import { deliveredRecipients, send, smsPayload } from '../support/sends.ts';

// The reference profile's answers for the client context (spec/profile.yaml whoami.route,
// whoami.fields): GET, 200, status ACTIVE, string capabilities, and number counts.
const CAPABILITIES = ['SMS', 'MMS', 'NUMBER_SEARCH'];

test.describe('profile: client context', () => {
  test.beforeEach(({ target }) => profileOnly(target));

  test('GET /api/core/whoami answers 200', { tag: ['@CTX-201'] }, async ({ api, target }) => {
    const res = await api.call('whoami');
    expect(routeRequested(target, res), 'CTX-201: the profile route is GET /api/core/whoami').toBe('GET /api/core/whoami');
    expect(res).toHaveStatus(200, 'CTX-201: the context is answered 200');
  });

  test('apiClientStatus is ACTIVE for a client that can call the service', { tag: ['@CTX-201'] }, async ({ api }) => {
    const res = await api.call('whoami');
    expect(res.body.apiClientStatus, 'CTX-201: the profile status of an active client is ACTIVE').toBe('ACTIVE');
  });

  test('capabilities are strings from SMS, MMS and NUMBER_SEARCH', { tag: ['@CTX-201'] }, async ({ api }) => {
    const res = await api.call('whoami');
    const capabilities: unknown[] = res.body.capabilities;
    expect(Array.isArray(capabilities), 'CTX-201: capabilities is an array').toBe(true);
    for (const c of capabilities) {
      expect.soft(CAPABILITIES.includes(c as string), `CTX-201: expected each capability to be one of ${CAPABILITIES.join(', ')}; got ${JSON.stringify(c)}`).toBe(true);
    }
    expect(new Set(capabilities).size, 'CTX-201: no capability is listed twice').toBe(capabilities.length);
  });

  test('assignedNumbers counts total, SMS-enabled and MMS-enabled numbers as the numbers list shows them', { tag: ['@CTX-201'], ...HOLDS_EVERY_NUMBER }, async ({ api }) => {
    const res = await api.call('whoami');
    const numbers = await readNumbers(api);
    expect(res.body.assignedNumbers, 'CTX-201: assignedNumbers is {total, smsEnabled, mmsEnabled} matching the numbers list').toEqual({
      total: numbers.length,
      smsEnabled: numbers.filter((n) => n.smsEnabled === true).length,
      mmsEnabled: numbers.filter((n) => n.mmsEnabled === true).length,
    });
  });

  // Profile client.capabilities: what a client's capabilities leave out, it may not do. Judged
  // for each configured client whose context lacks one: an SMS send without SMS, an MMS send
  // without MMS, a search without NUMBER_SEARCH, each 403 FORBIDDEN naming the capability.
  test("an operation a client's capabilities do not include is 403 FORBIDDEN naming the capability", { tag: ['@CTX-202'] }, async ({ api, target, newKey }) => {
    let judged = 0;
    for (const role of ['primary', 'secondary', 'special'] as const) {
      if (!target.clients[role]) continue;
      const context = await api.call('whoami', { as: role });
      expect(context).toSucceed(`CTX-202: precondition: the ${role} client reads its context`);
      const has: unknown[] = Array.isArray(context.body?.capabilities) ? context.body.capabilities : [];
      const lacking = CAPABILITIES.filter((c) => !has.includes(c));
      if (lacking.length === 0) continue;
      const from = (await readNumbers(api, role)).find((n) => typeof n.campaignregId === 'string' && n.campaignregId !== '' && n.smsEnabled === true && n.mmsEnabled === true)?.numberId;
      for (const capability of lacking) {
        const res =
          capability === 'NUMBER_SEARCH'
            ? await api.call('search', { json: { npa: '202' }, as: role })
            : from === undefined
              ? undefined
              : await send(api, newKey(), capability === 'SMS' ? smsPayload(String(from), deliveredRecipients(target), 'ctx-capability') : { ...smsPayload(String(from), deliveredRecipients(target), 'ctx-capability'), messageType: 'MMS', media: target.mediaSample }, role);
        if (res === undefined) continue;
        judged++;
        expect.soft(res).toBeCoreError(403, 'FORBIDDEN', `CTX-202: the ${role} client, whose capabilities (${has.join(', ')}) leave out ${capability}, is refused the operation it gates`);
        expect.soft(res.body?.error?.details?.capability, `CTX-202: the refusal of the ${role} client names the capability ${capability} in error.details.capability`).toBe(capability);
      }
    }
    if (judged === 0) notTestable('no configured client lacks a capability (with a number to send from where the capability is SMS or MMS)');
  });

  // Profile client.status: a suspended client is told so, on every route, by a token it already
  // holds and at the token endpoint, and what it asks changes nothing. A server that checks the
  // status on one route (or only when a token is issued) is right on that one and serves the rest.
  test('a token issued before its client was suspended is 403 FORBIDDEN naming the status on every core route, and the suspended client\'s credentials get unauthorized_client', { tag: ['@CTX-203'], ...HOLDS_EVERYTHING }, async ({ api, target, triggers, newKey }) => {
    const secondary = target.clients.secondary;
    if (!secondary) notTestable('needs a second client of the same target (clients.secondary in the target config)');
    const token = await issueToken(api, secondary!.clientId, secondary!.clientSecret, 'CTX-203');
    const as = { bearer: token, name: 'the secondary client, with a token issued before its suspension' };
    const before = await readNumbers(api, as);
    const own = before[0];
    if (!own) notTestable('the secondary client has no number to update and send from');
    const from = before.find(canSendSms) ?? own!;
    const flipped = { smsEnabled: own!.smsEnabled !== true };
    const bearer = { as: 'none' as const, headers: { authorization: `Bearer ${token}` } };
    await triggers.whileSuspended(async (client) => {
      const answers = await Promise.all([
        api.call('whoami', bearer).then((res) => ({ op: 'whoami', res })),
        api.call('numbers', bearer).then((res) => ({ op: 'numbers', res })),
        api.call('search', { ...bearer, json: SEARCH_PROBE }).then((res) => ({ op: 'search', res })),
        api.call('update', { ...bearer, params: { numberId: own!.numberId }, json: flipped }).then((res) => ({ op: 'update', res })),
        api
          .call('send', { ...bearer, headers: { ...bearer.headers, 'idempotency-key': newKey() }, json: smsPayload(from.numberId, deliveredRecipients(target), 'ctx-suspended') })
          .then((res) => ({ op: 'send', res })),
      ]);
      for (const { op, res } of answers) {
        expect.soft(res).toBeCoreError(403, 'FORBIDDEN', `CTX-203: ${op} with a token issued before the client's suspension is 403 FORBIDDEN`);
        expect.soft(res.body?.error?.details?.apiClientStatus, `CTX-203: the refusal of ${op} names the client's status in error.details.apiClientStatus`).toBe('SUSPENDED');
      }
      const right = await api.call('token', { json: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret } });
      expect.soft(right).toBeOAuthError('unauthorized_client', 'CTX-203: the suspended client\'s correct credentials get unauthorized_client');
      expect.soft(right).toHaveStatus(400, 'CTX-203: unauthorized_client is 400 (RFC 6749 5.2)');
      const wrong = await api.call('token', { json: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: `${client.clientSecret}-wrong` } });
      expect.soft(wrong).toBeOAuthError('invalid_client', 'CTX-203: a wrong secret of the suspended client is still invalid_client, telling nothing of its status');
    });
    // ACTIVE again: the same list as before the suspension, the refused update applied nowhere.
    const after = await readNumbers(api, 'secondary');
    expect.soft(after, 'CTX-203: the update refused while the client was suspended changed nothing').toEqual(before);
    if (after.find((n) => n.numberId === own!.numberId)?.smsEnabled !== own!.smsEnabled) {
      await api.call('update', { as: 'secondary', params: { numberId: own!.numberId }, json: { smsEnabled: own!.smsEnabled === true } });
    }
  });

  // The same counts for every client the config names, and after a number's smsEnabled and
  // mmsEnabled change: a server that counts every number as enabled, or counts once and keeps
  // the figures, is right on a client whose numbers are all enabled and never change.
  test("assignedNumbers counts each client's own list, and follows an accepted change of a number's smsEnabled or mmsEnabled", { tag: ['@CTX-201'], ...HOLDS_EVERY_NUMBER }, async ({ api, target, settings, workerNumbers }) => {
    const counts = (numbers: Array<Record<string, unknown>>) => ({
      total: numbers.length,
      smsEnabled: numbers.filter((n) => n.smsEnabled === true).length,
      mmsEnabled: numbers.filter((n) => n.mmsEnabled === true).length,
    });
    const judge = async (role: ClientRole, when: string) => {
      const [context, numbers] = await Promise.all([api.call('whoami', { as: role }), readNumbers(api, role)]);
      expect(context).toSucceed(`CTX-201: precondition: the ${role} client reads its context`);
      expect.soft(context.body.assignedNumbers, `CTX-201: the ${role} client's assignedNumbers counts its numbers list ${when}`).toEqual(counts(numbers));
    };
    const number = workerNumbers.share.find((n) => n.role === 'primary');
    if (!number) notTestable('the worker has no number of the primary client whose smsEnabled and mmsEnabled it may change');
    for (const role of ['primary', 'secondary', 'special'] as const) if (target.clients[role]) await judge(role, 'as it is');
    for (const field of ['smsEnabled', 'mmsEnabled'] as const) {
      const before = (await readNumbers(api)).find((n) => n.numberId === number!.numberId);
      if (typeof before?.[field] !== 'boolean') continue;
      const changed = await settings.change(number!.numberId, { [field]: !before[field] });
      if (changed.status < 200 || changed.status >= 300) continue;
      await judge('primary', `after ${field} of ${number!.numberId} was set to ${!before[field]}`);
    }
  });
});
