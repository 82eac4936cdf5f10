import { spawn, type ChildProcess } from 'node:child_process';

export interface RunningServer {
  baseUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a server script with tsx and waits for the line that announces its base URL. */
export function startChildServer(script: string, args: string[] = [], cwd = process.cwd()): Promise<RunningServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        resolve({
          baseUrl: match[1]!,
          process: child,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening: ${stderr}`)));
  });
}
