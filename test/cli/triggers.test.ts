// End to end: the bundled reference started WITHOUT its control plane, its client webhooks
// pointed at the harness's run receiver at start (--client-webhook: the primary client's both
// kinds, the secondary client's delivery webhook only, as the example declares), certified with
// examples/reference-triggers.yaml (ports filled in): every document-level
// requirement is reached through the declared triggers alone.
import { expect, test } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { tempDir } from '../reports/run-fixture.ts';
import { closedPort, EXAMPLES, runCli, startReference, type Reference } from './helpers.ts';

let reference: Reference | undefined;
test.afterAll(async () => reference?.stop());

test('the reference without its control plane is certified CONFORMANT through triggers only, with nothing at document level out of reach', async () => {
  test.setTimeout(300_000);
  const dir = tempDir('triggers-e2e');
  const [serverPort, receiverPort] = [await closedPort(), await closedPort()];
  const receiver = `http://127.0.0.1:${receiverPort}`;
  reference = await startReference(dir, {
    port: serverPort,
    args: [
      '--client-webhook',
      `primary:delivery=${receiver}/clients/primary/delivery`,
      '--client-webhook',
      `primary:inbound=${receiver}/clients/primary/inbound`,
      '--client-webhook',
      `secondary:delivery=${receiver}/clients/secondary/delivery`,
    ],
  });
  const config = parse(readFileSync(join(EXAMPLES, 'reference-triggers.yaml'), 'utf8')) as Record<string, any>;
  config.baseUrl = reference.baseUrl;
  config.webhooks.listenPort = receiverPort;
  const file = join(dir, 'reference-triggers.yaml');
  writeFileSync(file, stringify(config));
  const primary = reference.fixtures.clients.find((c) => c.role === 'primary')!;

  const out = join(dir, 'out');
  const run = await runCli('cli/certify.ts', ['--config', file, '--out', out], { out, env: { CONFORMANCE_WEBHOOK_SECRET: primary.webhookSecret } });
  expect(run.code, run.stdout.slice(-3000)).toBe(0);
  expect(run.summary).toMatch(/^CONFORMANT /);
  const report = run.report!;
  const outOfReach = report.requirements.filter((r) => r.level === 'document' && r.verdict === 'not testable here').map((r) => `${r.id}: ${r.reasons.join('; ')}`);
  expect(outOfReach).toEqual([]);
  expect(report.counts.document.notTestable).toBe(0);
  // reached as declared, never through a control plane the server does not have
  const reached = new Set(report.requirements.flatMap((r) => r.reachedBy ?? []));
  expect([...reached].sort()).toEqual(['clientWebhooks: declared', 'expireToken: wait', 'failedDelivery: request', 'inbound: loopback', 'upstreamFailure: request']);
});
