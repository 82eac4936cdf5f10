// certify with neither --config nor --base-url certifies the config `init` writes where the
// person stands (./conformance.yaml, then .yml, then .json), and says so on its first line; only
// where there is none does it certify the bundled reference, and says that.
import { expect, test } from '@playwright/test';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { tempDir } from '../reports/run-fixture.ts';
import { referenceConfig, referenceForFile, runCli } from './helpers.ts';

const shared = referenceForFile('config-discovery-');

test('conformance.yaml in the directory certify runs in is the target, and the first line says so', async () => {
  test.setTimeout(240_000);
  const dir = tempDir('user-');
  copyFileSync(referenceConfig(shared.dir, 'found', shared.reference.fixtures, (c) => (c.label = 'the one in this folder')), join(dir, 'conformance.yaml'));
  const dry = await runCli('cli/certify.ts', ['--dry-run'], { userDir: dir });
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.stdout.split('\n')[0]).toBe(`certify: using ${join(dir, 'conformance.yaml')} (found in the directory you run this in; --config names another)`);
  expect(dry.stdout).toContain(`Target: the one in this folder (${shared.reference.baseUrl})`);

  const out = join(dir, 'out');
  const run = await runCli('cli/certify.ts', ['--requirements', 'CTX-001', '--out', out], { userDir: dir, out });
  expect(run.code, run.stdout.slice(-1500) + run.stderr).toBe(0);
  expect(run.report?.target).toMatchObject({ label: 'the one in this folder', baseUrl: shared.reference.baseUrl });
});

test('.yml wins over .json, .json is found alone, and a broken one is named, never replaced by the reference', async () => {
  test.setTimeout(120_000);
  const { clientId, clientSecret } = shared.reference.fixtures.clients.find((c) => c.role === 'primary')!;
  const config = { label: 'json one', baseUrl: shared.reference.baseUrl, clients: { primary: { clientId, clientSecret } } };
  const both = tempDir('user-');
  writeFileSync(join(both, 'conformance.json'), JSON.stringify(config));
  writeFileSync(join(both, 'conformance.yml'), stringify({ ...config, label: 'yml one' }));
  const yml = await runCli('cli/certify.ts', ['--dry-run'], { userDir: both });
  expect(yml.stdout.split('\n')[0]).toContain(`using ${join(both, 'conformance.yml')}`);
  expect(yml.stdout).toContain('Target: yml one');

  const json = tempDir('user-');
  writeFileSync(join(json, 'conformance.json'), JSON.stringify(config));
  const found = await runCli('cli/certify.ts', ['--dry-run'], { userDir: json });
  expect(found.stdout).toContain('Target: json one');

  const broken = tempDir('user-');
  writeFileSync(join(broken, 'conformance.yaml'), 'label: [unclosed\n');
  const refused = await runCli('cli/certify.ts', ['--dry-run'], { userDir: broken });
  expect(refused.code).toBe(2);
  expect(refused.stdout.split('\n')[0]).toContain(`using ${join(broken, 'conformance.yaml')}`);
  expect(refused.stderr).toContain(`certify: --config ${join(broken, 'conformance.yaml')}: not valid YAML or JSON`);
});

test('without such a file, the bundled reference is certified and the first line says so', async () => {
  const dir = tempDir('user-');
  const dry = await runCli('cli/certify.ts', ['--dry-run', '--requirements', 'CTX-001'], { userDir: dir });
  expect(dry.code, dry.stderr).toBe(0);
  expect(dry.stdout.split('\n')[0]).toBe(`certify: no --config, and no conformance.yaml, conformance.yml, conformance.json in ${dir}: certifying the bundled reference server`);
  expect(dry.stdout).toMatch(/^Target: bundled reference server /m);
});
