// What a target config needs to reach each requirement it cannot reach now, as YAML a person can
// paste: one snippet per name the catalogue's `needs` use, the fields and kinds config.schema.json
// takes, secrets and values only the vendor knows as ${VAR}s. The reporter prints the snippet
// beside each requirement reported "not testable here" for want of it, the dry run beside each
// one out of reach, and `init` writes every trigger's stub, commented, into the config it writes.
// One table, so the three say the same.
import type { Capability } from './config.ts';
import { reasonFor } from './plan.ts';

/** A trigger's stub: the kinds that reach it, the lines of the kind shown (indented under `triggers:`), and what else of the config that kind needs. */
interface TriggerStub {
  kinds: string;
  lines: string[];
  /** Top-level lines the kind shown needs beside it. */
  alongside?: string[];
}

/** Where the run's receiver listens, fixed: declared client webhooks point at it. */
const FIXED_LISTEN_PORT = ['webhooks:', '  listenPort: 8787                 # fixed: the declared client webhooks point at <webhooks.publicUrl, or http://listenHost:8787>/clients/primary/…'];

const CONTROL_PLANE = ['hooks:', '  controlUrl: "${CONTROL_URL}"       # a test-control plane (reference/README.md, Test-control plane)'];

const TRIGGER_STUBS: Record<Capability, TriggerStub> = {
  upstreamFailure: {
    kinds: 'request (searches your sandbox answers as an upstream failure, 502 with details.providerStatus) or control',
    lines: [
      '  upstreamFailure:',
      '    kind: request',
      '    requests:                      # body: merged into each search your sandbox accepts; providerStatus: what details.providerStatus must carry',
      '      - { body: { rateCenter: "${UPSTREAM_FAILURE_RATE_CENTER}" }, providerStatus: 503 }',
    ],
  },
  expireToken: {
    kinds: 'wait (a client whose tokens live briefly; only a wait shows how long a token lived) or control',
    lines: [
      '  expireToken:',
      '    kind: wait',
      '    client: { clientId: "${SHORT_TOKEN_CLIENT_ID}", clientSecret: "${SHORT_TOKEN_CLIENT_SECRET}" }',
      '    maxWaitSeconds: 30             # its token must be refused within this',
    ],
  },
  clientWebhooks: {
    kinds: 'declared (the primary client\'s webhooks point at the run\'s receiver: <publicUrl>/clients/primary/delivery and …/inbound) or control',
    alongside: FIXED_LISTEN_PORT,
    lines: [
      '  clientWebhooks:',
      '    kind: declared',
      '    secondary: []                  # the kinds the secondary client has configured: [], [delivery], [inbound] or both',
    ],
  },
  inbound: {
    kinds: 'loopback (a send to another of the primary client\'s own numbers arrives there as inbound traffic) or control',
    lines: [
      '  inbound:',
      '    kind: loopback',
      '    to: { phoneNumber: "${INBOUND_PHONE_NUMBER}" }   # one of the primary client\'s own numbers (numberId: found in the list unless given)',
    ],
  },
  failedDelivery: {
    kinds: 'request (recipients whose messages your sandbox ends FAILED)',
    lines: [
      '  failedDelivery:',
      '    kind: request',
      '    recipients: ["${FAILING_RECIPIENT}"]   # must match recipients.allowPattern',
    ],
  },
  clientStatus: {
    kinds: 'control only (the test-control plane suspends the secondary client, then makes it ACTIVE again)',
    alongside: CONTROL_PLANE,
    lines: ['  clientStatus: { kind: control }'],
  },
};


