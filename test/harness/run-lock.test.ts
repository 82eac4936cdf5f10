// The run lock lets tests of several workers share a target: shared holds together, an
// exclusive hold alone, first come first served, and a dead worker's hold released.
import { expect, test } from '@playwright/test';
import { RunLock, startRunLock } from '../../harness/run-lock.ts';
import { tempDir } from '../reports/run-fixture.ts';

/** Whether `promise` has settled after the lock server had time to answer. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true), () => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 100));
  return done;
}

test('shared holds coexist; an exclusive hold waits for them, and readers who come after it wait for it', async () => {
  const dir = tempDir();
  const stop = await startRunLock(dir);
  const [a, b, c, d] = [0, 1, 2, 3].map(() => RunLock.forRun(dir, 2)!);
  try {
    await a!.acquire('shared');
    await b!.acquire('shared');
    const writer = c!.acquire('exclusive');
    expect(await settled(writer), 'an exclusive hold waits while shared ones are held').toBe(false);
    const lateReader = d!.acquire('shared');
    expect(await settled(lateReader), 'a reader behind a waiting writer waits: the writer is not starved').toBe(false);
    a!.release();
    expect(await settled(writer)).toBe(false);
    b!.release();
    expect(await settled(writer), 'granted once the last shared hold is released').toBe(true);
    expect(await settled(lateReader), 'the reader still waits while the writer holds').toBe(false);
    c!.release();
    expect(await settled(lateReader)).toBe(true);
  } finally {
    for (const lock of [a, b, c, d]) lock!.release();
    await stop();
  }
});

test('trading a shared hold for the exclusive one cannot deadlock two workers that both do it', async () => {
  const dir = tempDir();
  const stop = await startRunLock(dir);
  const [a, b] = [0, 1].map(() => RunLock.forRun(dir, 2)!);
  try {
    await Promise.all([a!.acquire('shared'), b!.acquire('shared')]);
    const first = a!.acquire('exclusive');
    const second = b!.acquire('exclusive');
    const winner = await Promise.race([first.then(() => a!), second.then(() => b!)]);
    expect(await settled(winner === a ? second : first), 'the other waits while one holds').toBe(false);
    winner.release();
    await (winner === a ? second : first);
  } finally {
    a!.release();
    b!.release();
    await stop();
  }
});

test('a hold whose worker is gone (its connection closed) is released', async () => {
  const dir = tempDir();
  const stop = await startRunLock(dir);
  const [dead, next] = [0, 1].map(() => RunLock.forRun(dir, 2)!);
  try {
    await dead!.acquire('exclusive');
    const waiting = next!.acquire('exclusive');
    expect(await settled(waiting)).toBe(false);
    // what the operating system does for a process that exits: the connection closes
    (dead as unknown as { socket: { destroy(): void } }).socket.destroy();
    expect(await settled(waiting)).toBe(true);
  } finally {
    next!.release();
    await stop();
  }
});

test('a run of one worker has no lock to take', () => {
  expect(RunLock.forRun(tempDir(), 1)).toBeNull();
});
