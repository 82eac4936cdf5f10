// npm run choice-matrix [-- --only NAME,NAME] [--parallel N] [--out DIR]
//
// The choice matrix: the reference started under each combination of open choices of
// cli/choice-combinations.ts (answers another vendor may legally give where the document says
// "not shown"), certified with the config such a vendor would write (profile none, its own
// routes). Proves the harness fails no server for a legal choice: exit 0 only when every
// combination is CONFORMANT with no document-level failure; 1 otherwise; 2 for bad flags.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CHOICE_COMBINATIONS, choiceFlags, vendorConfig, wireOf } from './choice-combinations.ts';
import { freePort } from './free-port.ts';
import { inTurns } from './pool.ts';
import type { TargetDescription } from '../reference/fixtures/out.ts';
import { compiledReference } from '../harness/embedded-reference.ts';
import { REPO_ROOT, userDirectory } from '../harness/settings.ts';
import type { Report } from '../reports/types.ts';

const USAGE = `Usage: npm run choice-matrix -- [--only a,b] [--parallel N] [--out DIR]

Certifies the reference under every combination of open choices of cli/choice-combinations.ts.

  --only a,b     these combinations only (${CHOICE_COMBINATIONS.map((c) => c.name).join(', ')})
  --parallel N   combinations certified at once (default 1)
  --out DIR      each combination's report in DIR/NAME (default reports/out/choice-matrix)`;

function usageError(message: string): never {
  process.stderr.write(`choice-matrix: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

let values: { only?: string; parallel: string; out: string; help: boolean };
try {
  values = parseArgs({
    options: {
      only: { type: 'string' },
      parallel: { type: 'string', default: '1' },
      out: { type: 'string', default: join(REPO_ROOT, 'reports/out/choice-matrix') },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }).values as typeof values;
} catch (e) {
  usageError((e as Error).message);
}
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const parallel = Number(values.parallel);
if (!/^\d+$/.test(values.parallel) || parallel < 1) usageError(`--parallel takes a positive whole number (got ${values.parallel})`);
const names = values.only === undefined ? CHOICE_COMBINATIONS.map((c) => c.name) : values.only.split(',').map((s) => s.trim());
const unknown = names.filter((n) => !CHOICE_COMBINATIONS.some((c) => c.name === n));
if (unknown.length > 0) usageError(`unknown combination(s) ${unknown.join(', ')}; known: ${CHOICE_COMBINATIONS.map((c) => c.name).join(', ')}`);
const outRoot = resolve(userDirectory(), values.out);

interface Row {
  name: string;
  verdict: string;
  documentFailures: string[];
  standardFailures: string[];
  seconds: number;
  note?: string;
}

/** Starts the reference with the combination's flags; resolves once it listens, with its fixtures. */
function startReference(args: string[], fixturesOut: string): Promise<{ child: ChildProcess; fixtures: TargetDescription }> {
  const child = spawn(process.execPath, [...compiledReference(), ...args, '--fixtures-out', fixturesOut], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done, fail) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('listening on')) done({ child, fixtures: JSON.parse(readFileSync(fixturesOut, 'utf8')) as TargetDescription });
    });
    child.once('exit', (code) => fail(new Error(`the reference exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`)));
  });
}

function run(command: string[]): Promise<string> {
  return new Promise((done) => {
    const child = spawn(process.execPath, command, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    child.stderr.on('data', (c) => (text += c));
    child.on('close', () => done(text));
  });
}

async function certifyCombination(name: string): Promise<Row> {
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 100) / 10;
  const { choices } = CHOICE_COMBINATIONS.find((c) => c.name === name)!;
  const dir = mkdtempSync(join(tmpdir(), 'choice-matrix-'));
  const out = join(outRoot, name);
  mkdirSync(out, { recursive: true });
  const port = await freePort();
  let server: ChildProcess | undefined;
  try {
    // As the bundled reference is started for certify (playwright.config.ts), with the combination's choices.
    const reference = await startReference(
      ['--host', '127.0.0.1', '--port', String(port), '--db', join(dir, 'reference.db'), '--fresh', '--control', '--log-level', 'warn', '--allow-webhook-host', '127.0.0.1', '--upstream-timeout', '0.2', '--webhook-retry-base', '0.1', '--send-messages-per-second', '1000000', ...choiceFlags(choices)],
      join(dir, 'fixtures.json'),
    );
    server = reference.child;
    const config = join(out, 'target.json');
    writeFileSync(config, `${JSON.stringify(vendorConfig(name, reference.fixtures, wireOf(choices)), null, 2)}\n`, { mode: 0o600 });
    const output = await run(['--import', 'tsx', 'cli/certify.ts', '--config', config, '--out', out, '--quiet']);
    let report: Report;
    try {
      report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    } catch {
      return { name, verdict: 'harness error', documentFailures: [], standardFailures: [], seconds: seconds(), note: `no report: ${output.trim().split('\n').slice(-5).join(' | ')}` };
    }
    const failing = (level: string) => report.requirements.filter((r) => r.level === level && (r.verdict === 'fail' || r.verdict === 'non-strict fail')).map((r) => r.id);
    return { name, verdict: report.verdict, documentFailures: failing('document'), standardFailures: failing('standard'), seconds: seconds() };
  } catch (error) {
    return { name, verdict: 'harness error', documentFailures: [], standardFailures: [], seconds: seconds(), note: (error as Error).message };
  } finally {
    server?.kill('SIGTERM');
  }
}

const started = Date.now();
process.stdout.write(`choice-matrix: ${names.length} combinations of open choices, ${parallel} at a time\n`);
const rows = await inTurns(names, parallel, certifyCombination, (row) => {
  const failures = [
    row.documentFailures.length > 0 ? `document failures: ${row.documentFailures.join(', ')}` : '',
    row.standardFailures.length > 0 ? `standard (non-strict): ${row.standardFailures.join(', ')}` : '',
    row.note ?? '',
  ].filter(Boolean);
  process.stdout.write(`  ${row.verdict.toUpperCase().padEnd(16)} ${row.name.padEnd(34)} ${String(row.seconds).padStart(6)} s  ${failures.join('; ')}\n`);
});
const passed = rows.filter((r) => r.verdict === 'conformant' && r.documentFailures.length === 0).length;
process.stdout.write(`choice-matrix: ${passed}/${rows.length} combinations conformant, ${Math.round((Date.now() - started) / 1000)} s in all; reports in ${outRoot}\n`);
process.exit(passed === rows.length ? 0 : 1);
