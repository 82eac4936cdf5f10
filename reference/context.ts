import type { Logger } from 'pino';
import type { TokenGuard } from './auth/tokenGuard.ts';
import type { Behaviour } from './behaviour.ts';
import type { Db } from './db/open.ts';
import type { SimulatedCarrier } from './delivery/carrier.ts';
import type { SeededClient } from './fixtures/seed.ts';
import type { SendRateLimit } from './send/rateLimit.ts';
import type { ReferenceOptions } from './options.ts';
import type { Stores } from './store/index.ts';
import type { Writes } from './store/writes.ts';
import type { UpstreamClient } from './upstream/client.ts';
import type { WebhookDispatcher } from './webhooks/dispatcher.ts';
import type { WebhookTargets } from './webhooks/targets.ts';

/** What the route plugins share; built once by buildApp and passed to each plugin. */
export interface ReferenceContext {
  options: ReferenceOptions;
  /** What the server does where a fault may do otherwise (reference/behaviour.ts). */
  behaviour: Behaviour;
  logger: Logger;
  db: Db;
  writes: Writes;
  stores: Stores;
  seeded: readonly SeededClient[];
  upstream: UpstreamClient;
  dispatcher: WebhookDispatcher;
  /** Rate limits and the cost of failures at the token endpoint. */
  tokenGuard: TokenGuard;
  /** Each client's send rate (profile send.rateLimit). */
  sendRateLimit: SendRateLimit;
  /** Which webhook targets may be called (profile webhook.targets). */
  webhookTargets: WebhookTargets;
  carrier: SimulatedCarrier;
}
