import { randomUUID } from 'node:crypto';
import type { ApiClient } from '../../harness/api-client.ts';
import { tokenRequest, type TokenStyle } from '../../harness/basic-auth.ts';
import { itemsAt } from '../../harness/config.ts';
import { HOLDS_EVERYTHING, expect, notTestable, test } from '../../harness/fixtures.ts';
import { readNumbers } from '../../harness/known-numbers.ts';
import { deliverTo, expectCallbacks, namesMessage, quietPeriod } from '../support/callbacks.ts';
import { deliveredRecipients, expectQueuedFor, messageIdsOf, NO_SECOND_SMS_NUMBER, secondSmsNumber, send, smsNumber, smsPayload, sorted } from '../support/sends.ts';

// Identity: every piece of state the document gives an owner follows that owner when one
// identity a request carries changes and the others stay the same. A token stands for its
// client (section 5), whichever of the client's tokens it is and however it was obtained; a
// number's settings and callbacks are the number's (4.5, 6); an Idempotency-Key's record is the
// client's (4.6 rule 8), whichever token carries the retry.

test.describe('5: a token acts for its client, whichever of the client\'s tokens it is', () => {
  /** A token of `creds`, obtained as `how` (section 5 rule 1). */
  async function issue(api: ApiClient, how: TokenStyle, creds: { clientId: string; clientSecret: string }): Promise<string> {
    const res = await api.call('token', tokenRequest(how, creds));
    expect(res).toSucceed(`AUTH-007: precondition: a token is issued (${how})`);
    return res.body.access_token as string;
  }

  /** The fields section 2 gives the client context: the client's, whichever of its tokens asks. */
  const CONTEXT_FIELDS = ['apiClientId', 'apiClientName', 'apiClientStatus', 'capabilities', 'assignedNumbers', 'inboundWebhookConfigured', 'deliveryWebhookConfigured'];

  /** What a token sees: its context's apiClientId, every field of section 2 its context shows, and its numbers. */
  async function view(api: ApiClient, token: string): Promise<{ apiClientId: unknown; context: Record<string, unknown>; numbers: string }> {
    const who = await api.call('whoami', { as: 'none', headers: { authorization: `Bearer ${token}` } });
    const list = await api.call('numbers', { as: 'none', headers: { authorization: `Bearer ${token}` } });
    expect(who).toSucceed('AUTH-007: whoami accepts a live token of the client');
    expect(list).toSucceed('AUTH-007: the numbers list accepts a live token of the client');
    const items = itemsAt(list.body, api.target.routes.numbersItemsPath) as Array<{ numberId: string }>;
    const context = Object.fromEntries(CONTEXT_FIELDS.filter((f) => who.body && f in who.body).map((f) => [f, who.body[f]]));
    return { apiClientId: who.body?.apiClientId, context, numbers: JSON.stringify((items ?? []).map((n) => n.numberId).sort()) };
  }

  // Every client the config names, the one whose id and secret have characters form encoding
  // changes (clients.special) among them: a server that takes the client from the Basic user-id
  // as written, before decoding it, is right for a plain id and wrong for that one.
  test('tokens obtained by a JSON body, a form body and HTTP Basic each see the same client\'s context and numbers, for every client', { tag: ['@AUTH-007'], ...HOLDS_EVERYTHING }, async ({ api, target }) => {
    const clients = Object.entries(target.clients).filter((entry): entry is [string, { clientId: string; clientSecret: string }] => entry[1] !== undefined);
    for (const [role, creds] of clients) {
      const styles: TokenStyle[] = ['json', 'form', 'basic'];
      const tokens = await Promise.all(styles.map((how) => issue(api, how, creds)));
      const contexts = await Promise.all(
        tokens.map(async (token) => {
          const who = await api.call('whoami', { as: 'none', headers: { authorization: `Bearer ${token}` } });
          expect(who).toSucceed(`AUTH-007: whoami accepts a live token of the ${role} client`);
          return Object.fromEntries(CONTEXT_FIELDS.filter((f) => who.body && f in who.body).map((f) => [f, who.body[f]]));
        }),
      );
      const views = await Promise.all(tokens.map((token) => view(api, token)));
      for (const [i, how] of styles.entries()) {
        expect(contexts[i], `AUTH-007: the ${role} client's (${creds.clientId}) token obtained by ${how} sees the same client context as its token obtained by ${styles[0]}`).toEqual(contexts[0]);
        expect(views[i], `AUTH-007: the ${role} client's (${creds.clientId}) token obtained by ${how} sees the same numbers as its token obtained by ${styles[0]}`).toEqual(views[0]);
      }
    }
  });

  // A later moment of a live token: after a token request for its client that failed (a wrong
  // secret, by each method). Nothing but expiry ends a token (section 5 rules 3 and 4); a server
  // that revokes a client's tokens when someone fails to authenticate as it locks the client out
  // each time anyone mistypes its secret, and a client that renews once (rule 5) hides it.
  test("a client's live token still acts for it after token requests for the client with a wrong secret failed", { tag: ['@AUTH-007'] }, async ({ api, target }) => {
    const creds = target.clients.primary;
    const token = await issue(api, 'json', creds);
    const before = await view(api, token);
    const wrong = { clientId: creds.clientId, clientSecret: `${creds.clientSecret}-wrong` };
    for (const how of ['json', 'form', 'basic'] as const) {
      const refused = await api.call('token', tokenRequest(how, wrong));
      expect(refused.body?.access_token, `AUTH-007: precondition: a token request with a wrong secret (${how}) issues no token`).toBeUndefined();
    }
    expect(await view(api, token), "AUTH-007: after token requests for the primary client with a wrong secret failed, its earlier token still sees the client's context and numbers").toEqual(before);
  });

  test('after another client obtains a token, each client\'s tokens still see their own client, and the two see different ones', { tag: ['@CTX-002', '@NUM-003', '@AUTH-007'], ...HOLDS_EVERYTHING }, async ({ api, target, secondClient }) => {
    const mine = [await issue(api, 'json', target.clients.primary), await issue(api, 'basic', target.clients.primary)];
    const first = await view(api, mine[0]!);
    const theirs = await issue(api, 'json', secondClient);
    const other = await view(api, theirs);
    expect(other.apiClientId, "CTX-002: the second client's token sees another apiClientId").not.toEqual(first.apiClientId);
    expect(other.numbers === first.numbers && first.numbers !== '[]', "NUM-003: the second client's token does not list the primary client's numbers").toBe(false);
    // Obtaining the second client's token changes nothing for the first client's tokens: not the
    // client they see, nor anything of its context (a name kept from the latest token issued).
    for (const [i, token] of mine.entries()) expect(await view(api, token), `AUTH-007: after the second client obtained a token, the primary client's token ${i + 1} still sees the primary client's context and numbers`).toEqual(first);
    expect(await view(api, theirs), "AUTH-007: the second client's token still sees the second client").toEqual(other);
  });
});

