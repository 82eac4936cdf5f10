import type { ApiClient, ApiResponse } from '../../harness/api-client.ts';
import type { ControlClient } from '../../harness/control.ts';
import { expect, notTestable, test } from '../../harness/fixtures.ts';
import { reasonFor } from '../../harness/plan.ts';
import { issueToken } from '../support/core-routes.ts';
import { pointOverride } from '../support/callbacks.ts';
import { readNumbers } from '../../harness/known-numbers.ts';

// Sections 2 and 4.2: the API client context. The method and success status are not shown, so
// success is any 2xx; the seven fields and their types are what the document shows.

/** Section 2's table: every field of the context and the type it is shown with. */
const CONTEXT_FIELDS: ReadonlyArray<{ field: string; type: 'string' | 'array' | 'object' | 'boolean' }> = [
  { field: 'apiClientId', type: 'string' },
  { field: 'apiClientName', type: 'string' },
  { field: 'apiClientStatus', type: 'string' },
  { field: 'capabilities', type: 'array' },
  { field: 'assignedNumbers', type: 'object' },
  { field: 'inboundWebhookConfigured', type: 'boolean' },
  { field: 'deliveryWebhookConfigured', type: 'boolean' },
];

/** How many whoami requests of the two clients, interleaved, are sent at once. */
const CONCURRENT_CONTEXTS = 20;
/**
 * How many such bursts: on a loaded machine the requests of one burst may reach the server too
 * far apart to overlap (the kill matrix missed numbers.client-race with three, under load 7).
 */
const CONCURRENT_ROUNDS = 10;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

