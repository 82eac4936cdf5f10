import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Runs reference/main.ts (or another entry, faults/main.ts) as the operator would (through tsx), in the project root. */
export function runServer(args: string[], entry = 'reference/main.ts'): ServerProcess & { listening: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const result = {
    child,
    baseUrl: '',
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    listening: new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(stdout);
        if (match) {
          result.baseUrl = match[1]!;
          resolve(match[1]!);
        }
      });
      void exited.then((code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
    }),
  };
  // Tests that expect an early exit never await `listening`; its rejection is not an error there.
  result.listening.catch(() => undefined);
  return result;
}