test.describe('4.6 rule 8: a key\'s record is the client\'s, whichever token carries the request', () => {
  test('one key varied one identity at a time: another token of the client replays, another number is unsafe, another key is new', { tag: ['@IDEM-004', '@IDEM-001', '@IDEM-002'], ...HOLDS_EVERYTHING }, async ({ api, target, knownNumbers, newKey }) => {
    // Another client under the same key and body is SEND-004's check (send.spec.ts), which needs a second client.
    const key = newKey();
    const body = smsPayload(smsNumber(knownNumbers), deliveredRecipients(target), 'identity');
    const first = expectQueuedFor(await send(api, key, body), 'IDEM-004', 'the first send');
    // Another token of the same client: the refresh section 5 rule 5 asks for before a retry.
    const fresh = await api.call('token', { json: { grant_type: 'client_credentials', client_id: target.clients.primary.clientId, client_secret: target.clients.primary.clientSecret } });
    expect(fresh).toSucceed('AUTH-005: precondition: a second token of the primary client');
    const retry = await api.call('send', { as: 'none', headers: { authorization: `Bearer ${fresh.body.access_token}`, 'idempotency-key': key }, json: body });
    expect(retry).toSucceed('IDEM-004: the retry with another token of the same client is the safe retry');
    expect(sorted(messageIdsOf(retry)), 'IDEM-004: the retry with another token reports the first messageIds').toEqual(sorted(first));
    // Another of the client's numbers under the key: a changed payload.
    const other = secondSmsNumber(knownNumbers);
    if (!other) notTestable(NO_SECOND_SMS_NUMBER);
    const moved = await send(api, key, { ...body, sendFrom: other });
    expect(moved).toBeRefusedAsUnsafeRetry('IDEM-002: the key with another sendFrom is an unsafe retry');
    expect(messageIdsOf(moved), 'IDEM-002: the unsafe retry reports no messages').toEqual([]);
    // Another key, the same body: a new operation.
    const again = expectQueuedFor(await send(api, newKey(), body), 'IDEM-001', 'the same body under a new key');
    expect(again.filter((id) => first.includes(id)), 'IDEM-001: a new key queues new messages').toEqual([]);
  });
});