test.describe('4.2 Return the API client context', () => {
  for (const { field, type } of CONTEXT_FIELDS) {
    test(`the context carries ${field} as ${type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`}`, { tag: ['@CTX-001'] }, async ({ api }) => {
      const res = await api.call('whoami');
      expect(res).toSucceed('CTX-001: the client-context route answers 2xx');
      expect(field in (res.body ?? {}), `CTX-001: the context carries ${field}; body ${res.text.slice(0, 300)}`).toBe(true);
      expect(typeOf(res.body[field]), `CTX-001: ${field} is ${type}`).toBe(type);
    });
  }

  test('two clients see two different apiClientIds', { tag: ['@CTX-002'] }, async ({ api, target, secondClient }) => {
    expect(secondClient.clientId, 'CTX-002: precondition: the config names two different clients').not.toBe(target.clients.primary.clientId);
    const primary = await api.call('whoami');
    const secondary = await api.call('whoami', { as: 'secondary' });
    expect(primary).toSucceed('CTX-002: the primary client reads its context');
    expect(secondary).toSucceed('CTX-002: the secondary client reads its context');
    expect(secondary.body.apiClientId, 'CTX-002: the context names the authenticated client, so two clients see different apiClientIds').not.toBe(primary.body.apiClientId);
  });

  test('requests of two clients sent at once each get the context of their own client', { tag: ['@CTX-002'] }, async ({ api, secondClient }) => {
    // The context describes the authenticated client however many requests are in flight.
    const alone = { primary: await api.call('whoami'), secondary: await api.call('whoami', { as: 'secondary' }) };
    expect(alone.primary).toSucceed('CTX-002: the primary client reads its context');
    expect(alone.secondary).toSucceed('CTX-002: the secondary client reads its context');
    const who = { primary: 'the primary client', secondary: `the second client (${secondClient.clientId})` };
    const roles = Array.from({ length: CONCURRENT_CONTEXTS }, (_, i) => (i % 2 === 0 ? 'primary' : 'secondary') as 'primary' | 'secondary');
    // Several bursts: on a loaded machine one burst's requests may reach the server too far apart to overlap.
    for (let round = 1; round <= CONCURRENT_ROUNDS; round++) {
      const answers = await Promise.all(roles.map(async (as) => ({ as, res: await api.call('whoami', { as }) })));
      for (const [i, { as, res }] of answers.entries()) {
        expect.soft(res).toSucceed(`CTX-002: request ${i + 1} of ${roles.length} sent at once (burst ${round}), by ${who[as]}, is answered 2xx`);
        expect.soft(res.body?.apiClientId, `CTX-002: request ${i + 1} of ${roles.length} sent at once (burst ${round}), by ${who[as]}, gets the apiClientId it gets alone`).toBe(alone[as].body?.apiClientId);
      }
    }
  });

  test('one client sees the same apiClientId with every token it is issued', { tag: ['@CTX-002'] }, async ({ api, target }) => {
    const { clientId, clientSecret } = target.clients.primary;
    const ids: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      const token = await issueToken(api, clientId, clientSecret, 'CTX-002');
      const res = await api.call('whoami', { as: 'none', headers: { authorization: `Bearer ${token}` } });
      expect(res).toSucceed('CTX-002: the context is read with a freshly issued token');
      ids.push(res.body.apiClientId);
    }
    expect(ids[1], 'CTX-002: the context describes the client, not the token: the apiClientId does not change with the token').toBe(ids[0]);
  });
});

test.describe("2, 4.3: assignedNumbers summarises the client's own numbers", () => {
  // The summary's fields are not shown; where the target names the member that counts the
  // assigned numbers (routes.whoami.assignedCount; the reference profile's total), it counts what
  // the client's list returns, for each client the config names: a server that counts every
  // number of the service, or the first client's, is right only where they agree.
  test("the member of assignedNumbers the target declares as the count equals the length of each client's numbers list", { tag: ['@CTX-005'] }, async ({ api, target }) => {
    const member = target.routes.assignedCount;
    if (member === undefined) notTestable(reasonFor('assignedCount'));
    for (const role of ['primary', 'secondary', 'special'] as const) {
      if (!target.clients[role]) continue;
      const [res, numbers] = await Promise.all([api.call('whoami', { as: role }), readNumbers(api, role)]);
      expect(res).toSucceed(`CTX-005: precondition: the ${role} client reads its context`);
      const count: unknown = (res.body?.assignedNumbers as Record<string, unknown> | undefined)?.[member!];
      expect.soft(count, `CTX-005: assignedNumbers.${member} of the ${role} client (routes.whoami.assignedCount) counts the ${numbers.length} numbers its list returns`).toBe(numbers.length);
    }
  });

  // A later moment: a number's settings changed. The count is of the numbers assigned, whatever
  // they may do or wherever their callbacks go: a server that counts only numbers with SMS or MMS
  // enabled, with a campaignregId, or without an override, is right while every number is so.
  test('the declared count still equals the list\'s length after a number loses SMS, MMS and its campaignregId, and gains webhook overrides', { tag: ['@CTX-005'] }, async ({ api, target, settings, workerNumbers, webhooks }) => {
    const member = target.routes.assignedCount;
    if (member === undefined) notTestable(reasonFor('assignedCount'));
    const number = workerNumbers.share.find((n) => n.role === 'primary');
    if (!number) notTestable('the worker has no number of the primary client whose settings it may change');
    let judged = 0;
    const url = webhooks.channel('count-override').url;
    for (const patch of [{ smsEnabled: false }, { mmsEnabled: false }, { campaignregId: null }, { webhookDeliveryOverride: url }, { webhookInboundOverride: url }]) {
      const changed = await settings.change(number!.numberId, patch);
      if (changed.status < 200 || changed.status >= 300) continue;
      const [res, numbers] = await Promise.all([api.call('whoami'), readNumbers(api)]);
      expect(res).toSucceed('CTX-005: precondition: the client reads its context');
      const count: unknown = (res.body?.assignedNumbers as Record<string, unknown> | undefined)?.[member!];
      expect.soft(count, `CTX-005: after ${JSON.stringify(patch)} on ${number!.numberId}, assignedNumbers.${member} counts the ${numbers.length} numbers the list returns`).toBe(numbers.length);
      judged++;
    }
    if (judged === 0) notTestable(`the target accepted none of the changes to ${number!.numberId}`);
  });
});

// The neighbour of a refused change: the primary client tries to update another client's number
// (with the value it has, so nothing changes even where a server wrongly takes it) and to send
// from it. Both are refused (UPD-002, SEND-004), and a refusal assigns no number to anyone: a
// server that counts what a client touched, not what it holds, is right until one is refused.
test.describe("2, 4.3: assignedNumbers after a refused operation on another client's number", () => {
  test("the declared count still equals each client's list after the primary tried to update, and to send from, the other client's number", { tag: ['@CTX-005'] }, async ({ api, target, knownNumbers, newKey }) => {
    const member = target.routes.assignedCount;
    if (member === undefined) notTestable(reasonFor('assignedCount'));
    const foreign = knownNumbers.foreign;
    if (foreign === undefined || !target.clients.secondary) notTestable("needs another client's number (clients.secondary, numbers.foreign)");
    const theirs = (await readNumbers(api, 'secondary')).find((n) => n.numberId === foreign);
    const unchanged = typeof theirs?.smsEnabled === 'boolean' ? { smsEnabled: theirs.smsEnabled } : {};
    await api.call('update', { params: { numberId: foreign! }, json: unchanged });
    await api.call('send', { headers: { 'idempotency-key': newKey() }, json: { sendFrom: foreign, to: target.recipients.delivered.slice(0, 1), messageType: 'SMS', text: 'Conformance check foreign-count', externalReference: `foreign-count-${newKey().slice(0, 8)}` } });
    for (const role of ['primary', 'secondary'] as const) {
      const [res, numbers] = await Promise.all([api.call('whoami', { as: role }), readNumbers(api, role)]);
      expect(res).toSucceed(`CTX-005: precondition: the ${role} client reads its context`);
      const count: unknown = (res.body?.assignedNumbers as Record<string, unknown> | undefined)?.[member!];
      expect.soft(count, `CTX-005: after the primary client's refused update of, and send from, ${foreign}, assignedNumbers.${member} of the ${role} client counts the ${numbers.length} numbers its list returns`).toBe(numbers.length);
    }
  });
});

