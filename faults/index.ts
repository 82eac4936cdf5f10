import { ConfigError } from '../reference/errors.ts';
import type { Fault } from './fault.ts';
import { AUTH_FAULTS } from './auth.ts';
import { CONTEXT_FAULTS } from './context.ts';
import { ERRORS_FAULTS } from './errors.ts';
import { IDEMPOTENCY_FAULTS } from './idempotency.ts';
import { NUMBERS_FAULTS } from './numbers.ts';
import { SEARCH_FAULTS } from './search.ts';
import { SEND_FAULTS } from './send.ts';
import { TOKEN_FAULTS } from './token.ts';
import { UPDATE_FAULTS } from './update.ts';
import { VERSIONING_FAULTS } from './versioning.ts';
import { WEBHOOKS_FAULTS } from './webhooks.ts';

// The fault catalogue: deliberate misbehaviours of the reference server, one requirement each,
// that the kill matrix (`npm run sensitivity`, cli/sensitivity.ts) switches on one at a time to
// prove the conformance suites fail a server that breaks the requirement. A fault is reached
// only through `faults/main.ts --faults NAME[,NAME]` (or buildApp's `extensions` option in
// tests), never through an environment variable, so an ordinary start cannot pick one up.
//
// Each fault is as narrow as its requirement allows: it changes one behaviour on one path, so
// that a suite catching it has noticed that behaviour and not a side effect. Where other
// tests fail too, it is because they use the broken behaviour as a step (a test that reads a
// callback needs the callback to arrive) or because every response is validated against
// spec/openapi.yaml.
//
// Each area's faults live in its module (send.ts, token.ts, ...), each entry with the code that
// breaks the server beside its description; fault.ts says how a fault may break it, inject.ts
// applies the active ones, and this file joins the areas into the catalogue.

/** Every fault with the code that breaks the server, in the order of the README's table. */
export const DEFINITIONS = {
  ...SEND_FAULTS,
  ...IDEMPOTENCY_FAULTS,
  ...ERRORS_FAULTS,
  ...TOKEN_FAULTS,
  ...AUTH_FAULTS,
  ...CONTEXT_FAULTS,
  ...NUMBERS_FAULTS,
  ...UPDATE_FAULTS,
  ...SEARCH_FAULTS,
  ...WEBHOOKS_FAULTS,
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
