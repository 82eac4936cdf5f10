// The run lock lets tests of several workers share a target: each test holds the resources it
// touches; shared holds together, an exclusive hold alone, everything (`*`) above every single
// resource, first come first served among requests that conflict, and a dead worker's hold released.
import { expect, test } from '@playwright/test';
import { EVERYTHING, RunLock, startRunLock, type LockMode, type Need } from '../../harness/run-lock.ts';
import { tempDir } from '../reports/run-fixture.ts';

/**
 * Whether `promise` has settled after the lock server had time to answer: `within` ms, 100 for a
 * hold that must still wait; a hold that must be granted is given up to 10 s (it resolves as soon
 * as it is), so a loaded machine slows the test down instead of failing it.
 */
async function settled(promise: Promise<unknown>, within = 100): Promise<boolean> {
  let done = false;
  const settles = promise.then(() => (done = true), () => (done = true));
  await Promise.race([settles, new Promise((resolve) => setTimeout(resolve, within))]);
  return done;
}
const granted = (promise: Promise<unknown>) => settled(promise, 10_000);

const on = (resource: string, mode: LockMode): Need[] => [{ resource, mode }];
const shared = on('number:primary:a', 'shared');
const exclusive = on('number:primary:a', 'exclusive');

test('shared holds coexist; an exclusive hold waits for them, and readers who come after it wait for it', async () => {
  const dir = tempDir();
  const stop = await startRunLock(dir);
  const [a, b, c, d] = [0, 1, 2, 3].map(() => RunLock.forRun(dir, 2)!);
  try {
    await a!.acquire(shared);
    await b!.acquire(shared);
    const writer = c!.acquire(exclusive);
    expect(await settled(writer), 'an exclusive hold waits while shared ones are held').toBe(false);
    const lateReader = d!.acquire(shared);
    expect(await settled(lateReader), 'a reader behind a waiting writer waits: the writer is not starved').toBe(false);
    a!.release();
    expect(await settled(writer)).toBe(false);
    b!.release();
    expect(await granted(writer), 'granted once the last shared hold is released').toBe(true);
    expect(await settled(lateReader), 'the reader still waits while the writer holds').toBe(false);
    c!.release();
    expect(await granted(lateReader)).toBe(true);
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
    await Promise.all([a!.acquire(shared), b!.acquire(shared)]);
    const first = a!.acquire(exclusive);
    const second = b!.acquire(exclusive);
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
    await dead!.acquire(exclusive);
    const waiting = next!.acquire(exclusive);
    expect(await settled(waiting)).toBe(false);
    // what the operating system does for a process that exits: the connection closes
    (dead as unknown as { socket: { destroy(): void } }).socket.destroy();
    expect(await granted(waiting)).toBe(true);
  } finally {
    next!.release();
    await stop();
  }
});

test('a run of one worker has no lock to take', () => {
  expect(RunLock.forRun(tempDir(), 1)).toBeNull();
});

test('holds on different resources do not wait for each other; one on the same resource does', async () => {
  const dir = tempDir();
  const stop = await startRunLock(dir);
  const [a, b, c] = [0, 1, 2].map(() => RunLock.forRun(dir, 2)!);
  try {
    await a!.acquire(on('number:primary:a', 'exclusive'));
    expect(await granted(b!.acquire(on('number:primary:b', 'exclusive'))), 'another number is another resource').toBe(true);
    const same = c!.acquire([...on('number:primary:c', 'shared'), ...on('number:primary:a', 'shared')]);
    expect(await settled(same), 'a request waits for all it asks, and holds none of it meanwhile').toBe(false);
    a!.release();
    expect(await granted(same)).toBe(true);
  } finally {
    for (const lock of [a, b, c]) lock!.release();
    await stop();
  }
});

test('everything exclusively waits for every hold on any resource, and later holds wait for it; everything shared lets readers through', async () => {
  const dir = tempDir();
  const stop = await startRunLock(dir);
  const [a, b, c, d] = [0, 1, 2, 3].map(() => RunLock.forRun(dir, 2)!);
  try {
    await a!.acquire(on('number:primary:a', 'shared'));
    const whole = b!.acquire(on(EVERYTHING, 'exclusive'));
    expect(await settled(whole), 'a reader of one number holds everything off').toBe(false);
    const later = c!.acquire(on('number:primary:z', 'shared'));
    expect(await settled(later), 'a hold asked for after everything waits for it, even on another resource').toBe(false);
    a!.release();
    expect(await granted(whole)).toBe(true);
    expect(await granted(d!.acquire([])), 'a test that touches no resource never waits').toBe(true);
    b!.release();
    expect(await granted(later)).toBe(true);
    // Everything shared: readers of single numbers come through, a writer of one waits.
    await a!.acquire(on(EVERYTHING, 'shared'));
    c!.release();
    expect(await granted(c!.acquire(on('number:primary:z', 'shared'))), 'a reader beside a reader of everything').toBe(true);
    const writer = b!.acquire(on('number:primary:y', 'exclusive'));
    expect(await settled(writer), 'a writer of one number waits for the reader of every number').toBe(false);
    a!.release();
    expect(await granted(writer)).toBe(true);
  } finally {
    for (const lock of [a, b, c, d]) lock!.release();
    await stop();
  }
});

test('a request that conflicts with nothing waiting goes ahead of one that waits', async () => {
  const dir = tempDir();
  const stop = await startRunLock(dir);
  const [a, b, c] = [0, 1, 2].map(() => RunLock.forRun(dir, 2)!);
  try {
    await a!.acquire(on('number:primary:a', 'shared'));
    const writer = b!.acquire(on('number:primary:a', 'exclusive'));
    expect(await settled(writer)).toBe(false);
    expect(await granted(c!.acquire(on('number:primary:b', 'shared'))), 'another number is not held up by a writer waiting for the first').toBe(true);
    a!.release();
    expect(await granted(writer)).toBe(true);
  } finally {
    for (const lock of [a, b, c]) lock!.release();
    await stop();
  }
});
