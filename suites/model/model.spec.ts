import fc from 'fast-check';
import { HOLDS_EVERYTHING, test } from '../../harness/fixtures.ts';
import { runMark } from '../../harness/interference.ts';
import { readNumbers } from '../../harness/known-numbers.ts';
import { checkProperty, propertySettings } from '../../harness/property.ts';
import { modelCommands, runModelSequence, tourOfEveryStep, type ModelCommand } from '../../harness/model/commands.ts';
import { World, type InboundWay, type WorldOptions } from '../../harness/model/world.ts';
import { acceptedSearch, SEARCH_CANDIDATES } from '../support/core-routes.ts';
import { recordRun } from '../support/properties.ts';

// The whole interface as a model (harness/model/): generated sequences of every operation of the
// document, by both clients and the short-lived one, on every number, each step judged against
// the answers the model of the document allows, and every client's numbers, context and
// callbacks compared with the model after every step that may change them. The first sequence
// tries each kind of step once (tourOfEveryStep); the others are drawn. A failure shrinks to the
// shortest sequence that still fails and counts against the requirement whose clause diverged.

/**
 * Sequences per run: an eighth of a property's cases (3 at the quick depth, --runs 25), so that
 * the send budget, measured per case (harness/send-budget.json), scales with --runs as every
 * property's does; at most 25, a deep run's time being spent where it finds most. Most steps
 * per sequence, by depth.
 */
const sequencesFor = (cases: number) => Math.min(25, Math.max(1, Math.ceil(cases / 8)));
const STEPS = { quick: 24, deep: 40 } as const;

/** The requirements the model judges on every target (a failure of another names its own ID, and counts there too). */
const JUDGED = ['@AUTH-007', '@CTX-004', '@NUM-006', '@UPD-003', '@UPD-007', '@SEND-008', '@SEND-009', '@IDEM-001', '@IDEM-002', '@IDEM-004', '@ERR-007'];

test.describe('the document as a model: generated sequences of every operation', () => {
  test('every answer, list, context and callback of a generated sequence is one the model of the document allows', { tag: JUDGED, ...HOLDS_EVERYTHING }, async ({ api, target, knownNumbers, settings, webhooks, triggers, runSettings }) => {
    // Every settable attribute of every number of both clients is put back after the test,
    // whatever the sequences did to them (refused updates a server wrongly applied included).
    for (const role of ['primary', 'secondary'] as const) {
      if (!target.clients[role]) continue;
      for (const record of await readNumbers(api, role)) settings.remember(record, role);
    }
    const hooks = await triggers.clientWebhookChannels('CTX-001');
    try {
      const expire = target.triggers.expireToken;
      const inbound = inboundWay(target, knownNumbers, triggers);
      const options: WorldOptions = {
        api,
        target,
        channel: (label) => webhooks.channel(label),
        clientHooks: hooks.channels,
        ...(expire?.kind === 'wait' && { brief: { credentials: expire.client, maxWaitSeconds: expire.maxWaitSeconds } }),
        ...(inbound && { inbound }),
        recipients: { delivered: target.recipients.delivered, failing: target.triggers.failedDelivery?.recipients ?? [] },
        mark: () => runMark(runSettings.runDir),
      };
      const search = await acceptedSearch(api);
      const upstream = target.triggers.upstreamFailure;
      // Other searches: the candidates, and each of their fields alone with a value no inventory holds (a search that finds nothing).
      const candidates = [...SEARCH_CANDIDATES, ...Object.keys(SEARCH_CANDIDATES[3]!).map((field) => ({ [field]: field === 'state' ? 'ZZ' : field === 'npa' || field === 'nxx' ? '999' : field === 'zipCode' ? '00000' : 'Nowhere' }))];
      if (search.body) options.search = { accepted: search.body, candidates, failures: upstream?.kind === 'request' ? upstream.requests : [] };
      // A token of the short-lived client obtained now runs out while the sequences run: the tour's
      // AwaitExpiry then finds it expired without waiting.
      if (options.brief) {
        const { clientId, clientSecret } = options.brief.credentials;
        const requestedAt = Date.now();
        const res = await api.call('token', { json: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
        if (res.status >= 200 && res.status < 300 && typeof res.body?.access_token === 'string' && Number.isInteger(res.body.expires_in)) {
          options.earlyTokens = [{ role: 'brief', value: res.body.access_token, requestedAt, receivedAt: Date.now(), expiresInSeconds: res.body.expires_in }];
        }
      }
      const world = new World(options);
      const depth = runSettings.property.depth;
      const property = propertySettings();
      const constraints = {
        roles: world.roles(),
        mms: knownNumbers.mms !== undefined && target.mediaSample.length > 0,
        loopback: inbound?.kind === 'loopback',
        inboundByControl: inbound?.kind === 'control',
      };
      const sequences = modelCommands({ ...constraints, maxCommands: STEPS[depth], ...(property.replayPath === undefined ? {} : { replayPath: property.replayPath }) });
      const judged = JUDGED.map((tag) => tag.slice(1));
      const run = await checkProperty(judged, fc.asyncProperty(sequences, (commands: Iterable<ModelCommand>) => runModelSequence(world, commands)), {
        settings: { ...property, numRuns: sequencesFor(property.numRuns) },
        grep: '"generated sequence is one the model"',
        // Each shrinking step replays a whole sequence against the target.
        shrinkBudgetMs: 20_000,
      });
      // Then the tour: every kind of step once, last, so that the short-lived token obtained before
      // the drawn sequences has run out by the time it is used and nobody waits for it. A replay
      // (--path) is of a drawn sequence, so it skips the tour.
      if (property.path === undefined) {
        await checkProperty(judged, fc.asyncProperty(fc.constant(tourOfEveryStep(constraints)), (commands) => runModelSequence(world, commands)), { settings: { ...property, numRuns: 1 }, grep: '"generated sequence is one the model"' });
      }
      recordRun(run);
    } finally {
      await hooks.release();
    }
  });
});

/** How the model brings inbound traffic about (triggers.inbound), or undefined: then it awaits none. */
function inboundWay(target: Parameters<typeof readNumbers>[0]['target'], known: { primary: Array<Record<string, unknown>> }, triggers: { control: { inbound(body: { numberId: string; from: string; text: string }): Promise<unknown> } }): InboundWay | undefined {
  const trigger = target.triggers.inbound;
  if (!trigger) return undefined;
  if (trigger.kind === 'control') {
    const numberId = known.primary.find((n) => typeof n.campaignregId === 'string')?.numberId;
    const from = target.recipients.delivered[0];
    if (typeof numberId !== 'string' || from === undefined) return undefined;
    return { kind: 'control', numberId, deliver: async (text) => void (await triggers.control.inbound({ numberId, from, text })) };
  }
  const { phoneNumber } = trigger.to;
  const numberId = trigger.to.numberId ?? known.primary.find((n) => Object.values(n).includes(phoneNumber))?.numberId;
  return typeof numberId === 'string' ? { kind: 'loopback', numberId, phone: phoneNumber } : undefined;
}
