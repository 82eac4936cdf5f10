// The reporter inside a real Playwright run of the fixture suite: what it writes, prints and
// exits with. One run is shared by the tests that only read its output.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { reportSchemaErrors } from '../../reports/schema.ts';
import { LEAKY_CLIENT_SECRET, LEAKY_TOKEN } from './fixture-suite/helpers.ts';
import { EXPECTED_VERDICTS, FIXTURE_TARGET, lastLine, ROOT, runFixture, tempDir, verdicts, type FixtureRun } from './run-fixture.ts';

let run: FixtureRun;
let strictPlain: FixtureRun;
let passingOnly: FixtureRun;
let listed: FixtureRun;
let badBaseline: string;
let badCatalogue: string;
let errorRuns: { unknownTag: FixtureRun; noTests: FixtureRun; baseline: FixtureRun; target: FixtureRun; catalogue: FixtureRun };

// Every child run starts at once: they are independent, and mostly wait on process start-up.
test.beforeAll(async () => {
  test.setTimeout(240_000); // nine child runs at once: slow on a loaded machine
  badBaseline = join(tempDir(), 'baseline.yaml');
  writeFileSync(badBaseline, 'expectedFailures:\n  - { id: FIX-002 }\n');
  badCatalogue = join(tempDir(), 'requirements.yaml');
  writeFileSync(badCatalogue, 'interface: 9.9.9\nrequirements: {}\n');
  const grep = ['--grep', '@FIX-001|@NOPE'];
  const runs = await Promise.all([
    runFixture({ reporter: { seed: '1234' } }),
    runFixture({
      reporter: { strict: true, target: { label: 'plain', baseUrl: 'http://plain.invalid', profile: 'none' } },
      args: ['--grep', '@FIX-00[12]|@FIX-10|@FIX-20'],
    }),
    runFixture({ args: ['--grep', '@FIX-001|@FIX-102'] }),
    runFixture({ args: ['--list'] }),
    runFixture({ env: { FIXTURE_UNKNOWN_TAG: '1' }, args: grep }),
    runFixture({ args: ['--grep', '@NOTHING-AT-ALL'] }),
    runFixture({ reporter: { baseline: badBaseline }, args: grep }),
    runFixture({ reporter: { target: { label: 5 } }, args: grep }),
    runFixture({ reporter: { catalogue: badCatalogue }, args: grep }),
  ]);
  const [main, strict, passing, list, unknownTag, noTests, baseline, target, catalogue] = runs;
  [run, strictPlain, passingOnly, listed] = [main, strict, passing, list];
  errorRuns = { unknownTag, noTests, baseline, target, catalogue };
});

const requirement = (id: string) => {
  const r = run.report?.requirements.find((x) => x.id === id);
  if (!r) throw new Error(`${id} missing from the report`);
  return r;
};

test('each requirement gets the verdict its level and tests call for', () => {
  expect(verdicts(run.report)).toEqual(EXPECTED_VERDICTS);
  expect(run.report?.verdict).toBe('not conformant');
});

test('the run exits 1 and ends with the summary line', () => {
  expect(run.code, run.stderr).toBe(1);
  // FIX-005 has no test: the run says it did not cover the suite
  expect(lastLine(run.stdout)).toBe('NOT CONFORMANT (partial: 1 requirement that applies had no test in this run)  document 2/4 of 7 checkable (2 fail)  standard 1/2 of 2 checkable (1 non-strict)  profile 1/2 of 2 checkable (1 fail)  not testable 2  not run 2');
});

test('progress: one line per test, as no other terminal reporter is configured', () => {
  expect(run.stdout).toContain('✓ FIX-001 the token endpoint answers with a token');
  expect(run.stdout).toContain('✗ FIX-002 a foreign sendFrom is answered 403');
  expect(run.stdout).toContain('– FIX-003 a second client cannot see the first one\'s numbers');
  expect(run.stdout).toContain('✓ (flaky) FIX-006');
});

test('report.json validates against its schema and records target, versions, seed and time', () => {
  expect(reportSchemaErrors(run.report)).toEqual([]);
  const r = run.report!;
  expect(r.target).toEqual({ label: FIXTURE_TARGET.label, baseUrl: FIXTURE_TARGET.baseUrl, profile: 'reference' });
  expect(r.interface).toEqual({ version: '9.9.9-fixture', catalogue: 'test/reports/fixture-suite/requirements.yaml' });
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  expect(r.harness.version).toBe(pkg.version);
  expect(r.harness.gitRevision === null || /^[0-9a-f]{40}$/.test(r.harness.gitRevision)).toBe(true);
  expect(r.run.seed).toBe('1234');
  expect(Date.parse(r.run.startTime)).toBeGreaterThan(Date.now() - 10 * 60_000);
  expect(r.run.durationMs).toBeGreaterThan(0);
});

