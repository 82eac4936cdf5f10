import { ConfigError } from '../errors.ts';
import type { Fault, FaultDefinition } from './fault.ts';
import { AUTH_FAULTS } from './auth.ts';
import { CONTEXT_FAULTS } from './context.ts';
import { ERRORS_FAULTS } from './errors.ts';
import { NUMBERS_FAULTS } from './numbers.ts';
import { SEARCH_FAULTS } from './search.ts';
import { TOKEN_FAULTS } from './token.ts';
import { UPDATE_FAULTS } from './update.ts';
import { VERSIONING_FAULTS } from './versioning.ts';

// The fault catalogue: deliberate misbehaviours of the reference server, one requirement each,
// that the kill matrix (`npm run sensitivity`, cli/sensitivity.ts) switches on one at a time to
// prove the conformance suites fail a server that breaks the requirement. A fault is reached
// only through `--faults NAME[,NAME]` on the command line (or buildApp's `faults` option in
// tests), never through an environment variable, so an ordinary start cannot pick one up.
//
// Each fault is as narrow as its requirement allows: it changes one behaviour on one path, so
// that a suite catching it has noticed that behaviour and not a side effect. Where other
// tests fail too, it is because they use the broken behaviour as a step (a test that reads a
// callback needs the callback to arrive) or because every response is validated against
// spec/openapi.yaml.

// Faults whose code has not moved into a module of their area yet.
const NOT_YET_MOVED = {
  // ── send (section 4.6) ──────────────────────────────────────────────────────
  'send.missing-key-accepted': {
    breaks: ['SEND-001'],
    description: 'a send without an Idempotency-Key header is accepted under a key the server makes up',
  },
  'send.sms-with-media-accepted': {
    breaks: ['SEND-002'],
    description: 'an SMS carrying media is accepted',
  },
  'send.mms-without-media-accepted': {
    breaks: ['SEND-003'],
    description: 'an MMS without media is accepted',
  },
  'send.foreign-send-from-accepted': {
    breaks: ['SEND-004'],
    description: "a sendFrom naming another client's number is accepted",
  },
  'send.no-campaign-accepted': {
    breaks: ['SEND-005'],
    description: 'a sendFrom number without a campaignregId is accepted',
  },
  'send.e164-send-from-accepted': {
    breaks: ['SEND-006'],
    description: "a sendFrom giving one of the client's own numbers in E.164 form is mapped to its numberId and accepted",
  },
  'send.padded-recipient-accepted': {
    breaks: ['SEND-007'],
    description: 'a recipient with whitespace around an E.164 number is accepted',
  },
  'send.00-prefix-recipient-accepted': {
    breaks: ['SEND-007'],
    description: "a recipient written with the international '00' prefix instead of '+' is accepted",
  },
  'send.long-recipient-accepted': {
    breaks: ['SEND-007'],
    description: 'a recipient of 16 or more digits is accepted (no upper bound on the length)',
  },
  'send.status-not-queued': {
    breaks: ['SEND-008'],
    description: 'accepted messages are reported with status SENT instead of QUEUED',
  },
  'send.errors-array-missing': {
    breaks: ['SEND-009'],
    description: 'the send answer leaves out the errors array when nothing failed',
  },
  'send.empty-to-accepted': {
    breaks: ['SEND-011'],
    description: 'an empty to array is accepted (answered 202 with no results)',
  },
  'send.text-type-accepted': {
    breaks: ['SEND-012'],
    description: "messageType 'TEXT' is accepted as a third type",
  },
  'send.missing-external-reference-accepted': {
    breaks: ['SEND-013'],
    description: 'a send without externalReference is accepted',
  },
  'send.mms-refused': {
    breaks: ['SEND-010'],
    description: 'an MMS is refused as an unknown messageType, even with media from an MMS-capable number',
  },
  'send.missing-type-accepted': {
    breaks: ['SEND-014'],
    description: 'a send without messageType is accepted and sent as an SMS',
  },
  'send.rejected-still-queued': {
    breaks: ['SEND-015'],
    description: 'a send refused for an invalid recipient still hands its delivery callbacks to the dispatcher',
  },

  // ── idempotency (section 4.6 rule 8, Idempotency-Key draft) ─────────────────
  'idempotency.replay-creates-new': {
    breaks: ['IDEM-001'],
    description: 'a retry with the same key and payload queues new messages instead of replaying',
  },
  'idempotency.changed-payload-accepted': {
    breaks: ['IDEM-002'],
    description: 'a reused key with a changed payload is accepted as a new send',
  },
  'idempotency.concurrent-duplicates': {
    breaks: ['IDEM-104'],
    description: 'the idempotency record is written in a later step than the lookup, so concurrent sends with one key each queue messages',
  },

  // ── errors (section 7) ──────────────────────────────────────────────────────
  'errors.flat-router-errors': {
    breaks: ['ERR-001'],
    description: "the router's own refusals (an over-long path parameter) are answered in fastify's flat body, not the CORE wrapper",
  },
  'errors.request-id-missing': {
    breaks: ['ERR-001'],
    description: "the router's own refusals are answered in the CORE wrapper without requestId",
  },
  'errors.forbidden-as-not-found': {
    breaks: ['ERR-002'],
    description: 'a sendFrom numberId that does not exist is answered 403 with error.code NOT_FOUND',
  },
  'errors.malformed-json-500': {
    breaks: ['ERR-003'],
    description: 'a core request with malformed JSON is answered 500 SERVER_ERROR',
  },
  'numbers.sms-only-number-refused': {
    breaks: ['NUM-002'],
    description: "a send from one of the client\'s numbers with MMS disabled is refused 403, even for an SMS",
  },

  // ── webhooks (sections 3, 6; Standard Webhooks) ────────────────────────────
  'webhooks.override-never-sent': {
    breaks: ['WH-001'],
    description: "delivery events are handed to the dispatcher only when the client has a delivery webhook, so one addressed to a number's override alone is never sent",
  },
  'webhooks.wrong-target': {
    breaks: ['WH-001'],
    description: "delivery events go to the client's delivery webhook even when the number has webhookDeliveryOverride set",
  },
  'webhooks.message-id-missing': {
    breaks: ['WH-003'],
    description: 'delivery events carry a message URL instead of the messageId',
  },
  'webhooks.client-delivery-ignored': {
    breaks: ['WH-002'],
    description: "delivery events for a number without webhookDeliveryOverride are never sent to the client\'s delivery webhook",
  },
  'webhooks.inbound-override-ignored': {
    breaks: ['WH-004'],
    description: "inbound messages go to the client\'s inbound webhook even when the number has webhookInboundOverride set",
  },
  'webhooks.client-inbound-ignored': {
    breaks: ['WH-005'],
    description: "inbound messages for a number without webhookInboundOverride are never sent to the client\'s inbound webhook",
  },
  'webhooks.unsigned': {
    breaks: ['WH-101'],
    description: 'callbacks are sent without the webhook-signature header',
  },

} satisfies Record<string, FaultDefinition>;