/**
 * The client's current webhook URLs, so a test can put them back. A PUT naming no field changes
 * nothing and answers {clientId, delivery, inbound} (reference/README.md, test-control plane);
 * when a target's hook does not report them, a client with no webhook configured is restored to
 * null, and any other is not touched at all.
 */
async function currentWebhooks(hooks: ControlClient, api: ApiClient, clientId: string): Promise<{ delivery: string | null; inbound: string | null }> {
  const answer = (await hooks.clientWebhooks(clientId, {})) as { delivery?: unknown; inbound?: unknown } | undefined;
  const urlOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
  if (answer && urlOrNull(answer.delivery) && urlOrNull(answer.inbound)) return { delivery: answer.delivery, inbound: answer.inbound };
  const context = await api.call('whoami');
  if (context.body?.deliveryWebhookConfigured === false && context.body?.inboundWebhookConfigured === false) return { delivery: null, inbound: null };
  notTestable('the clientWebhooks hook does not report the current webhook URLs, so the test could not put them back afterwards');
}

async function context(api: ApiClient, as: 'primary' | 'secondary' = 'primary'): Promise<ApiResponse> {
  const res = await api.call('whoami', { as });
  expect(res).toSucceed(`CTX-003: the client-context route answers the ${as} client 2xx`);
  return res;
}