test('reasons explain every verdict that is not pass', () => {
  expect(requirement('FIX-002').reasons[0]).toBe('a foreign sendFrom is answered 403: Error: Requirement FIX-002: expected 403 FORBIDDEN');
  expect(requirement('FIX-002').tests[0]?.attempts[0]?.errors[0]).toContain('Expected: 403\nReceived: 202');
  expect(requirement('FIX-003').reasons).toEqual(['needs a second client of the same target (clients.secondary in the target config)']);
  expect(requirement('FIX-004').reasons).toEqual(["The harness's token manager obeys it."]);
  expect(requirement('FIX-006').notes[0]).toContain('passed only on retry (flaky)');
  expect(requirement('FIX-007').notes[0]).toContain('1 of 2 tagged tests passed');
});

test('evidence is kept per attempt, in either attachment shape', () => {
  const ev = requirement('FIX-001').tests[0]?.attempts[0]?.evidence ?? [];
  expect(ev).toHaveLength(1);
  expect(ev[0]?.response?.status).toBe(200);
  const failing = requirement('FIX-002').tests[0]!;
  expect(failing.attempts).toHaveLength(1);
  expect(failing.attempts[0]).toMatchObject({ evidenceOmitted: 2, evidence: [{ response: { status: 202 }, violations: [{ requirement: 'FIX-002' }] }] });
});

test('an Authorization header and other credentials in evidence stay redacted in every output file', () => {
  const ev = requirement('FIX-001').tests[0]?.attempts[0]?.evidence[0];
  expect(ev?.request.headers?.authorization).toBe('Bearer [redacted]');
  expect(ev?.request.body).toMatchObject({ client_secret: '[redacted]' });
  for (const file of ['report.json', 'report.html', 'junit.xml']) {
    const text = readFileSync(join(run.outDir, file), 'utf8');
    expect(text, file).not.toContain(LEAKY_TOKEN);
    expect(text, file).not.toContain(LEAKY_CLIENT_SECRET);
  }
});

