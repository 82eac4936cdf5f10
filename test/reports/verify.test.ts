// The certificate: npm run sign writes report.json.sig; npm run verify accepts the untouched
// report and rejects any change (exit 1), and rejects bad input with exit 2 and no stack.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { newKeyPair } from '../../reports/signature.ts';
import { runTsx, tempDir } from './run-fixture.ts';
import { sampleReport, writeReport } from './sample-report.ts';

interface Signed {
  dir: string;
  report: string;
  pub: string;
  fingerprint: string;
}

async function signedReport(): Promise<Signed> {
  const dir = tempDir();
  const keys = newKeyPair();
  writeFileSync(join(dir, 'vendor.key.pem'), keys.privateKeyPem);
  writeFileSync(join(dir, 'vendor.pub.pem'), keys.publicKeyPem);
  const report = writeReport(dir, sampleReport('acme sms', ['A-002']));
  const sign = await runTsx('cli/sign.ts', ['--key', join(dir, 'vendor.key.pem'), report]);
  expect(sign.code, sign.stderr).toBe(0);
  expect(sign.stdout).toContain(`key fingerprint: ${keys.fingerprint}`);
  return { dir, report, pub: join(dir, 'vendor.pub.pem'), fingerprint: keys.fingerprint };
}

const noStack = (s: string): void => expect(s).not.toMatch(/\n\s+at .*:\d+:\d+/);

test('an untouched signed report verifies and says what was certified, against which version, when', async () => {
  const s = await signedReport();
  const withKey = await runTsx('cli/verify.ts', [s.report, '--pubkey', s.pub]);
  expect(withKey.code, withKey.stderr).toBe(0);
  expect(withKey.stdout).toContain(`signature: valid, Ed25519 key ${s.fingerprint} (the key given with --pubkey)`);
  expect(withKey.stdout).toContain('certified: acme sms at https://sms.acme.invalid, declared profile none');
  expect(withKey.stdout).toContain('interface: 0.2.0');
  expect(withKey.stdout).toContain('when:      2026-03-01T10:00:00.000Z');
  expect(withKey.stdout).toContain('verdict:   NOT CONFORMANT');

  // without --pubkey the embedded key is used, and the fingerprint is printed to compare
  const embedded = await runTsx('cli/verify.ts', [s.report]);
  expect(embedded.code).toBe(0);
  expect(embedded.stdout).toContain(`key ${s.fingerprint} (embedded in`);
  expect(embedded.stdout).toContain('compare the fingerprint with the one the certifier publishes');
});

test('a tampered report fails verify with exit 1 and says so', async () => {
  const s = await signedReport();
  const text = readFileSync(s.report, 'utf8');
  writeFileSync(s.report, text.replace('"verdict": "not conformant"', '"verdict": "conformant"'));
  const r = await runTsx('cli/verify.ts', [s.report, '--pubkey', s.pub]);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/^NOT VERIFIED: .*report\.json was changed after it was signed/);
  // one changed byte of whitespace is a change too
  writeFileSync(s.report, `${text} `);
  expect((await runTsx('cli/verify.ts', [s.report])).code).toBe(1);
});

test('a report re-signed by another key fails against the vendor key; a forged fingerprint field fails too', async () => {
  const s = await signedReport();
  const other = newKeyPair();
  writeFileSync(join(s.dir, 'other.key.pem'), other.privateKeyPem);
  expect((await runTsx('cli/sign.ts', ['--key', join(s.dir, 'other.key.pem'), s.report])).code).toBe(0);
  const r = await runTsx('cli/verify.ts', [s.report, '--pubkey', s.pub]);
  expect(r.code).toBe(1);
  expect(r.stdout).toContain(`was not made by the key ${s.fingerprint}`);

  const sigFile = `${s.report}.sig`;
  const sig = JSON.parse(readFileSync(sigFile, 'utf8')) as { fingerprint: string };
  writeFileSync(sigFile, JSON.stringify({ ...sig, fingerprint: s.fingerprint }));
  const forged = await runTsx('cli/verify.ts', [s.report]);
  expect(forged.code).toBe(1);
  expect(forged.stdout).toContain('its fingerprint field does not belong to its public key');
});