test.describe('2 and 6: the context shows whether the client webhooks are configured', () => {
  for (const kind of ['delivery', 'inbound'] as const) {
    const flag = `${kind}WebhookConfigured`;
    const other = kind === 'delivery' ? 'inbound' : 'delivery';
    test(`${flag} is true while a ${kind} webhook is configured and false while none is`, { tag: ['@CTX-003', '@CTX-004'] }, async ({ api, target, triggers, webhooks, settings, knownNumbers }) => {
      const trigger = triggers.require('clientWebhooks');
      // While the flag is true, a number's override of its kind set and then cleared (null)
      // leaves it true: clearing a number's target unconfigures no client webhook (CTX-004,
      // judged here by its message alone, where a configured webhook can be seen).
      // The number is one the settings fixture holds (the worker's share); a client with none has
      // no override to set, and the note says so (CTX-003's own checks stand either way).
      const staysTrueAcrossOverride = async () => {
        const number = knownNumbers.primary[0];
        if (number === undefined) test.info().annotations.push({ type: 'note', description: `the primary client has no number to set a ${kind} override on: CTX-004 is not checked here` });
        else {
          const field = kind === 'delivery' ? 'webhookDeliveryOverride' : 'webhookInboundOverride';
          for (const [what, url] of [['set', webhooks.channel(`ctx-true-${kind}`).url], ['cleared (null)', null]] as const) {
            await pointOverride(settings, number.numberId, field, url, 'CTX-004');
            const after = await context(api);
            expect(after.body[flag], `CTX-004: ${flag} stays true after ${field} of the number ${number.numberId} was ${what}: an override is the number's target, not a client webhook`).toBe(true);
          }
        }
      };
      if (trigger.kind === 'declared') {
        // The target declares the primary client's webhooks configured (at the run's receiver)
        // and, when it says so, which the secondary client has: the flags are read, not moved.
        // A client declared with one kind only is what tells the two flags apart.
        const primary = await context(api);
        expect(primary.body[flag], `CTX-003: ${flag} is true for the primary client, whose ${kind} webhook is declared configured (triggers.clientWebhooks)`).toBe(true);
        await staysTrueAcrossOverride();
        if (trigger.secondary && target.clients.secondary) {
          const configured = trigger.secondary.includes(kind);
          const declared = trigger.secondary.length === 0 ? 'no webhook' : trigger.secondary.length === 1 ? `a ${trigger.secondary[0]} webhook only` : 'both webhooks';
          const secondary = await context(api, 'secondary');
          expect(secondary.body[flag], `CTX-003: ${flag} is ${configured} for the secondary client, declared to have ${declared} (triggers.clientWebhooks.secondary)`).toBe(configured);
        }
        return;
      }
      const hooks = triggers.control;
      // The control plane names a client by its clientId (ARCHITECTURE.md, test-control plane).
      const clientId = target.clients.primary.clientId;
      const original = await currentWebhooks(hooks, api, clientId);
      try {
        // The other kind is cleared so the flag under test is the only one that moves.
        await hooks.clientWebhooks(clientId, { [kind]: webhooks.channel(`ctx-${kind}`).url, [other]: null });
        const configured = await context(api);
        expect(configured.body[flag], `CTX-003: ${flag} is true once a ${kind} webhook is configured`).toBe(true);
        expect(configured.body[`${other}WebhookConfigured`], `CTX-003: ${other}WebhookConfigured stays false: only the ${kind} webhook was configured`).toBe(false);
        await staysTrueAcrossOverride();

        await hooks.clientWebhooks(clientId, { [kind]: null });
        const cleared = await context(api);
        expect(cleared.body[flag], `CTX-003: ${flag} is false once the ${kind} webhook is cleared`).toBe(false);
      } finally {
        await hooks.clientWebhooks(clientId, original);
      }
    });
  }
});

test.describe("6: a number's override is the number's target, not its client's webhook", () => {
  // Section 6 gives a client two webhooks, shown by the two flags, and each number its own
  // override targets. Setting an override configures no client webhook (CTX-004): a flag that
  // is false stays false. A flag already true cannot show it, so each client, and each kind,
  // whose context shows the flag false is tried with that kind's override on one of its numbers.
  test("setting a number's override leaves each false webhook flag of its client false", { tag: ['@CTX-004'] }, async ({ api, target, settings, webhooks }) => {
    const roles = (['primary', 'secondary'] as const).filter((role) => role === 'primary' || target.clients.secondary);
    const tried: string[] = [];
    for (const role of roles) {
      for (const kind of ['delivery', 'inbound'] as const) {
        const flag = `${kind}WebhookConfigured`;
        const field = kind === 'delivery' ? 'webhookDeliveryOverride' : 'webhookInboundOverride';
        const before = await api.call('whoami', { as: role });
        expect(before).toSucceed(`CTX-001: precondition: the ${role} client's context answers 2xx`);
        if (before.body?.[flag] !== false) continue;
        const [number] = await readNumbers(api, role);
        if (!number) continue;
        await pointOverride(settings, number.numberId, field, webhooks.channel(`ctx-override-${role}-${kind}`).url, 'CTX-004', role);
        const after = await api.call('whoami', { as: role });
        expect(after).toSucceed(`CTX-001: precondition: the ${role} client's context answers 2xx`);
        expect(after.body?.[flag], `CTX-004: ${flag} of the ${role} client stays false after ${field} of its number ${number.numberId} was set: an override is the number's target, not a client webhook`).toBe(false);
        tried.push(`${role} ${kind}`);
      }
    }
    if (tried.length === 0) notTestable('no client\'s context shows a webhook flag false with a number to set the override of that kind on: no flag can be seen not to move (declare a client without one kind of webhook, triggers.clientWebhooks.secondary)');
  });
});
