// The decisions of the reference server that an extension (reference/extension.ts; the kill matrix's faults/) may take
// differently. buildApp builds this object once: referenceBehaviour() is what the reference
// does, and all an ordinary start ever runs; an active fault replaces one member of it. The
// routes, services and dispatcher read these members and know nothing of faults.

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { bearerAuthentication, type Authenticate } from './auth/bearer.ts';
import { coreErrorHandler } from './routes/coreErrorHandler.ts';
import { checkMediaRule, checkNumberCapability, resolveSendFrom } from './send/checks.ts';
import { loopbackArrivals } from './send/loopback.ts';
import { loadRequestSchemas, type RequestSchemas } from './spec/requestSchemas.ts';
import type { Stores } from './store/index.ts';
import { REFERENCE_WEBHOOKS, type WebhookPolicy } from './webhooks/policy.ts';
import type { TargetCheck, WebhookTargets } from './webhooks/targets.ts';

/** What the reference does where a fault may do otherwise. */
export interface Behaviour {
  /** Where the endpoints answer. */
  paths: {
    /** VER-001: no version segment. */
    token: string;
  };
  /** Request schemas: spec/openapi.yaml's, as strict as the profile, and the E.164 pattern recipients must match (SEND-007). */
  schemas: RequestSchemas;
  /** How the router's own refusals (a malformed URL, an over-long path parameter) are answered: the CORE wrapper (ERR-001). */
  frameworkErrors: ((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply) | undefined;
  /** The bearer authentication every /api/core route runs first (section 5, RFC 6750). */
  authenticate: Authenticate;
  /**
   * The send's rules that look at the body and the sendFrom number (section 4.6 rules 2 to 6;
   * profile send.numberCapability), and the inbound traffic a send to the service's own numbers
   * brings about (the loopback trigger: WH-004, WH-005).
   */
  send: {
    checkMediaRule: typeof checkMediaRule;
    resolveSendFrom: typeof resolveSendFrom;
    checkNumberCapability: typeof checkNumberCapability;
    loopbackArrivals: typeof loopbackArrivals;
  };
  /**
   * Whether a webhook override set through the update route is accepted (profile
   * webhook.targets, UPD-210). Deliveries are checked again by the dispatcher, whatever this says.
   */
  checkWebhookTarget: (url: string) => Promise<TargetCheck>;
  /** Where callbacks go (WH-001, WH-002, WH-004, WH-005), what a delivery event says (WH-003) and how callbacks are signed (WH-101). */
  webhooks: WebhookPolicy;
}

/** The reference's own behaviour: the interface document's rules and the reference profile's choices. */
export function referenceBehaviour(stores: Stores, targets: WebhookTargets): Behaviour {
  return {
    paths: { token: '/api/auth/token' },
    schemas: loadRequestSchemas(),
    frameworkErrors: coreErrorHandler,
    authenticate: bearerAuthentication(stores.clients),
    send: { checkMediaRule, resolveSendFrom, checkNumberCapability, loopbackArrivals },
    checkWebhookTarget: (url) => targets.check(url),
    webhooks: REFERENCE_WEBHOOKS,
  };
}
