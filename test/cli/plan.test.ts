// Everything a run takes as input is checked before it runs, and the dry run tells what the
// run will do: the requirements each test serves, the tests that run for this target, the sends
// it needs against the cap, and the same "not testable here" list the run reports.
import { expect, test } from '@playwright/test';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../reports/run-fixture.ts';
import { listingKey, listTests } from '../../cli/plan.ts';
import { referenceSettings } from '../../harness/settings.ts';
import { referenceConfig, runCli, referenceForFile } from './helpers.ts';

const shared = referenceForFile('plan-');

/** A failure of the input: exit 2, every problem named, nothing run, no report. */
function expectRefused(run: { code: number | null; stderr: string; stdout: string; summary: string }, ...messages: string[]): void {
  expect(run.code, run.stdout + run.stderr).toBe(2);
  for (const m of messages) expect(run.stderr).toContain(m);
  expect(run.summary).toBe('HARNESS ERROR  nothing was run: fix the input above');
  expect(run.stderr + run.stdout).not.toMatch(/\n\s+at .*:\d+:\d+/); // no stack trace
  expect(run.stdout).not.toContain('Running ');
}

test('a sendCap below what the run needs fails at load with the number to set (examples/vendor.yaml had 500)', async () => {
  const config = referenceConfig(shared.dir, 'cap500', shared.reference.fixtures, (c) => (c.sendCap = 500));
  const run = await runCli('cli/certify.ts', ['--config', config]);
  // The figure follows harness/send-budget.json, measured again whenever the tests change.
  const needed = Number(/this run needs about (\d+) sends/.exec(run.stderr)?.[1]);
  expect(needed, run.stderr).toBeGreaterThan(500);
  expectRefused(run, `certify: --config ${config}: /sendCap is 500, but this run needs about ${needed} sends`, `set sendCap to at least ${needed}`);
});

test('a malformed baseline fails the dry run too, and the real run does not start', async () => {
  const baseline = join(shared.dir, 'bad-baseline.yaml');
  writeFileSync(baseline, 'expectedFailures:\n  - { id: SEND-004 }\n');
  const config = referenceConfig(shared.dir, 'plain', shared.reference.fixtures);
  for (const extra of [['--dry-run'], []]) {
    expectRefused(await runCli('cli/certify.ts', ['--config', config, '--baseline', baseline, ...extra]), `baseline ${baseline}: SEND-004 needs a "reason"`);
  }
});

test('a baseline naming an unknown ID is refused before the run, never under a CONFORMANT line', async () => {
  const baseline = join(shared.dir, 'unknown-baseline.yaml');
  writeFileSync(baseline, 'expectedFailures:\n  - { id: NOPE-001, reason: "x" }\n');
  expectRefused(await runCli('cli/certify.ts', ['--baseline', baseline, '--grep', '@SEND-004']), `--baseline ${baseline}: lists NOPE-001, not requirements of this interface version`);
});

test('grep, shard, workers: bad values are named at once, without a Playwright stack trace', async () => {
  const run = await runCli('cli/certify.ts', ['--grep', '@SEND-(', '--shard', '3/2', '--workers', 'many']);
  expectRefused(run, '--grep: "@SEND-(" is not a regular expression', '--shard: takes I/N with 1 ≤ I ≤ N, e.g. 1/2 (got 3/2)', '--workers: takes a positive whole number, or auto (got many)');
  expectRefused(await runCli('cli/certify.ts', ['--grep', '@NOTHING-999']), '--grep: selects no test: nothing would run');
});

