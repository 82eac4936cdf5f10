// npx tsx bench/property-throughput.ts [--cases N] [--concurrency C]
//
// Property cases per second through the harness (fast-check payloads → validating client:
// token manager, schema validation of every answer, redacted evidence) beside a raw undici
// loop sending the very same requests to the same reference server, measured in one run and
// interleaved so machine noise hits both alike. Target (issue 5): the harness keeps at least
// 50% of the raw rate.
import fc from 'fast-check';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { validSendPayload } from '../generators/valid-send-payload.ts';
import { ApiClient } from '../harness/api-client.ts';
import { loadTarget } from '../harness/config.ts';
import { EvidenceLog } from '../harness/evidence.ts';
import { ResponseValidator } from '../harness/response-validator.ts';
import { SendGuard } from '../harness/send-guard.ts';
import { TokenManager } from '../harness/token-manager.ts';
import { undiciTransport } from '../harness/transport.ts';
import { startChildServer } from './childServer.ts';

const { values } = parseArgs({ options: { cases: { type: 'string', default: '3000' }, concurrency: { type: 'string', default: '16' } } });
const CASES = Number(values.cases);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = 3;

const dir = mkdtempSync(join(tmpdir(), 'bench-property-'));
const fixtures = join(dir, 'fixtures.json');
// Sends as fast as the harness makes them, from one client: the send rate limit lifted.
const server = await startChildServer('reference/main.ts', ['--port', '0', '--db', join(dir, 'ref.db'), '--fresh', '--log-level', 'error', '--fixtures-out', fixtures, '--send-messages-per-second', '1000000']);
try {
  const target = loadTarget(fixtures, process.env);
  const fixtureFile = JSON.parse(readFileSync(fixtures, 'utf8')) as { clients: Array<{ role: string; numbers: Array<{ numberId: string; campaignregId: string | null; mmsEnabled: boolean }> }> };
  const numbers = fixtureFile.clients.find((c) => c.role === 'primary')!.numbers.filter((n) => n.campaignregId);
  const payloads = fc.sample(
    validSendPayload({ numberIds: numbers.map((n) => n.numberId), mmsNumberIds: numbers.filter((n) => n.mmsEnabled).map((n) => n.numberId), outcome: 'DELIVERED' }),
    { numRuns: CASES, seed: 42 },
  );

  const validator = new ResponseValidator();
  const transport = undiciTransport(CONCURRENCY);
  const tokens = {
    primary: new TokenManager({
      obtain: async () => {
        const res = await transport(
          { method: 'POST', url: `${target.baseUrl}/api/auth/token`, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: target.clients.primary.clientId, client_secret: target.clients.primary.clientSecret }) },
          10_000,
        );
        const body = JSON.parse(res.text);
        return { accessToken: body.access_token, expiresAt: Date.now() + body.expires_in * 1000 };
      },
    }),
  };
  const token = await tokens.primary.token();
  const raw = new Agent({ connections: CONCURRENCY });

  let round = 0;
  async function pool(run: (i: number) => Promise<number>): Promise<number> {
    let next = 0;
    let failures = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < CASES; i = next++) if ((await run(i)) >= 300 && ++failures === 1) console.error(`case ${i} not accepted: ${JSON.stringify(payloads[i])}`);
      }),
    );
    if (failures) throw new Error(`${failures} sends were not accepted: the comparison would be unfair`);
    return CASES / ((performance.now() - started) / 1000);
  }
  const rawRun = () =>
    pool(async (i) => {
      const res = await request(`${target.baseUrl}/api/core/messages/send`, {
        method: 'POST',
        dispatcher: raw,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `raw-${round}-${i}` },
        body: JSON.stringify(payloads[i]),
      });
      const text = await res.body.text();
      if (res.statusCode >= 300 && i < 1) console.error(res.statusCode, text);
      return res.statusCode;
    });
  const harnessRun = () => {
    const api = new ApiClient({ target, transport, validator, evidence: new EvidenceLog(), guard: new SendGuard(target.recipients.allowPattern, Infinity), tokens });
    return pool(async (i) => (await api.call('send', { headers: { 'idempotency-key': `harness-${round}-${i}` }, json: payloads[i] })).status);
  };

  const rates = { raw: [] as number[], harness: [] as number[] };
  await rawRun(); // warm-up: JIT, SQLite pages, connection pools
  for (round = 1; round <= ROUNDS; round++) {
    rates.raw.push(await rawRun());
    rates.harness.push(await harnessRun());
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const r = median(rates.raw);
  const h = median(rates.harness);
  console.log(`property cases (valid sends), ${CASES} per round, ${ROUNDS} rounds, concurrency ${CONCURRENCY}, reference with synchronous=FULL`);
  console.log(`raw undici loop:     ${Math.round(r)} cases/s  (rounds: ${rates.raw.map(Math.round).join(', ')})`);
  console.log(`through the harness: ${Math.round(h)} cases/s  (rounds: ${rates.harness.map(Math.round).join(', ')})`);
  console.log(`harness / raw:       ${((h / r) * 100).toFixed(0)}%  (target ≥ 50%)`);
  await raw.close();
  await transport.close();
} finally {
  await server.stop();
}
