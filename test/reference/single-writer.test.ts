import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { buildApp } from '../../reference/app.ts';
import { test, expect } from '@playwright/test';
import { runServer } from './serverProcess.ts';

// One server per database (reference/db/lock.ts). Two servers on one file used to start
// silently and diverge: a token expired through one stayed valid on the other, a number whose
// campaignregId was removed still sent through the other, and both resumed the outbox, so
// pending webhooks were delivered twice. Then the lock went by the path it was given, and a
// second server reached the same file through a symbolic link or a hard link.

let dir: string;
test.beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'reference-writer-'));
});
test.afterEach(() => rmSync(dir, { recursive: true, force: true }));

const tokenStatus = async (baseUrl: string) => {
  const response = await request(`${baseUrl}/api/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'demo-primary', client_secret: 'demo-primary-secret' }),
  });
  await response.body.dump();
  return response.statusCode;
};

test('a second process on the same database refuses to start, with or without --fresh, and leaves the first one serving', async () => {
  test.setTimeout(60_000);
  const db = join(dir, 'shared.db');
  const first = runServer(['--port', '0', '--db', db, '--fresh', '--log-level', 'warn']);
  try {
    const baseUrl = await first.listening;
    for (const extra of [[], ['--fresh']]) {
      const second = runServer(['--port', '0', '--db', db, '--log-level', 'warn', ...extra]);
      expect(await second.exited).toBe(1);
      expect(second.stderr()).toContain(`error: cannot start the reference server: the database ${db} is in use by another reference server`);
      expect(second.stdout()).toBe('');
    }
    // The refused --fresh deleted nothing: the first server still has its clients.
    expect(await tokenStatus(baseUrl)).toBe(200);
  } finally {
    first.child.kill('SIGTERM');
    await first.exited;
  }
});

test('after the first process dies, even by kill -9, the next one starts on the same database', async () => {
  test.setTimeout(60_000);
  const db = join(dir, 'shared.db');
  const first = runServer(['--port', '0', '--db', db, '--fresh', '--log-level', 'warn']);
  await first.listening;
  first.child.kill('SIGKILL');
  await first.exited;
  const next = runServer(['--port', '0', '--db', db, '--log-level', 'warn']);
  try {
    expect(await tokenStatus(await next.listening)).toBe(200);
  } finally {
    next.child.kill('SIGTERM');
    await next.exited;
  }
});

test('within one process too, a second server on an open database is refused until the first closes', async () => {
  const dbPath = join(dir, 'shared.db');
  const first = await buildApp({ dbPath });
  await expect(buildApp({ dbPath })).rejects.toThrow(/is in use by another reference server/);
  await first.close();
  const second = await buildApp({ dbPath });
  await second.close();
});

test('a second process reaching the same file by a symbolic link, a linked folder or another spelling of the path is refused', async () => {
  test.setTimeout(60_000);
  mkdirSync(join(dir, 'data'));
  const db = join(dir, 'data', 'shared.db');
  symlinkSync(db, join(dir, 'link.db'));
  symlinkSync(join(dir, 'data'), join(dir, 'linked-folder'));
  const first = runServer(['--port', '0', '--db', db, '--fresh', '--log-level', 'warn']);
  try {
    const baseUrl = await first.listening;
    for (const other of [join(dir, 'link.db'), join(dir, 'linked-folder', 'shared.db'), `${dir}/data/../data/./shared.db`]) {
      for (const extra of [[], ['--fresh']]) {
        const second = runServer(['--port', '0', '--db', other, '--log-level', 'warn', ...extra]);
        expect(await second.exited, other).toBe(1);
        expect(second.stderr()).toContain(`error: cannot start the reference server: the database ${other} (${db}) is in use by another reference server`);
      }
    }
    expect(await tokenStatus(baseUrl)).toBe(200);
  } finally {
    first.child.kill('SIGTERM');
    await first.exited;
  }
});

test('a database file with a second name (a hard link) is refused, while a server holds it and when none does', async () => {
  test.setTimeout(60_000);
  const db = join(dir, 'shared.db');
  const first = runServer(['--port', '0', '--db', db, '--fresh', '--log-level', 'warn']);
  try {
    const baseUrl = await first.listening;
    linkSync(db, join(dir, 'other-name.db'));
    const second = runServer(['--port', '0', '--db', join(dir, 'other-name.db'), '--log-level', 'warn']);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(/^error: cannot start the reference server: the database \S+other-name\.db has 2 names \(hard links to one file\)/);
    expect(await tokenStatus(baseUrl)).toBe(200);
  } finally {
    first.child.kill('SIGTERM');
    await first.exited;
  }
  const alone = runServer(['--port', '0', '--db', db, '--log-level', 'warn']);
  expect(await alone.exited).toBe(1);
  expect(alone.stderr()).toContain('has 2 names');
  rmSync(join(dir, 'other-name.db'));
  const again = runServer(['--port', '0', '--db', db, '--log-level', 'warn']);
  try {
    expect(await tokenStatus(await again.listening)).toBe(200);
  } finally {
    again.child.kill('SIGTERM');
    await again.exited;
  }
});

test('within one process too, a second server on the same file by a symbolic link is refused', async () => {
  const dbPath = join(dir, 'shared.db');
  symlinkSync(dbPath, join(dir, 'link.db'));
  const first = await buildApp({ dbPath });
  await expect(buildApp({ dbPath: join(dir, 'link.db') })).rejects.toThrow(/is in use by another reference server/);
  await first.close();
});