test('bad input exits 2 with a clear message and no stack trace', async () => {
  const s = await signedReport();
  const notPem = join(s.dir, 'not.pem');
  writeFileSync(notPem, 'hello');
  const notJson = join(s.dir, 'bad.sig');
  writeFileSync(notJson, 'not json');
  const cases: [string[], string][] = [
    [[join(s.dir, 'missing.json')], 'cannot read report'],
    [[s.report, '--sig', join(s.dir, 'missing.sig')], 'cannot read signature file'],
    [[s.report, '--sig', notJson], 'is not JSON'],
    [[s.report, '--pubkey', notPem], 'is not a PEM public key'],
    [[s.report, '--pubkey', join(s.dir, 'vendor.key.pem')], 'is a private key'],
    [[s.report, '--colour'], "Unknown option '--colour'"],
    [[], 'give one report file'],
  ];
  const results = await Promise.all(cases.map(([args]) => runTsx('cli/verify.ts', args)));
  results.forEach((r, i) => {
    const [args, message] = cases[i]!;
    expect(r.code, args.join(' ')).toBe(2);
    expect(r.stderr, args.join(' ')).toContain(message);
    noStack(r.stderr);
  });
});

test('sign refuses a wrong key type, a file that is not a report, and a one-shard report', async () => {
  const dir = tempDir();
  const report = writeReport(dir, sampleReport());
  const rsa = join(dir, 'rsa.pem');
  const { generateKeyPairSync } = await import('node:crypto');
  writeFileSync(rsa, generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const wrongKey = await runTsx('cli/sign.ts', ['--key', rsa, report]);
  expect(wrongKey.code).toBe(2);
  expect(wrongKey.stderr).toContain('is an rsa key; an Ed25519 key is needed');
  noStack(wrongKey.stderr);

  const keys = newKeyPair();
  writeFileSync(join(dir, 'k.pem'), keys.privateKeyPem);
  writeFileSync(join(dir, 'x.json'), '{"hello": 1}');
  const notReport = await runTsx('cli/sign.ts', ['--key', join(dir, 'k.pem'), join(dir, 'x.json')]);
  expect(notReport.code).toBe(2);
  expect(notReport.stderr).toContain('is not a conformance report');

  const shard = sampleReport();
  shard.run.shard = { current: 1, total: 2 };
  const partial = await runTsx('cli/sign.ts', ['--key', join(dir, 'k.pem'), writeReport(dir, shard, 'shard.json')]);
  expect(partial.code).toBe(2);
  expect(partial.stderr).toContain('covers shard 1 of 2 only; sign the merged report');
});

test('a partial run is not signed as a certificate; with --partial it is, and verify says it is partial', async () => {
  const dir = tempDir();
  const keys = newKeyPair();
  writeFileSync(join(dir, 'k.pem'), keys.privateKeyPem);
  const report = writeReport(dir, sampleReport('acme sms', [], ['grep @A-001']));
  const refused = await runTsx('cli/sign.ts', ['--key', join(dir, 'k.pem'), report]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('is a partial run (grep @A-001), not a certificate; sign it with --partial');
  noStack(refused.stderr);

  const attested = await runTsx('cli/sign.ts', ['--key', join(dir, 'k.pem'), '--partial', report]);
  expect(attested.code, attested.stderr).toBe(0);
  const verified = await runTsx('cli/verify.ts', [report]);
  expect(verified.code).toBe(0);
  expect(verified.stdout).toContain('verdict:   PARTIAL (grep @A-001)');
  expect(verified.stdout).toContain('scope:     a PARTIAL run: it is not a certificate of the whole interface');
  expect(verified.stdout).toMatch(/summary: {3}PARTIAL \(grep @A-001\) {2}document 2\/2/);
});