test('the dry run names the requirements of each test and lists only the tests that run for this target', async () => {
  const config = referenceConfig(shared.dir, 'no-profile', shared.reference.fixtures, (c) => (c.profile = 'none'));
  const run = await runCli('cli/certify.ts', ['--config', config, '--dry-run', '--requirements', 'SEND-004,SEND-201,UPD-001']);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toMatch(/ {6}SEND-004 {4}a sendFrom owned by another client is 403 FORBIDDEN/);
  expect(run.stdout).toMatch(/⚙↩ UPD-001 /); // changes number settings and restores them; expects callbacks
  expect(run.stdout).not.toMatch(/^ {4}.. SEND-201/m); // a profile test, and the target declares no profile
  expect(run.stdout).toMatch(/profile-level checks are not run: the target does not declare profile: reference; \d+ tests/);
  expect(run.stdout).toMatch(/Sends: about \d+ \(25 cases per property/);
  expect(run.stdout).toContain('Dry run: nothing was sent.');
});

test('the dry run\'s "not testable here" list is the one the run reports', async () => {
  test.setTimeout(240_000);
  // no second client, no hooks: the requirements that need them are not testable here
  const config = referenceConfig(shared.dir, 'bare', shared.reference.fixtures, (c) => delete c.clients.secondary);
  const requirements = ['CTX-002', 'UPD-002', 'SEARCH-002', 'AUTH-003', 'AUTH-102', 'WH-001', 'SEND-004', 'SEND-001', 'TOKEN-001'].join(',');
  const dry = await runCli('cli/certify.ts', ['--config', config, '--dry-run', '--requirements', requirements]);
  expect(dry.code, dry.stderr).toBe(0);
  const listed = [...dry.stdout.split('Not testable here with this config')[1]!.matchAll(/^ {2}([A-Z]+-\d{3}) /gm)].map((m) => m[1]).sort();
  const out = join(shared.dir, 'bare-out');
  const run = await runCli('cli/certify.ts', ['--config', config, '--requirements', requirements, '--out', out], { out });
  expect(run.code, run.stdout.slice(-1500)).toBe(0);
  expect(run.summary).toMatch(/^PARTIAL \(requirements CTX-002,/);
  const reported = run.report!.requirements.filter((r) => r.verdict === 'not testable here').map((r) => r.id).sort();
  // NUM-003 and AUTH-007 too: a test selected for CTX-002 (two clients' tokens) checks them as well.
  expect(listed).toEqual(['AUTH-003', 'AUTH-007', 'AUTH-102', 'CTX-002', 'NUM-003', 'SEARCH-002', 'SEND-004', 'UPD-002', 'WH-001']);
  expect(reported).toEqual(listed);
});

test('a listing is kept for the next run with the same files and filters; another filter lists again; a broken entry is listed again', () => {
  const cache = join(tempDir(), 'listings');
  const dir = tempDir();
  const whole = referenceSettings({ port: 1, dir, outDir: join(dir, 'out') });
  const filtered = { ...whole, selection: { ...whole.selection, grep: '@SEND-004' } };
  expect(listingKey(filtered)).not.toBe(listingKey(whole));
  expect(listingKey({ ...whole, runDir: join(dir, 'elsewhere') }), 'the run folder and port change every run and list nothing else').toBe(listingKey(whole));

  const first = listTests(filtered, process.env, cache);
  if (!('tests' in first)) throw new Error(first.error);
  expect(first.tests.length).toBeGreaterThan(0);
  expect(first.tests.every((t) => t.requirements.includes('SEND-004'))).toBe(true);
  const entry = join(cache, `${listingKey(filtered)}.json`);
  expect(readdirSync(cache)).toEqual([`${listingKey(filtered)}.json`]);

  // a kept listing is what the next run gets: change it and the change shows
  writeFileSync(entry, JSON.stringify({ tests: first.tests.slice(0, 1) }));
  expect(listTests(filtered, process.env, cache)).toEqual({ tests: first.tests.slice(0, 1) });
  // an entry that does not read as a listing is ignored and replaced
  writeFileSync(entry, '{"tests": 4');
  expect(listTests(filtered, process.env, cache)).toEqual(first);
  expect(listTests(filtered, process.env, cache)).toEqual(first);
});
