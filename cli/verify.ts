// Checks a signed conformance report and says what it certifies.
//
//   npm run verify -- reports/out/report.json [--sig report.json.sig] [--pubkey vendor.pub.pem]
//
// Exit 0: the signature is valid and the report matches its schema (whatever its verdict,
// which is printed). Exit 1: the report was changed after signing, the signature is not the
// given key's, or the signed file is not a valid report. Exit 2: bad input (missing file,
// not JSON, wrong key format).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { userDirectory } from '../harness/settings.ts';
import { InputError } from '../reports/errors.ts';
import { gateOf, headOf, summaryLine } from '../reports/gate.ts';
import { reportSchemaErrors } from '../reports/schema.ts';
import { checkSignature, fingerprintOf, parseSignatureFile, publicKeyFrom } from '../reports/signature.ts';
import type { Report } from '../reports/types.ts';
import { runIfEntry, type Command, type ExitCode } from './command.ts';

const USAGE = 'usage: npm run verify -- REPORT.json [--sig REPORT.json.sig] [--pubkey PUBLIC.pem]';

function read(file: string, what: string): Buffer {
  try {
    return readFileSync(file);
  } catch {
    throw new InputError(`cannot read ${what} ${file}`);
  }
}

function fail(message: string): ExitCode {
  process.stdout.write(`NOT VERIFIED: ${message}\n`);
  return 1;
}

/** The `verify` command: its arguments to its exit code (cli/command.ts). */
export function verify(argv: readonly string[]): ExitCode {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { sig: { type: 'string' }, pubkey: { type: 'string' }, help: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // paths are relative to where the command is run, and shown resolved
  const cwd = userDirectory();
  if (!positionals[0] || positionals.length > 1) throw new InputError(`give one report file\n${USAGE}`);
  const file = resolve(cwd, positionals[0]);
  const sigFile = values.sig !== undefined ? resolve(cwd, values.sig) : `${file}.sig`;
  const pubkey = values.pubkey !== undefined ? resolve(cwd, values.pubkey) : undefined;

  const bytes = read(file, 'report');
  const sig = parseSignatureFile(read(sigFile, 'signature file (sign the report with npm run sign)').toString('utf8'), sigFile);
  const trusted = pubkey ? publicKeyFrom(read(pubkey, 'public key').toString('utf8'), `--pubkey ${pubkey}`) : undefined;

  const check = checkSignature(bytes, sig, trusted);
  const digest = createHash('sha256').update(bytes).digest('hex');
  if (!check.valid) {
    return fail(
      digest !== sig.sha256
        ? `${file} was changed after it was signed (its SHA-256 is ${digest}, the signature covers ${sig.sha256})`
        : `the signature in ${sigFile} was not made by ${check.trustedKey ? `the key ${check.fingerprint} (--pubkey)` : 'the key it names'}`,
    );
  }
  const embedded = publicKeyFrom(sig.publicKey, 'the public key embedded in the signature file');
  if (!trusted && sig.fingerprint !== fingerprintOf(embedded)) {
    return fail(`${sigFile} was altered: its fingerprint field does not belong to its public key`);
  }

  let report: unknown;
  try {
    report = JSON.parse(bytes.toString('utf8'));
  } catch {
    return fail(`${file} carries a valid signature but is not JSON`);
  }
  const invalid = reportSchemaErrors(report);
  if (invalid.length) return fail(`${file} is signed but is not a valid conformance report:\n  ${invalid.join('\n  ')}`);
  const r = report as Report;

  const keyLine = check.trustedKey
    ? `signature: valid, Ed25519 key ${check.fingerprint} (the key given with --pubkey)`
    : `signature: valid, Ed25519 key ${check.fingerprint} (embedded in ${sigFile})\n  This only proves the report is unchanged since that key signed it: compare the fingerprint with the one the certifier publishes, or pass --pubkey.`;
  const lines = [
    keyLine,
    `certified: ${r.target.label}${r.target.baseUrl ? ` at ${r.target.baseUrl}` : ''}, declared profile ${r.target.profile ?? 'none'}`,
    `interface: ${r.interface.version} (requirements from ${r.interface.catalogue})`,
    `harness:   ${r.harness.name} ${r.harness.version}, revision ${r.harness.gitRevision ?? 'unknown'}${r.harness.gitDirty ? ' with uncommitted changes' : ''}`,
    `when:      ${r.run.startTime}, ${(r.run.durationMs / 1000).toFixed(1)} s${r.run.seed ? `, seed ${r.run.seed}` : ''}${r.run.strict ? ', strict' : ''}`,
    `verdict:   ${headOf(r, gateOf(r))}`,
    ...((r.run.partial ?? []).length > 0 ? ['scope:     a PARTIAL run: it is not a certificate of the whole interface'] : []),
    `summary:   ${summaryLine(r)}`,
  ];
  if (check.embeddedMismatch) lines.push('note: the signature file embeds a different public key than --pubkey; the --pubkey check is the one that counts');
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

export const verifyCommand: Command = { name: 'verify', run: verify };

runIfEntry(import.meta, verifyCommand, USAGE);