/** Every fault with the code that breaks the server, in the order of the README's table. */
export const DEFINITIONS = {
  ...NOT_YET_MOVED,
  ...ERRORS_FAULTS,
  ...TOKEN_FAULTS,
  ...AUTH_FAULTS,
  ...CONTEXT_FAULTS,
  ...NUMBERS_FAULTS,
  ...UPDATE_FAULTS,
  ...SEARCH_FAULTS,
  ...VERSIONING_FAULTS,
};

export type FaultName = keyof typeof DEFINITIONS;

/** The catalogue: each fault's name, the requirement it breaks and what the broken server does. */
export const FAULTS: Readonly<Record<FaultName, Fault>> = Object.freeze(
  Object.fromEntries(Object.entries(DEFINITIONS).map(([name, { breaks, description }]) => [name, { breaks, description }])) as Record<FaultName, Fault>,
);

export const FAULT_NAMES = Object.keys(DEFINITIONS) as FaultName[];

export function isFaultName(name: string): name is FaultName {
  return Object.hasOwn(DEFINITIONS, name);
}

/** Refuses names that are not in the catalogue: a misspelt fault would silently break nothing. */
export function assertKnownFaults(names: Iterable<string>): asserts names is Iterable<FaultName> {
  const unknown = [...names].filter((name) => !isFaultName(name));
  if (unknown.length > 0) {
    const what = unknown.length === 1 ? `unknown fault "${unknown[0]}"` : `unknown faults ${unknown.map((name) => `"${name}"`).join(', ')}`;
    throw new ConfigError(`--faults: ${what}; known faults: ${FAULT_NAMES.join(', ')}`);
  }
}

/** Reads the value of `--faults a,b`; an unknown name is a ConfigError that lists the known ones. */
export function parseFaults(value: string): FaultName[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw new ConfigError(`--faults needs at least one fault name; known faults: ${FAULT_NAMES.join(', ')}`);
  assertKnownFaults(names);
  return [...new Set(names)];
}

/**
 * The start-up banner of a faulty server: impossible to miss in a terminal or a CI log, and
 * naming every active fault with the requirement it breaks.
 */
export function faultBanner(faults: Iterable<FaultName>): string {
  const active = [...faults];
  if (active.length === 0) return '';
  const rule = '!'.repeat(78);
  const width = Math.max(...active.map((name) => name.length));
  return [
    rule,
    `!! FAULTS INJECTED: this reference server is deliberately BROKEN (${active.length} fault${active.length === 1 ? '' : 's'}).`,
    '!! It exists for the kill matrix (npm run sensitivity). Never certify against it, never',
    '!! serve real traffic with it.',
    '!!',
    ...active.map((name) => `!!   ${name.padEnd(width)}  breaks ${FAULTS[name].breaks.join(', ')}: ${FAULTS[name].description}`),
    rule,
    '',
  ].join('\n');
}
