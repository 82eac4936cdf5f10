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
import { freePorts } from '../../cli/free-port.ts';
import { closedPort, EXAMPLES, runCli, startReference, type Reference } from './helpers.ts';

let reference: Reference | undefined;
test.afterAll(async () => reference?.stop());

test('the reference without its control plane is certified CONFORMANT through triggers only, with nothing at document level out of reach', async () => {
  test.setTimeout(300_000);
  const dir = tempDir('triggers-e2e');
  const [serverPort, receiverPort] = [await closedPort(), await freePorts(2)];
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

// The same server, and two configs a user gets wrong: each stops in the preflight (exit 2),
// naming what to fix, where the webhook requirements failed on a correct server before.
test.describe('declared client webhooks the config does not match', () => {
  async function misconfigured(name: string, change: (config: Record<string, any>, receiverPort: number) => Promise<void>) {
    const dir = tempDir(`triggers-${name}`);
    const [serverPort, receiverPort] = [await closedPort(), await freePorts(2)];
    const server = await startReference(dir, {
      port: serverPort,
      args: ['--client-webhook', `primary:delivery=http://127.0.0.1:${receiverPort}/clients/primary/delivery`],
    });
    try {
      const config = parse(readFileSync(join(EXAMPLES, 'reference-triggers.yaml'), 'utf8')) as Record<string, any>;
      config.baseUrl = server.baseUrl;
      config.webhooks.listenPort = receiverPort;
      config.webhooks.timeoutMs = 3000;
      await change(config, receiverPort);
      const file = join(dir, `${name}.yaml`);
      writeFileSync(file, stringify(config));
      const out = join(dir, 'out');
      return await runCli('cli/certify.ts', ['--config', file, '--out', out, '--grep', '@WH-00[1-5]'], { out });
    } finally {
      await server.stop();
    }
  }

  test('a publicUrl the target cannot reach, while the client webhook it was started with reaches the receiver, stops the run naming publicUrl', async () => {
    test.setTimeout(120_000);
    const run = await misconfigured('public-url', async (config) => void (config.webhooks.publicUrl = `http://127.0.0.1:${await closedPort()}`));
    expect(run.code, run.stdout.slice(-3000)).toBe(2);
    expect(run.summary).toMatch(/^HARNESS ERROR \(stopped: PreflightError: a callback came by the primary client's declared delivery webhook, and none by the number's override/);
    expect(run.stdout + run.stderr).toContain('check:  webhooks.publicUrl in');
  });

  test("a receiver moved to another port than the one the client's webhook points at stops the run naming the client webhook", async () => {
    test.setTimeout(120_000);
    const run = await misconfigured('moved-port', async (config) => void (config.webhooks.listenPort = await closedPort()));
    expect(run.code, run.stdout.slice(-3000)).toBe(2);
    expect(run.summary).toMatch(/^HARNESS ERROR \(stopped: PreflightError: no callback came by the primary client's declared delivery webhook/);
    expect(run.stdout + run.stderr).toMatch(/check:  the primary client's delivery webhook on your side: it must point at http:\/\/127\.0\.0\.1:\d+\/clients\/primary\/delivery/);
  });
});

// The preflight's round trip sets a number's override and puts it back, then sends for the
// client's declared webhook from another number it did not touch (or from the same one, which
// a target that keeps the override it was told to forget reports to that override: the
// receiver and the config are fine either way). The run goes on and the suites judge WH-002,
// where the preflight blamed the client webhook's address before.
test('a target that keeps a cleared override is judged on WH-002, not stopped as a config problem', async () => {
  test.setTimeout(180_000);
  const dir = tempDir('triggers-cleared-override');
  const [serverPort, receiverPort] = [await closedPort(), await freePorts(2)];
  const server = await startReference(dir, {
    port: serverPort,
    args: ['--client-webhook', `primary:delivery=http://127.0.0.1:${receiverPort}/clients/primary/delivery`, '--faults', 'webhooks.cleared-override-still-used'],
    entry: 'faults/main.ts',
  });
  try {
    const config = parse(readFileSync(join(EXAMPLES, 'reference-triggers.yaml'), 'utf8')) as Record<string, any>;
    config.baseUrl = server.baseUrl;
    config.webhooks.listenPort = receiverPort;
    config.webhooks.timeoutMs = 3000;
    config.triggers.clientWebhooks = { kind: 'declared', secondary: [] };
    const file = join(dir, 'cleared-override.yaml');
    writeFileSync(file, stringify(config));
    const out = join(dir, 'out');
    const run = await runCli('cli/certify.ts', ['--config', file, '--out', out, '--grep', '@WH-002', '--workers', '1'], { out });
    expect(run.code, run.stdout.slice(-3000)).toBe(1);
    expect(run.summary).toMatch(/^(NOT CONFORMANT|PARTIAL)/);
    expect(run.report!.requirements.find((r) => r.id === 'WH-002')?.verdict).toBe('fail');
    expect(run.stdout + run.stderr, 'the preflight does not blame the client webhook\'s address').not.toContain('no callback came by the primary client\'s declared delivery webhook');
  } finally {
    await server.stop();
  }
});