test('the console ends with what to do next: each failed requirement in one line with its anchor, then the not-testable ones with the config that reaches them', () => {
  const lines = run.stdout.trimEnd().split('\n');
  const tail = lines.slice(lines.findIndex((l) => /^fail: /.test(l)));
  // the first line of the failure, then what it expected and what came, from the message's Expected/Received
  expect(tail[0]).toMatch(/^fail: FIX-002 .*Requirement FIX-002: expected 403 FORBIDDEN — expected 403; got 202 {2}\[report\.html#FIX-002\]$/);
  expect(tail.slice(0, 4).map((l) => /^([a-z -]+): (FIX-\d{3}) .*\[report\.html#\2\]$/.exec(l)?.slice(1, 3).join(' '))).toEqual(['fail FIX-002', 'fail FIX-006', 'fail FIX-202', 'non-strict fail FIX-101']);
  expect(tail.slice(4)).toEqual([
    'not testable here: 2 requirements, each with what would reach it:',
    '  FIX-003: needs a second client of the same target (clients.secondary in the target config)',
    '    in the target config:',
    '      clients:',
    expect.stringMatching(/^ {8}secondary: \{ clientId: "\$\{CONFORMANCE_SECONDARY_CLIENT_ID\}", clientSecret: /),
    '  FIX-007: needs fixture webhookReceiver: no public callback URL configured',
    'note: a partial run (1 requirement that applies had no test in this run): it is not a certificate',
    expect.stringMatching(/^report: .*report\.html$/),
    expect.stringMatching(/^NOT CONFORMANT /),
  ]);
});

test('the HTML opens with the failures, then the not-testable requirements with the config that reaches them, then every other requirement by area', () => {
  const html = readFileSync(join(run.outDir, 'report.html'), 'utf8');
  const at = (s: string) => html.indexOf(s);
  const order = ['id="failed"', 'id="FIX-002"', 'id="FIX-006"', 'id="FIX-202"', 'id="FIX-101"', 'id="not-testable"', 'id="FIX-003"', 'id="FIX-007"', 'id="by-area"', 'class="area"', 'id="FIX-001"'].map(at);
  expect(order.every((i) => i > 0), 'each part is there').toBe(true);
  expect(order).toEqual([...order].sort((a, b) => a - b));
  for (const id of ['FIX-001', 'FIX-002', 'FIX-003']) expect(html.split(`id="${id}"`).length - 1, `${id} is shown once`).toBe(1);
  expect(html).toMatch(/id="FIX-003"[\s\S]*?To reach it, in the target config:<\/div><pre class="snippet">clients:\n  secondary: /);
});

test('the HTML escapes catalogue text and target responses', () => {
  const html = readFileSync(join(run.outDir, 'report.html'), 'utf8');
  expect(html).toContain('A passing check, with &lt;b&gt;markup&lt;/b&gt; &amp; evidence.');
  expect(html).toContain('&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(html).not.toContain('<script>alert(1)');
  expect(html).not.toMatch(/(src|href)="https?:/); // self-contained: nothing fetched
});

test('junit.xml: a failure carries the failing test\'s message, its evidence and the request to replay', () => {
  const xml = readFileSync(join(run.outDir, 'junit.xml'), 'utf8');
  const escaped = /<testcase classname="alpha" name="FIX-002 [^"]*"[^>]*>.*?<failure [^>]*>([^<]*)<\/failure>/s.exec(xml)?.[1] ?? '';
  const failure = escaped.replace(/&(#39|quot|lt|gt|amp);/g, (_m, e: string) => ({ '#39': "'", quot: '"', lt: '<', gt: '>', amp: '&' })[e]!);
  expect(failure).toContain('Requirement FIX-002: expected 403 FORBIDDEN');
  expect(failure).toMatch(/evidence \(3 exchanges, the last 1\):\n {2}POST http:\/\/fixture\.invalid\/api\/core\/messages → 202/);
  expect(failure).toContain("replay (the last request):\ncurl -i -X POST 'http://fixture.invalid/api/core/messages' \\\n  -H 'authorization: Bearer [redacted]'");
});

test('junit.xml: one testcase per requirement; only fails are failures', () => {
  const xml = readFileSync(join(run.outDir, 'junit.xml'), 'utf8');
  expect(xml.match(/<testcase /g)).toHaveLength(12);
  expect(xml.match(/<failure /g)).toHaveLength(3);
  expect(xml).toMatch(/<testcase classname="beta" name="FIX-101 [^"]*"[^>]*>.*<skipped message="non-strict fail: /);
  expect(xml).toContain('<testsuites name="conformance of fixture server to interface 9.9.9-fixture" tests="12" failures="3"');
});

test('strict, for a target that declares no profile: standard failures fail, profile requirements are not run', () => {
  const r = strictPlain;
  expect(verdicts(r.report)).toMatchObject({ 'FIX-001': 'pass', 'FIX-002': 'fail', 'FIX-101': 'fail', 'FIX-102': 'pass', 'FIX-201': 'not run', 'FIX-202': 'not run', 'FIX-003': 'not run' });
  expect(r.report?.requirements.find((x) => x.id === 'FIX-202')?.reasons[0]).toContain('the target declares no profile');
  expect(lastLine(r.stdout)).toBe('NOT CONFORMANT (strict; partial: 5 requirements that apply had no test in this run)  document 1/2 of 7 checkable (1 fail)  standard 1/2 of 2 checkable (1 fail)  profile 0/0 of 0 checkable  not testable 0  not run 8');
  expect(r.code).toBe(1);
});

test('a run limited to passing requirements by a --grep on Playwright\'s own command line is partial, never conformant', () => {
  const r = passingOnly;
  expect(r.report?.verdict).toBe('partial');
  expect(r.report?.run.partial).toEqual(['9 requirements that apply had no test in this run']);
  expect(lastLine(r.stdout)).toMatch(/^PARTIAL \(9 requirements that apply had no test in this run\)  document 1\/1/);
  expect(r.stdout).toContain('note: a partial run (9 requirements that apply had no test in this run): it is not a certificate');
  expect(r.code, r.stdout + r.stderr).toBe(0);
});

test('harness and configuration errors exit 2 with a clear message', () => {
  const { unknownTag, noTests, baseline, target, catalogue } = errorRuns;
  expect(unknownTag.code).toBe(2);
  expect(unknownTag.stdout).toContain('harness error: alpha.fixture.ts:');
  expect(unknownTag.stdout).toContain('is tagged @NOPE-001, which is not in the requirement catalogue');
  expect(lastLine(unknownTag.stdout)).toMatch(/^HARNESS ERROR /);
  expect(noTests.code).toBe(2);
  expect(noTests.stdout).toContain('harness error: Error: No tests found');
  expect(lastLine(noTests.stdout)).toMatch(/^HARNESS ERROR \(stopped: Error: No tests found\)/);
  expect(baseline.code).toBe(2);
  expect(baseline.stderr).toContain(`conformance report: baseline ${badBaseline}: FIX-002 needs a "reason"`);
  expect(baseline.stderr).not.toMatch(/\n\s+at /); // no stack trace for bad input
  expect(target.code).toBe(2);
  expect(target.stderr).toContain('target label must be a string');
  // read while the tests run, raised when the report is built: the run still ends, with no report
  expect(catalogue.code, catalogue.stdout + catalogue.stderr).toBe(2);
  expect(catalogue.stderr).toContain(`conformance report: ${badCatalogue}`);
  expect(catalogue.stderr).not.toMatch(/\n\s+at /);
  expect(catalogue.report).toBeUndefined();
});

test('playwright test --list (a dry run) lists the tests and judges nothing', () => {
  const r = listed;
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toContain('alpha.fixture.ts:5:1 › the token endpoint answers with a token');
  expect(r.report).toBeUndefined();
});
