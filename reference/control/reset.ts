import type { ReferenceContext } from '../context.ts';
import { fixtureSettings } from '../fixtures/seed.ts';

/**
 * Restores the seeded state between certification runs: no tokens, messages, idempotency
 * records or webhook events; client webhooks and number settings as the fixtures give them.
 * numberIds and webhook secrets are kept, so a fixtures-out file stays valid.
 */
export function resetToSeed(ctx: ReferenceContext): void {
  ctx.dispatcher.cancelScheduled();
  ctx.db.transaction(() => {
    for (const table of ['tokens', 'messages', 'idempotency', 'webhook_outbox']) ctx.db.prepare(`DELETE FROM ${table}`).run();
    for (const seeded of ctx.seeded) {
      const { fixture } = seeded;
      ctx.stores.clients.setWebhooks(seeded.apiClientId, fixture.deliveryWebhookUrl ?? null, fixture.inboundWebhookUrl ?? null);
      for (const number of fixture.numbers) {
        const stored = ctx.stores.numbers.byPhoneNumber(number.phoneNumber);
        if (stored) ctx.stores.numbers.update(stored.numberId, fixtureSettings(number));
      }
    }
  })();
}
