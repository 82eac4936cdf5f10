// Shared entry for the small CLIs (sign, verify, compare): exit codes and error printing in
// one place. Input problems print one line and exit 2; a bug keeps its stack.
import { InputError } from './errors.ts';

export const EXIT_USAGE = 2;

function isParseArgsError(e: unknown): e is Error {
  const code = e instanceof Error ? (e as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

export async function runCli(name: string, usage: string, main: () => Promise<number> | number): Promise<void> {
  let code: number;
  try {
    code = await main();
  } catch (e) {
    if (e instanceof InputError) {
      process.stderr.write(`${name}: ${e.message}\n`);
    } else if (isParseArgsError(e)) {
      process.stderr.write(`${name}: ${e.message}\n${usage}\n`);
    } else {
      process.stderr.write(`${name}: internal error\n${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    }
    code = EXIT_USAGE;
  }
  process.exitCode = code;
}
