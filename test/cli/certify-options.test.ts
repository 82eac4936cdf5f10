// The options of certify (cli/certify-options.ts): one declaration gives the help, the parsing
// and the flags' type; settingsFromFlags reads them into the run's settings, every bad value at once.
import { expect, test } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CERTIFY_OPTIONS, certifyUsage, parseCertifyArgs, settingsFromFlags, type FlagContext, type RunFlags } from '../../cli/certify-options.ts';
import { decodeSettings, encodeSettings, grepOf, loadRunTarget, invocation, INVOKED_AS_ENV, MAX_WORKERS, REPO_ROOT, selectionFilters } from '../../harness/settings.ts';

const dir = mkdtempSync(join(tmpdir(), 'settings-test-'));
writeFileSync(join(dir, 'vendor.yaml'), 'label: acme\nbaseUrl: https://api.acme.example\nclients:\n  primary: { clientId: a, clientSecret: "${ACME_SECRET}" }\n');
const ctx: FlagContext = { cwd: dir, env: { ACME_SECRET: 's' }, reference: { port: 4321, dir: '/tmp/ref' }, runDir: '/tmp/run', knownRequirements: new Set(['SEND-004', 'SEND-005']) };
const build = (flags: RunFlags, c: Partial<FlagContext> = {}) => settingsFromFlags(flags, { ...ctx, ...c });

test('no flags: the bundled reference, the whole suite, quick properties, one worker', () => {
  const { settings, problems } = build({});
  expect(problems).toEqual([]);
  expect(settings?.target).toEqual({
    source: { kind: 'reference', port: 4321, dir: '/tmp/ref', entry: 'reference/main.ts', entryArgs: [], startedBy: 'webServer' },
    description: { label: 'bundled reference server', baseUrl: 'http://127.0.0.1:4321', profile: 'reference' },
  });
  expect(settings?.selection).toEqual({ grep: null, requirements: null, shard: null, maxFailures: null });
  expect(settings?.output.dir).toBe(join(REPO_ROOT, 'reports', 'out'));
  expect(settings?.workers).toBe(1);
});

test('a config target is described from the loaded config; paths start where the user stands', () => {
  const { settings, problems } = build({ config: 'vendor.yaml', baseline: 'base.yaml', out: 'out', strict: true, deep: true, seed: '-7' });
  expect(problems).toEqual([]);
  expect(settings?.target.source).toEqual({ kind: 'config', path: join(dir, 'vendor.yaml') });
  expect(settings?.target.description).toEqual({ label: 'acme', baseUrl: 'https://api.acme.example', profile: 'none' });
  expect(settings?.baseline).toBe(join(dir, 'base.yaml'));
  expect(settings?.output.dir).toBe(join(dir, 'out'));
  expect(settings?.property).toEqual({ depth: 'deep', runs: null, seed: -7, path: null, replayPath: null });
  expect(settings?.command).toBe(`npm run certify -- --config ${join(dir, 'vendor.yaml')} --deep`);
  // the credentials stay out of the settings: each process reads them from the config
  expect(encodeSettings(settings!)).not.toContain('"s"');
});

test('the installed command writes its report where the user stands and names itself in replay hints', () => {
  const installed = invocation({ [INVOKED_AS_ENV]: 'messaging-conformance' });
  const { settings, problems } = build({ config: 'vendor.yaml', shard: '1/2' }, { invocation: installed });
  expect(problems).toEqual([]);
  expect(settings?.output.dir).toBe(join(dir, 'conformance-report'));
  expect(settings?.output.blobDir).toBe(join(dir, 'conformance-report', 'blob-report'));
  expect(settings?.command).toBe(`messaging-conformance certify --config ${join(dir, 'vendor.yaml')}`);
  // --out still wins, relative to the user's directory
  expect(build({ out: 'elsewhere' }, { invocation: installed }).settings?.output.dir).toBe(join(dir, 'elsewhere'));
  // a clone's npm run certify keeps its reports under the harness
  expect(invocation({})).toEqual({ command: 'npm run certify --', init: 'npm run init --', defaultOut: join(REPO_ROOT, 'reports', 'out'), defaultOutShown: 'reports/out of the harness' });
  expect(installed).toMatchObject({ init: 'messaging-conformance init', defaultOutShown: './conformance-report' });
});

test('--rate-limit takes requests per second above 0, whole or not', () => {
  expect(build({}).settings?.rateLimit).toBeNull();
  expect(build({ 'rate-limit': '0.5' }).settings?.rateLimit).toBe(0.5);
  for (const bad of ['0', '-2', 'fast', '1e3']) {
    expect(build({ 'rate-limit': bad }).problems, bad).toEqual([{ input: '--rate-limit', message: `takes requests per second, a number above 0 such as 5 or 0.5 (got ${bad})` }]);
  }
});

test('--request-timeout takes milliseconds, at least 100, and wins over timeouts.requestMs for every process of the run', () => {
  expect(build({}).settings?.requestTimeoutMs).toBeNull();
  expect(build({ config: 'vendor.yaml' }).target?.timeouts.requestMs).toBe(15_000);
  const { settings, target } = build({ config: 'vendor.yaml', 'request-timeout': '60000' });
  expect(settings?.requestTimeoutMs).toBe(60_000);
  expect(target?.timeouts.requestMs).toBe(60_000);
  // the workers load the target again from the settings: the same timeout there
  expect(loadRunTarget(decodeSettings(encodeSettings(settings!)), ctx.env).timeouts.requestMs).toBe(60_000);
  for (const bad of ['99', '0', '1.5', 'slow', '-100']) {
    expect(build({ 'request-timeout': bad }).problems, bad).toEqual([{ input: '--request-timeout', message: `takes milliseconds, a whole number of at least 100 (got ${bad})` }]);
  }
});

