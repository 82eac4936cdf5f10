import { expect, test } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE, lockReportFolder } from '../../cli/out-lock.ts';

// One run writes a report folder at a time (cli/out-lock.ts): a second is refused while the first
// lives, and a lock left by a process that is gone is taken over.

test('a folder locked by a live process is refused, naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'out-lock-'));
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: process.ppid, host: hostname(), since: '2026-01-01T00:00:00Z' }));
  const taken = lockReportFolder(dir);
  expect(taken.held).toBe(false);
  expect(!taken.held && taken.by).toContain(`process ${process.ppid}`);
});

test('a lock left by a process that is gone is taken over', () => {
  const dir = mkdtempSync(join(tmpdir(), 'out-lock-'));
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: Number(gone), host: hostname(), since: '2026-01-01T00:00:00Z' }));
  expect(lockReportFolder(dir)).toEqual({ held: true });
  expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
});

test('the lock is released when its process exits', () => {
  const dir = mkdtempSync(join(tmpdir(), 'out-lock-'));
  const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', `import('${join(process.cwd(), 'cli/out-lock.ts')}').then((m) => console.log(JSON.stringify(m.lockReportFolder('${dir}'))))`]);
  expect(run.stdout.toString().trim()).toBe('{"held":true}');
  expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
});
