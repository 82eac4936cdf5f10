import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { startChildServer } from './childServer.ts';

// Can failed authentications by others lock a client out of its tokens? An attacker who knows a
// client id sends wrong secrets for it at a steady rate, each request from the next of many
// loopback source addresses (127.0.0.2, 127.0.0.3, ...), as a botnet would; meanwhile the
// legitimate client asks for a token with its right secret from its own address (127.0.0.1),
// first a few seconds into the attack, then every few seconds. Prints what each got; asserts
// nothing. The reference runs with its default limits.
//   npx tsx bench/token-lockout.ts [--duration 30] [--rate 10] [--sources 250] [--first 5] [--every 3]

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '30' },
    rate: { type: 'string', default: '10' },
    sources: { type: 'string', default: '250' },
    first: { type: 'string', default: '5' },
    every: { type: 'string', default: '3' },
  },
});
const durationMs = Number(values.duration) * 1000;
const rate = Number(values.rate);
const sources = Math.min(253, Number(values.sources));
const firstMs = Number(values.first) * 1000;
const everyMs = Number(values.every) * 1000;

interface Fixtures {
  clients: Array<{ role: string; clientId: string; clientSecret: string }>;
}

const workDir = mkdtempSync(join(tmpdir(), 'token-lockout-'));
const fixturesOut = join(workDir, 'fixtures.json');
const server = await startChildServer('reference/main.ts', ['--port', '0', '--db', join(workDir, 'bench.db'), '--fresh', '--log-level', 'error', '--fixtures-out', fixturesOut]);

const tally = (map: Map<number, number>, status: number) => map.set(status, (map.get(status) ?? 0) + 1);
const asObject = (map: Map<number, number>) => JSON.stringify(Object.fromEntries([...map].sort(([a], [b]) => a - b)));

try {
  const fixtures = JSON.parse(readFileSync(fixturesOut, 'utf8')) as Fixtures;
  const victim = fixtures.clients.find((client) => client.role === 'primary')!;
  const agents = Array.from({ length: sources }, (_, i) => new Agent({ localAddress: `127.0.0.${i + 2}` }));
  const own = new Agent({ localAddress: '127.0.0.1' });
  const tokenRequest = async (secret: string, dispatcher: Agent) => {
    const answer = await request(`${server.baseUrl}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: victim.clientId, client_secret: secret }),
      dispatcher,
    });
    await answer.body.dump();
    return answer.statusCode;
  };

  const attack = new Map<number, number>();
  const legitimate: Array<{ atSeconds: number; status: number; ms: number }> = [];
  const started = performance.now();
  const inFlight: Array<Promise<unknown>> = [];

  // The attack: `rate` wrong secrets a second, each from the next source address.
  const attacker = (async () => {
    for (let i = 0; performance.now() - started < durationMs; i += 1) {
      const wait = started + (i * 1000) / rate - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      inFlight.push(tokenRequest(`wrong-${i}`, agents[i % sources]!).then((status) => tally(attack, status), () => tally(attack, 0)));
    }
  })();
  // The legitimate client: its right secret, from its own address.
  const victimLoop = (async () => {
    for (let at = firstMs; at < durationMs; at += everyMs) {
      const wait = started + at - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const began = performance.now();
      const status = await tokenRequest(victim.clientSecret, own).catch(() => 0);
      legitimate.push({ atSeconds: Math.round((began - started) / 100) / 10, status, ms: Math.round(performance.now() - began) });
    }
  })();
  await Promise.all([attacker, victimLoop]);
  await Promise.all(inFlight);
  await Promise.all([...agents, own].map((agent) => agent.close()));

  const served = legitimate.filter((attempt) => attempt.status === 200).length;
  const first = legitimate[0];
  console.log(`attack: ${rate} wrong secrets/s for ${victim.clientId} from ${sources} rotating source addresses for ${durationMs / 1000} s; answers by status ${asObject(attack)}`);
  console.log(`legitimate client (right secret, 127.0.0.1): first try at ${first?.atSeconds} s answered ${first?.status} in ${first?.ms} ms; ${served} of ${legitimate.length} tries got a token`);
  console.log(`  tries: ${legitimate.map((attempt) => `${attempt.atSeconds}s:${attempt.status}`).join(' ')}`);
} finally {
  await server.stop();
  rmSync(workDir, { recursive: true, force: true });
}