/** The snippet that supplies `need` (a name of the catalogue's `needs`), or undefined for one no config gives. */
export function snippetFor(need: string): string[] | undefined {
  if (Object.hasOwn(TRIGGER_STUBS, need)) {
    const stub = TRIGGER_STUBS[need as Capability];
    return [...(stub.alongside ?? []), 'triggers:', ...stub.lines];
  }
  switch (need) {
    case 'tokenLifetime':
      return ['triggers:', ...TRIGGER_STUBS.expireToken.lines];
    case 'upstreamStall':
      return [...CONTROL_PLANE, 'triggers:', '  upstreamFailure: { kind: control }'];
    case 'secondClient':
      return ['clients:', '  secondary: { clientId: "${CONFORMANCE_SECONDARY_CLIENT_ID}", clientSecret: "${CONFORMANCE_SECONDARY_CLIENT_SECRET}" }'];
    case 'specialCharsClient':
      return ['clients:', '  special: { clientId: "${SPECIAL_CLIENT_ID}", clientSecret: "${SPECIAL_CLIENT_SECRET}" }   # an id or secret with \':\' or \'+\''];
    case 'webhookSecret':
      return ['webhooks:', '  secret: "${CONFORMANCE_WEBHOOK_SECRET}"   # the primary client\'s webhook signing secret (whsec_…); the variable alone is enough too'];
    case 'finalStatuses':
      return ['webhooks:', '  finalStatuses: [DELIVERED, FAILED]   # the status values your delivery events give a final outcome'];
    default:
      return undefined;
  }
}

/** The names of the catalogue's `needs` a config can supply, each with the reason a requirement lacking it is given. */
const NEEDS = [...Object.keys(TRIGGER_STUBS), 'tokenLifetime', 'upstreamStall', 'secondClient', 'specialCharsClient', 'webhookSecret', 'finalStatuses'];

/**
 * The snippet that would reach a requirement reported not testable with `reason`, when the
 * reason is the one a missing config field gives (harness/plan.ts reasonFor); undefined for a
 * reason the target's data gives at run time (a second client without numbers), which no config
 * line fixes.
 */
export function snippetForReason(reason: string): string[] | undefined {
  const need = NEEDS.find((n) => reasonFor(n) === reason);
  return need === undefined ? undefined : snippetFor(need);
}

/**
 * Every trigger as a commented stub under `triggers:`, each with the kinds that reach it and the
 * requirements it reaches (`reaches`: from the catalogue's needs), for the config `init` writes.
 */
export function commentedTriggerStubs(reaches: (capability: Capability) => string[]): string[] {
  const alongside = [...new Set(Object.values(TRIGGER_STUBS).flatMap((s) => (s.alongside ? [s.alongside.join('\n')] : [])))].flatMap((block) => block.split('\n'));
  const lines = [
    ...alongside.map((l) => `# ${l}`),'# triggers:                         # how your sandbox reaches what a client cannot bring about by itself (README: Declare your triggers);', '#                                   # uncomment and fill in each you have: one left out is reported not testable here'];
  for (const [capability, stub] of Object.entries(TRIGGER_STUBS) as Array<[Capability, TriggerStub]>) {
    const ids = reaches(capability);
    lines.push(`#   # ${capability}${ids.length > 0 ? ` reaches ${ids.join(', ')}` : ''}; kinds: ${stub.kinds}${stub.kinds.endsWith('or control') ? ' (through hooks.controlUrl)' : ''}`);
    lines.push(...stub.lines.map((l) => `# ${l}`));
  }
  return lines;
}

/** Requirements not testable here, grouped by reason: each reason once, with the requirements it holds back and its snippet. */
export interface OutOfReach {
  reason: string;
  ids: string[];
  snippet: string[] | undefined;
}

export function outOfReach(requirements: ReadonlyArray<{ id: string; reasons: readonly string[] }>): OutOfReach[] {
  const byReason = new Map<string, string[]>();
  for (const r of requirements) for (const reason of r.reasons) byReason.set(reason, [...(byReason.get(reason) ?? []), r.id]);
  return [...byReason].map(([reason, ids]) => ({ reason, ids, snippet: snippetForReason(reason) }));
}

/** The groups as text lines: the requirements and the reason, then the snippet indented under them. */
export function renderOutOfReach(groups: readonly OutOfReach[], indent = '  '): string[] {
  return groups.flatMap((g) => [`${indent}${g.ids.join(', ')}: ${g.reason}`, ...(g.snippet ? [`${indent}  in the target config:`, ...g.snippet.map((l) => `${indent}    ${l}`)] : [])]);
}