test.describe('4.6 rule 8 and 5 rule 5: a key outlives the token that carried it', () => {
  // The retry section 5 rule 5 describes: the token expired, the client obtains another and
  // retries once. A server that keeps a key's record with the token that made it is right while
  // that token lives and wrong after. Seen with the short-lived client of triggers.expireToken
  // (kind wait), sending from a number of its own.
  test('a retry under a new token, after the token of the first attempt has expired, is the safe retry; a send refused for the expired token is taken with the new one', { tag: ['@IDEM-004', '@AUTH-005'] }, async ({ api, target, newKey }) => {
    const trigger = target.triggers.expireToken;
    if (trigger?.kind !== 'wait') notTestable('needs triggers.expireToken of kind wait: a client whose tokens expire while the test waits');
    const { clientId, clientSecret } = trigger!.client;
    const tokenOf = async () => {
      const res = await api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
      expect(res).toSucceed(`TOKEN-001: precondition: ${clientId} obtains a token`);
      return { token: String(res.body.access_token), seconds: Number(res.body.expires_in) };
    };
    const as = (token: string) => ({ as: 'none' as const, headers: { authorization: `Bearer ${token}` } });
    const first = await tokenOf();
    if (!(first.seconds > 0) || first.seconds > trigger!.maxWaitSeconds) notTestable(`the tokens of ${clientId} report expires_in ${first.seconds}, beyond triggers.expireToken.maxWaitSeconds (${trigger!.maxWaitSeconds} s)`);
    const listed = await api.call('numbers', as(first.token));
    expect(listed).toSucceed(`NUM-001: precondition: ${clientId} lists its numbers`);
    const own = (itemsAt(listed.body, target.routes.numbersItemsPath) as Array<Record<string, unknown>> | undefined)?.find((n) => typeof n?.numberId === 'string' && typeof n.campaignregId === 'string' && n.campaignregId !== '' && n.smsEnabled !== false);
    if (!own) notTestable(`${clientId} (triggers.expireToken) lists no number with a campaignregId and SMS enabled to send from`);
    const key = newKey();
    const body = smsPayload(String(own!.numberId), deliveredRecipients(target), 'identity-expired-token');
    const firstAnswer = await api.call('send', { ...as(first.token), headers: { ...as(first.token).headers, 'idempotency-key': key }, json: body });
    const ids = expectQueuedFor(firstAnswer, 'SEND-008', `the first send of ${clientId}`);
    // Until the first token is refused, at most its lifetime and the harness's margin.
    const deadline = Date.now() + first.seconds * 1000 + 5_000;
    while (Date.now() < deadline && (await api.call('whoami', as(first.token))).status !== 401) await new Promise((resolve) => setTimeout(resolve, 500));
    const second = await tokenOf();
    const retry = await api.call('send', { ...as(second.token), headers: { ...as(second.token).headers, 'idempotency-key': key }, json: body });
    expect(retry).toSucceed(`IDEM-004: the retry with a new token of ${clientId}, the first one expired, is the safe retry`);
    expect(sorted(messageIdsOf(retry)), `IDEM-004: the retry with a new token, the first one expired, reports the first messageIds`).toEqual(sorted(ids));
    // Section 5 rule 5 the other way round: a send refused 401 for its expired token, then sent
    // again, same key and payload, with the new token. The refusal authenticated no client, so
    // it bound no key: the new token's send is taken as a token's request is (AUTH-005), never
    // answered the 401 again. A server that looks keys up before it authenticates, and keeps
    // the refusal under the key, replays the 401 to a token that is valid.
    const key2 = newKey();
    const body2 = smsPayload(String(own!.numberId), deliveredRecipients(target), 'identity-refused-expired');
    const refused = await api.call('send', { ...as(first.token), headers: { ...as(first.token).headers, 'idempotency-key': key2 }, json: body2 });
    expect(refused).toBeCoreError(401, 'UNAUTHORIZED', `AUTH-003: precondition: a send with the expired token of ${clientId} is refused (AUTH-003's own tests judge it)`);
    const renewed = await api.call('send', { ...as(second.token), headers: { ...as(second.token).headers, 'idempotency-key': key2 }, json: body2 });
    expect(renewed.status, `AUTH-005: the same send with a new token of ${clientId}, after the expired one was refused 401 under that key, is taken with the new token: ${renewed.describe()} ${renewed.text.slice(0, 160)}`).not.toBe(401);
    expectQueuedFor(renewed, 'AUTH-005', `the send with a new token of ${clientId}, refused 401 under its key with the expired one`);
  });
});

