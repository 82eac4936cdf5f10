// A failure message states what was expected and what came, and never reads as the opposite of
// the evidence beside it: a server whose challenge to Basic credentials carries
// error="invalid_token" fails AUTH-105 with a message that shows that error, and the console
// names the requirement with its anchor in the report.
import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { fakeServer, referenceConfig, referenceForFile, runCli } from './helpers.ts';

const shared = referenceForFile('messages-');

test('AUTH-105 failed on a challenge with error="invalid_token" says it expected none and got that error', async () => {
  test.setTimeout(240_000);
  // The reference behind a relay that adds error="invalid_token" to the challenge of every 401 to Basic credentials.
  const relay = await fakeServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)).map(([k, v]) => [k, String(v)]));
      const answer = await fetch(shared.reference.baseUrl + req.url, { method: req.method, headers, ...(chunks.length > 0 && { body: Buffer.concat(chunks) }), redirect: 'manual' });
      const out = Object.fromEntries([...answer.headers].filter(([k]) => !['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)));
      if (answer.status === 401 && /^basic /i.test(String(req.headers.authorization ?? ''))) out['www-authenticate'] = 'Bearer realm="api", error="invalid_token"';
      res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  try {
    const config = referenceConfig(shared.dir, 'relay', shared.reference.fixtures, (c) => (c.baseUrl = relay.url));
    const out = join(shared.dir, 'relay-out');
    const run = await runCli('cli/certify.ts', ['--config', config, '--requirements', 'AUTH-105', '--strict', '--out', out], { out });
    expect(run.code, run.stdout.slice(-2000) + run.stderr).toBe(1);
    const auth105 = run.report!.requirements.find((r) => r.id === 'AUTH-105')!;
    expect(auth105.verdict).toBe('fail');
    for (const reason of auth105.reasons) {
      expect(reason).toContain('expected the "Bearer" challenge to carry no error parameter');
      expect(reason).toMatch(/got \[\{"scheme":"Bearer","params":\{[^}]*"error":"invalid_token"/);
    }
    expect(run.stdout).toMatch(/^fail: AUTH-105 .*expected the "Bearer" challenge to carry no error parameter.* {2}\[report\.html#AUTH-105\]$/m);
  } finally {
    await relay.close();
  }
});