test('every bad flag is reported at once, naming the flag', () => {
  const { settings, problems } = build({ config: 'absent.yaml', grep: '@SEND-(', shard: '3/2', workers: '0', 'max-failures': 'many', seed: '1.5', path: '1:x', runs: '-1' });
  expect(settings).toBeNull();
  expect(problems.map((p) => p.input)).toEqual([`--config ${join(dir, 'absent.yaml')}`, '--grep', '--shard', '--workers', '--max-failures', '--runs', '--seed', '--path']);
  expect(problems[0]?.message).toBe('no such file');
  expect(problems[1]?.message).toMatch(/^"@SEND-\(" is not a regular expression: /);
  expect(problems[2]?.message).toBe('takes I/N with 1 ≤ I ≤ N, e.g. 1/2 (got 3/2)');
});

test('--workers: chosen by certify unless given (auto); at most MAX_WORKERS; 1 with a webhooks.publicUrl without {port}, whose one URL reaches one receiver', () => {
  expect(build({ workers: '1' })).toMatchObject({ settings: { workers: 1 }, autoWorkers: false });
  // certify chooses (harness/workers.ts); one until it has
  expect(build({ config: 'vendor.yaml' })).toMatchObject({ settings: { workers: 1 }, autoWorkers: true });
  expect(build({ config: 'vendor.yaml', workers: 'auto' })).toMatchObject({ settings: { workers: 1 }, autoWorkers: true });
  expect(build({ workers: 'many' }).problems).toEqual([{ input: '--workers', message: 'takes a positive whole number, or auto (got many)' }]);
  expect(build({ config: 'vendor.yaml', workers: '2' }).settings?.workers).toBe(2);
  expect(build({ workers: String(MAX_WORKERS + 1) }).problems).toEqual([{ input: '--workers', message: expect.stringMatching(new RegExp(`^takes 1 to ${MAX_WORKERS} \\(got ${MAX_WORKERS + 1}\\)`)) }]);
  writeFileSync(join(dir, 'public.yaml'), 'baseUrl: https://api.acme.example\nclients:\n  primary: { clientId: a, clientSecret: s }\nwebhooks: { publicUrl: "https://hooks.acme.example" }\n');
  expect(build({ config: 'public.yaml' }).settings?.workers).toBe(1);
  const { settings, problems } = build({ config: 'public.yaml', workers: '2' });
  expect(settings).toBeNull();
  expect(problems).toEqual([{ input: '--workers', message: expect.stringMatching(/^takes 1 with a webhooks.publicUrl without \{port\} \(got 2\): each worker has its own webhook receiver/) }]);
  // a URL that names each receiver's port reaches every worker's own
  writeFileSync(join(dir, 'public-port.yaml'), 'baseUrl: https://api.acme.example\nclients:\n  primary: { clientId: a, clientSecret: s }\nwebhooks: { publicUrl: "https://hooks.acme.example/p{port}" }\n');
  expect(build({ config: 'public-port.yaml', workers: '2' }).settings?.workers).toBe(2);
});

test('--requirements takes catalogue IDs, not together with --grep, and becomes a tag grep', () => {
  expect(build({ requirements: 'SEND-004,NOPE-001' }).problems).toEqual([{ input: '--requirements', message: 'NOPE-001 is not in spec/requirements.yaml' }]);
  expect(build({ requirements: 'SEND-004', grep: 'x' }).problems).toEqual([{ input: '--requirements', message: 'give either --grep or --requirements, not both' }]);
  const { settings } = build({ requirements: 'SEND-004, SEND-005' });
  expect(grepOf(settings!.selection)?.source).toBe('@(?:SEND-004|SEND-005)\\b');
  expect(selectionFilters(settings!.selection)).toEqual(['requirements SEND-004,SEND-005']);
  expect(selectionFilters(build({ grep: '@SEND-004', shard: '1/2' }).settings!.selection)).toEqual(['grep @SEND-004', 'shard 1/2']);
});

test('the help shows every option once, in the group it is declared in, and parsing takes exactly those', () => {
  const usage = certifyUsage(invocation({}));
  for (const [name, spec] of Object.entries(CERTIFY_OPTIONS)) {
    const shown = usage.split('\n').filter((l) => new RegExp(`^  (-\\w, )?--${name}\\b`).test(l));
    expect(shown, `--${name} in the help`).toHaveLength(1);
    expect(shown[0]!.length, `--${name}'s help line fits the width`).toBeLessThanOrEqual(96);
    if ('value' in spec) expect(shown[0]).toContain(`--${name} ${spec.value}`);
  }
  expect(usage).toContain('Part of the suite (the report is then partial, never a certificate):\n  --grep PATTERN');
  expect(usage).toContain(`(default ${invocation({}).defaultOutShown})`);
  expect(parseCertifyArgs(['--config', 'a.yaml', '--strict', '-h', '--rate-limit', '2'])).toEqual({ config: 'a.yaml', strict: true, help: true, 'rate-limit': '2' });
  expect(() => parseCertifyArgs(['--colour'])).toThrow(/--colour/);
  expect(() => parseCertifyArgs(['--config'])).toThrow(/--config/);
  expect(() => parseCertifyArgs(['vendor.yaml'])).toThrow(/vendor\.yaml/);
});