test.describe('4.5 and 6: a number\'s settings and callbacks are the number\'s', () => {
  test('with overrides on two numbers, each number\'s outcomes go to its own override and an update of one leaves the other as it was', { tag: ['@WH-001', '@UPD-007'], ...HOLDS_EVERYTHING }, async ({ api, target, knownNumbers, settings, webhooks, newKey }) => {
    const a = smsNumber(knownNumbers);
    const b = secondSmsNumber(knownNumbers);
    if (!b) notTestable(NO_SECOND_SMS_NUMBER);
    const [channelA, channelB] = [webhooks.channel('identity-a'), webhooks.channel('identity-b')];
    await deliverTo(settings, a, channelA.url, 'WH-001');
    await deliverTo(settings, b!, channelB.url, 'WH-001');
    const recordA = (await readNumbers(api)).find((n) => n.numberId === a);
    expect(recordA?.webhookDeliveryOverride, `UPD-007: setting ${b}'s override leaves ${a}'s as it was`).toEqual(channelA.url);
    const started = Date.now();
    const idsA = expectQueuedFor(await send(api, newKey(), smsPayload(a, deliveredRecipients(target), `identity-a-${randomUUID().slice(0, 4)}`)), 'WH-001');
    const idsB = expectQueuedFor(await send(api, newKey(), smsPayload(b!, deliveredRecipients(target), `identity-b-${randomUUID().slice(0, 4)}`)), 'WH-001');
    for (const id of idsA) await expectCallbacks(channelA, 'WH-001', `the outcome of ${id} from ${a}`, namesMessage(id), { timeoutMs: target.webhooks.timeoutMs });
    for (const id of idsB) await expectCallbacks(channelB, 'WH-001', `the outcome of ${id} from ${b}`, namesMessage(id), { timeoutMs: target.webhooks.timeoutMs });
    await quietPeriod(Date.now() - started);
    expect(channelA.received.filter((c) => idsB.some((id) => c.text.includes(id))).map((c) => c.text.slice(0, 200)), `WH-001: ${a}'s override receives none of ${b}'s outcomes`).toEqual([]);
    expect(channelB.received.filter((c) => idsA.some((id) => c.text.includes(id))).map((c) => c.text.slice(0, 200)), `WH-001: ${b}'s override receives none of ${a}'s outcomes`).toEqual([]);
  });
});
