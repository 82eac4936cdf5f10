import type { FastifyInstance } from 'fastify';
import type { Behaviour } from './behaviour.ts';
import type { ReferenceContext } from './context.ts';

/**
 * Code from outside the reference that changes what it does: buildApp's one way in for it
 * (`extensions`, applied in order). The reference as shipped has none; the kill matrix's faults
 * (faults/, not part of the package) are the one user, so nothing of the reference names them.
 */
export interface ReferenceExtension {
  /** Named in the server's warning at start: a changed server says so. */
  readonly name: string;
  /** Replaces members of the behaviour object (reference/behaviour.ts), given the behaviour so far. */
  behaviour?(behaviour: Behaviour, deps: ExtensionDeps): Behaviour;
  /** Registers hooks on the root instance, before any route: they run for every route. */
  register?(app: FastifyInstance, ctx: ReferenceContext): void;
}

/** What an extension's behaviour may read when it replaces a member: the server's seeded state. */
export type ExtensionDeps = Pick<ReferenceContext, 'stores' | 'seeded'>;

/** The behaviour after each extension in turn. */
export function extendedBehaviour(extensions: readonly ReferenceExtension[], behaviour: Behaviour, deps: ExtensionDeps): Behaviour {
  return extensions.reduce((so, extension) => extension.behaviour?.(so, deps) ?? so, behaviour);
}
