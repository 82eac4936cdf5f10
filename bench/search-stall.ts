import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { startChildServer } from './childServer.ts';

// Can one client's sandbox stalls starve another client's searches? The primary client keeps
// --stalls searches with rateCenter UPSTREAM-STALL in progress (each held by the bundled provider
// until the upstream timeout, then sent again); meanwhile the secondary client makes --searches
// ordinary searches one after another. Prints what the secondary's searches got and how long they
// took; asserts nothing. The reference runs with its defaults (a 2 s upstream timeout).
//   npx tsx bench/search-stall.ts [--stalls 25] [--searches 25]

const { values } = parseArgs({ options: { stalls: { type: 'string', default: '25' }, searches: { type: 'string', default: '25' } } });
const stalls = Number(values.stalls);
const searches = Number(values.searches);

interface Fixtures {
  clients: Array<{ role: string; clientId: string; clientSecret: string }>;
}

const workDir = mkdtempSync(join(tmpdir(), 'search-stall-'));
const fixturesOut = join(workDir, 'fixtures.json');
const server = await startChildServer('reference/main.ts', ['--port', '0', '--db', join(workDir, 'bench.db'), '--fresh', '--log-level', 'error', '--fixtures-out', fixturesOut]);

try {
  const fixtures = JSON.parse(readFileSync(fixturesOut, 'utf8')) as Fixtures;
  const tokenOf = async (role: string) => {
    const client = fixtures.clients.find((candidate) => candidate.role === role)!;
    const answer = await request(`${server.baseUrl}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
    });
    return ((await answer.body.json()) as { access_token: string }).access_token;
  };
  const staller = await tokenOf('primary');
  const other = await tokenOf('secondary');
  const agent = new Agent({ connections: stalls + 10 });
  const search = async (token: string, body: object) => {
    const answer = await request(`${server.baseUrl}/api/core/numbers/search`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body), dispatcher: agent });
    await answer.body.dump();
    return answer.statusCode;
  };

  let stop = false;
  const loops = Array.from({ length: stalls }, async () => {
    while (!stop) await search(staller, { rateCenter: 'UPSTREAM-STALL' }).catch(() => 0);
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const statuses = new Map<number, number>();
  const times: number[] = [];
  for (let i = 0; i < searches; i += 1) {
    const began = performance.now();
    const status = await search(other, { npa: '202' }).catch(() => 0);
    times.push(performance.now() - began);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  stop = true;
  await Promise.all(loops);
  await agent.close();
  times.sort((a, b) => a - b);
  console.log(`${stalls} stalled searches of the primary client kept in progress; the secondary's ${searches} ordinary searches meanwhile:`);
  console.log(`  answers by status ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}; median ${times[Math.floor(times.length / 2)]!.toFixed(0)} ms, max ${times.at(-1)!.toFixed(0)} ms`);
} finally {
  await server.stop();
  rmSync(workDir, { recursive: true, force: true });
}
