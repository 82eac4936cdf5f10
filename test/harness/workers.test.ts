// How many workers a run takes when --workers does not say (harness/workers.ts): its rules in
// order, and the timing of an exchange they read.
import { expect, test } from '@playwright/test';
import { chooseWorkers, freePortsFrom, SLOW_EXCHANGE_MS, timeExchange } from '../../harness/workers.ts';
import { MAX_WORKERS } from '../../harness/settings.ts';
import { closedPort, fakeServer } from '../cli/helpers.ts';

test.describe('the choice of workers', () => {
  const remote = { bundledReference: false, exchangeMs: 50, publicUrl: undefined, freeReceiverPorts: null };

  test('a slow exchange with the target takes every worker, each its own receiver', () => {
    expect(chooseWorkers(remote)).toEqual({ workers: MAX_WORKERS, why: `an exchange with the target takes 50.0 ms: ${MAX_WORKERS} workers overlap the waits` });
    expect(chooseWorkers({ ...remote, exchangeMs: SLOW_EXCHANGE_MS })).toMatchObject({ workers: MAX_WORKERS });
    expect(chooseWorkers({ ...remote, publicUrl: 'https://hooks.example/p{port}' })).toMatchObject({ workers: MAX_WORKERS });
  });

  test('the bundled reference, a fast exchange, or none timed, is one worker', () => {
    expect(chooseWorkers({ ...remote, bundledReference: true })).toEqual({ workers: 1, why: "the bundled reference shares this machine's cores" });
    expect(chooseWorkers({ ...remote, exchangeMs: SLOW_EXCHANGE_MS - 0.1 })).toEqual({ workers: 1, why: 'an exchange with the target takes 9.9 ms: the run is bound by this machine, not by waiting' });
    expect(chooseWorkers({ ...remote, exchangeMs: null })).toEqual({ workers: 1, why: 'no exchange with the target could be timed' });
  });

  test('a webhooks.publicUrl without {port} is one worker, and says what would take more', () => {
    expect(chooseWorkers({ ...remote, publicUrl: 'https://hooks.example' })).toEqual({
      workers: 1,
      why: `an exchange with the target takes 50.0 ms, but webhooks.publicUrl has no {port}: with {port} in it the run would take ${MAX_WORKERS}`,
    });
  });
});

test.describe('the receivers of the workers', () => {
  test("take only as many workers as there are free receiver ports after a fixed listenPort, and at least one", () => {
    const remote = { bundledReference: false, exchangeMs: 50, publicUrl: undefined };
    expect(chooseWorkers({ ...remote, freeReceiverPorts: MAX_WORKERS })).toMatchObject({ workers: MAX_WORKERS });
    expect(chooseWorkers({ ...remote, freeReceiverPorts: 2 })).toEqual({ workers: 2, why: `an exchange with the target takes 50.0 ms, but only 2 of the ${MAX_WORKERS} receiver ports from webhooks.listenPort on are free` });
    expect(chooseWorkers({ ...remote, freeReceiverPorts: 0 })).toMatchObject({ workers: 1 });
  });

  test('a port something listens on ends the count of free ports', async () => {
    const taken = await fakeServer(() => {});
    try {
      const port = Number(new URL(taken.url).port);
      expect(await freePortsFrom('127.0.0.1', port, 3)).toBe(0);
      // the count from just before it stops at it (when the port before it is free)
      const before = await freePortsFrom('127.0.0.1', port - 1, 3);
      expect(before).toBeLessThanOrEqual(1);
    } finally {
      await taken.close();
    }
  });
});

test.describe('the time of an exchange', () => {
  test('is the shortest of the exchanges after the first, over one connection', async () => {
    const delays = [200, 30, 90, 30, 90];
    const sockets = new Set<unknown>();
    const server = await fakeServer((req, res) => {
      sockets.add(req.socket);
      setTimeout(() => res.writeHead(401).end(), delays.shift() ?? 0);
    });
    try {
      const ms = await timeExchange(`${server.url}/api/core/whoami`, 'GET');
      expect(ms).not.toBeNull();
      expect(ms!).toBeGreaterThanOrEqual(30);
      expect(ms!).toBeLessThan(90);
      expect(sockets.size).toBe(1);
    } finally {
      await server.close();
    }
  });

  test('is null when the target cannot be reached', async () => {
    expect(await timeExchange(`http://127.0.0.1:${await closedPort()}/api/core/whoami`, 'GET')).toBeNull();
  });
});
