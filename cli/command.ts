// The command layer. Every command of the package (certify, init, verify, compare, sign, serve:
// cli/commands.ts) is a function from its arguments to an exit code, declared once as a
// Command. cli/bin.js calls it in process; `node --import tsx cli/<command>.ts` (the npm
// scripts, the tests) runs the same function through runIfEntry. Neither calls process.exit
// from inside a command: a command that must stop deep inside throws CommandExit with its code,
// once it has said why.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InputError } from '../reports/errors.ts';

/** 0 success (conformant, verified, written), 1 not conformant or not verified, 2 harness or input error. */
export type ExitCode = 0 | 1 | 2;

/** A bad input: the command printed what to fix (or the error does, below). */
export const EXIT_INPUT: ExitCode = 2;

export interface Command {
  /** As the installed command names it: `messaging-conformance <name>`. */
  name: string;
  run(argv: readonly string[]): Promise<ExitCode> | ExitCode;
}

/** Ends the running command with this code; what it had to say is already written. */
export class CommandExit extends Error {
  override name = 'CommandExit';
  constructor(readonly code: ExitCode) {
    super(`the command ended with exit code ${code}`);
  }
}

/** Ends the running command with this code (see CommandExit). */
export function exitWith(code: ExitCode): never {
  throw new CommandExit(code);
}

function isParseArgsError(e: unknown): e is Error {
  const code = e instanceof Error ? (e as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

/**
 * Runs a command to its exit code. An input problem (InputError, an option parseArgs refuses)
 * prints one line and gives 2; anything else is a bug of ours and keeps its stack (2 as well).
 */
export async function execute(command: Command, argv: readonly string[], usage?: string): Promise<ExitCode> {
  try {
    return await command.run(argv);
  } catch (e) {
    if (e instanceof CommandExit) return e.code;
    if (e instanceof InputError) process.stderr.write(`${command.name}: ${e.message}\n`);
    else if (isParseArgsError(e)) process.stderr.write(`${command.name}: ${e.message}${usage === undefined ? '' : `\n${usage}`}\n`);
    else process.stderr.write(`${command.name}: internal error\n${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    return EXIT_INPUT;
  }
}

/** Whether the module of `meta` is the file node was started with. */
export function isEntry(meta: ImportMeta): boolean {
  const started = process.argv[1];
  if (started === undefined) return false;
  try {
    return realpathSync(started) === realpathSync(fileURLToPath(meta.url));
  } catch {
    return false;
  }
}

/** When the module of `meta` is the process's entry point, runs the command with the process's arguments and exits with its code. */
export function runIfEntry(meta: ImportMeta, command: Command, usage?: string): void {
  if (!isEntry(meta)) return;
  void execute(command, process.argv.slice(2), usage).then((code) => process.exit(code));
}
