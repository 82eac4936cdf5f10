import { fromFixturesFile, type FixturesFile } from '../harness/config.ts';
import type { TargetDescription } from '../reference/fixtures/out.ts';
import { choiceRoute, PROFILE_WIRE_CHOICES, type WireChoices } from '../reference/options.ts';

/**
 * The combinations of open choices the choice matrix (cli/choice-matrix.ts) certifies the
 * reference under: together they give every value of every choice (reference/options.ts
 * WIRE_CHOICES) at least once, which test/cli/choice-matrix.test.ts checks. Each names only what
 * differs from the reference profile.
 */
export const CHOICE_COMBINATIONS: ReadonlyArray<{ name: string; choices: Partial<WireChoices> }> = [
  {
    name: 'posts-and-bare-array',
    choices: {
      'whoami.method': 'POST',
      'whoami.shapes': 'objects',
      'numbers.method': 'POST',
      'numbers.envelope': 'array',
      'numbers.record': 'minimal',
      'search.route': 'POST /api/core/inventory/search',
      'update.route': 'PUT /api/core/numbers/{numberId}/settings',
      'update.answer': 'empty',
      'update.foreignNumber': '403',
      'send.successStatus': '200',
      'send.results': 'status-on-body',
      'send.unsafeRetry': '422',
      'send.inFlight': '409',
      'token.invalidClient': '400',
    },
  },
  {
    name: 'data-envelope-and-201',
    choices: {
      'numbers.envelope': 'data',
      'numbers.record': 'id-only',
      'search.route': 'PUT /api/core/numbers/search',
      'update.route': 'POST /api/core/numbers/{numberId}/settings',
      'update.foreignNumber': '403',
      'send.successStatus': '201',
      'send.results': 'ids-only',
      'webhook.payload': 'flat',
      'send.inFlight': '409',
    },
  },
  {
    name: 'items-envelope-and-empty-update',
    choices: {
      'numbers.envelope': 'items',
      'update.answer': 'empty',
      'send.rejections': 'stored',
      'webhook.signing': 'none',
      'send.unsafeRetry': '422',
      'token.invalidClient': '400',
    },
  },
  {
    // The profile's routes and envelope without the profile: the statuses alone differ.
    name: 'profile-routes-other-statuses',
    choices: {
      'update.foreignNumber': '403',
      'send.successStatus': '200',
      'send.unsafeRetry': '422',
    },
  },
];

/** The profile's answers with a combination's own over them. */
export function wireOf(choices: Partial<WireChoices>): WireChoices {
  return { ...PROFILE_WIRE_CHOICES, ...choices };
}

/** The reference's flags for a combination: a --choice for each answer that is not the profile's. */
export function choiceFlags(choices: Partial<WireChoices>): string[] {
  return Object.entries(choices).flatMap(([name, value]) => ['--choice', `${name}=${value}`]);
}

/**
 * The target config (harness/config.schema.json) a vendor with these answers would write: the
 * reference's fixtures (clients, recipients, test hooks) without the reference profile, with its
 * own routes and envelope, the numbers to send from when its numbers list shows nothing but
 * numberIds, and no webhook secret when it does not sign callbacks. Statuses need no config: the
 * harness must accept every legal one.
 */
export function vendorConfig(name: string, fixtures: TargetDescription, wire: WireChoices): object {
  const envelope = wire['numbers.envelope'];
  const numbersOf = (role: string) => fixtures.clients.find((client) => client.role === role)?.numbers ?? [];
  const registered = numbersOf('primary').filter((n) => n.campaignregId !== null);
  const signed = wire['webhook.signing'] !== 'none';
  const clients = fixtures.clients.map(({ webhookSecret, ...client }) => ({ ...client, ...(signed && { webhookSecret }) }));
  const base = fromFixturesFile({ ...fixtures, clients } as FixturesFile, name);
  return {
    ...base,
    ...(wire['numbers.record'] === 'id-only' && {
      numbers: {
        ...base.numbers,
        sms: registered.find((n) => n.smsEnabled)?.numberId,
        mms: registered.find((n) => n.mmsEnabled)?.numberId,
        foreign: numbersOf('secondary')[0]?.numberId,
      },
    }),
    label: `reference with the choices ${name}`,
    profile: 'none',
    routes: {
      // The reference's context counts its numbers in total, or in count with the objects shapes.
      whoami: { method: wire['whoami.method'], path: '/api/core/whoami', assignedCount: wire['whoami.shapes'] === 'objects' ? 'count' : 'total' },
      numbers: { method: wire['numbers.method'], path: '/api/core/numbers', itemsPath: envelope === 'array' ? null : envelope },
      search: choiceRoute(wire['search.route']),
      update: choiceRoute(wire['update.route']),
    },
  };
}
