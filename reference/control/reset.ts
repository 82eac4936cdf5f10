import type { ReferenceContext } from '../context.ts';
import { fixtureSettings } from '../fixtures/seed.ts';

/**
 * Restores the seeded state between certification runs: no tokens, messages, idempotency
 * records or webhook events, no token or send rate limits counting; client statuses, client webhooks
 * and number settings as the fixtures give them.
 * numberIds and webhook secrets are kept, so a fixtures-out file stays valid.
 */
export async function resetToSeed(ctx: ReferenceContext): Promise<void> {
  ctx.dispatcher.cancelScheduled();
  ctx.tokenGuard.reset();
  ctx.sendRateLimit.reset();
  await ctx.writes.run({
    op: 'resetToSeed',
    clients: ctx.seeded.map(({ apiClientId, fixture }) => ({
      apiClientId,
      status: fixture.status ?? 'ACTIVE',
      deliveryWebhookUrl: fixture.webhooks?.delivery ?? null,
      inboundWebhookUrl: fixture.webhooks?.inbound ?? null,
      numbers: fixture.numbers.map((number) => ({ phoneNumber: number.phoneNumber, settings: fixtureSettings(number) })),
    })),
  });
}
