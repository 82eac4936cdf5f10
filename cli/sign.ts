// Signs a conformance report (Ed25519): writes REPORT.sig beside it. See signature.ts for
// the file format and docs in reports/README.md for the key handling. Paths are relative to
// the directory the command is run in.
//
//   npm run sign -- --key vendor.key.pem reports/out/report.json
//   npm run sign -- --new-key vendor        # ~/.messaging-conformance/keys/vendor.key.pem (0600) and .pub.pem
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT, userDirectory } from '../harness/settings.ts';
import { InputError } from '../reports/errors.ts';
import { reportSchemaErrors } from '../reports/schema.ts';
import { newKeyPair, privateKeyFrom, signBytes } from '../reports/signature.ts';
import type { Report } from '../reports/types.ts';
import { runIfEntry, type Command, type ExitCode } from './command.ts';

const USAGE = `usage: npm run sign -- --key PRIVATE.pem [--out FILE.sig] [--partial] REPORT.json
       (--partial: attest a partial run, which is never a certificate; verify says it is partial)
       npm run sign -- --new-key NAME   (writes NAME.key.pem and NAME.pub.pem under ~/.messaging-conformance/keys/;
                                         a NAME with a folder, like ./keys/acme, goes there instead)`;

/** Where a new key goes: a bare name outside any project tree, a path where it says. */
export function newKeyBase(name: string, cwd: string, home = homedir()): string {
  return basename(name) === name ? join(home, '.messaging-conformance', 'keys', name) : resolve(cwd, name);
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new InputError(`cannot read ${what} ${file}`);
  }
}

/** The `sign` command: its arguments to its exit code (cli/command.ts). */
export function sign(argv: readonly string[]): ExitCode {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { key: { type: 'string' }, out: { type: 'string' }, 'new-key': { type: 'string' }, partial: { type: 'boolean' }, help: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const cwd = userDirectory();
  if (values['new-key']) {
    const base = newKeyBase(values['new-key'], cwd);
    const [priv, pub] = [`${base}.key.pem`, `${base}.pub.pem`];
    if (existsSync(priv)) throw new InputError(`${priv} exists; not overwriting a key`);
    const inRepo = !relative(REPO_ROOT, priv).startsWith('..');
    mkdirSync(dirname(priv), { recursive: true, mode: 0o700 });
    const pair = newKeyPair();
    writeFileSync(priv, pair.privateKeyPem, { mode: 0o600 });
    writeFileSync(pub, pair.publicKeyPem);
    process.stdout.write(`wrote ${priv} (keep it secret) and ${pub}\nfingerprint: ${pair.fingerprint}\npublish this fingerprint where your customers can compare it.\n`);
    if (inRepo) process.stdout.write('note: the key is inside the harness checkout; *.pem is git-ignored there, but keep it somewhere safer.\n');
    return 0;
  }
  const file = positionals[0] === undefined ? undefined : resolve(cwd, positionals[0]);
  if (!values.key || !file || positionals.length > 1) throw new InputError(`need --key and one report file\n${USAGE}`);

  const keyFile = resolve(cwd, values.key);
  const key = privateKeyFrom(readText(keyFile, 'private key'), `--key ${keyFile}`);
  // the exact bytes on disk are what gets signed; parse those same bytes, never a re-read
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw new InputError(`cannot read report ${file}`);
  }
  let report: unknown;
  try {
    report = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new InputError(`${file} is not JSON`);
  }
  const invalid = reportSchemaErrors(report);
  if (invalid.length) throw new InputError(`${file} is not a conformance report:\n  ${invalid.join('\n  ')}`);
  const r = report as Report;
  if (r.verdict === 'harness error') {
    throw new InputError(`${file} records harness errors (run.errors); such a run certifies nothing, so it is not signed`);
  }
  if (r.run.shard) {
    throw new InputError(`${file} covers shard ${r.run.shard.current} of ${r.run.shard.total} only; sign the merged report (certify --merge)`);
  }
  const partial = r.run.partial ?? [];
  if (partial.length > 0 && !values.partial) {
    throw new InputError(`${file} is a partial run (${partial.join('; ')}), not a certificate; sign it with --partial to attest what was run`);
  }

  const sig = signBytes(bytes, key);
  const out = values.out !== undefined ? resolve(cwd, values.out) : `${file}.sig`;
  writeFileSync(out, `${JSON.stringify(sig, null, 2)}\n`);
  process.stdout.write(`signed ${file}\nsignature: ${out}\nkey fingerprint: ${sig.fingerprint}\n`);
  return 0;
}

export const signCommand: Command = { name: 'sign', run: sign };

runIfEntry(import.meta, signCommand, USAGE);
