// Rate limits (section 8 leaves them open): requests spaced to the configured rate, a 429 with
// Retry-After waited out and the same request sent again, a target that keeps answering 429
// stopping the run, and a 429 the harness provoked left for its requirement to judge.
import { expect, test } from '@playwright/test';
import { judge, startRecording } from '../../harness/judgement.ts';
import { MAX_RETRY_AFTER_MS, RATE_LIMIT_RETRIES, RateLimitStop, rateLimited, RequestPacer, retryAfterMs, type RateLimitTally } from '../../harness/rate-limit.ts';
import type { HttpRequest, HttpResponse, Transport } from '../../harness/transport.ts';

const SEND: HttpRequest = { method: 'POST', url: 'http://t.invalid/api/core/messages/send', headers: { 'idempotency-key': 'k-1' }, body: '{"text":"hi"}' };

/** A transport that answers from a script and keeps every request it was given. */
function scripted(answers: HttpResponse[]): Transport & { seen: HttpRequest[] } {
  const seen: HttpRequest[] = [];
  const send = async (req: HttpRequest) => {
    seen.push(req);
    return answers[Math.min(seen.length - 1, answers.length - 1)]!;
  };
  return Object.assign(send, { seen });
}
const tooMany = (retryAfter?: string): HttpResponse => ({ status: 429, headers: retryAfter === undefined ? {} : { 'retry-after': retryAfter }, text: '{}' });
const ok: HttpResponse = { status: 202, headers: {}, text: '{}' };

function limitedBy(transport: Transport, retryable = () => true) {
  const tally: RateLimitTally = { retries: 0, waitedMs: 0 };
  const waits: number[] = [];
  const limited = rateLimited(transport, { pacer: new RequestPacer(null), tally, retryable, sleep: async (ms) => void waits.push(ms) });
  return { limited, tally, waits };
}

test('Retry-After is read as delta-seconds or an HTTP-date; anything else is no instruction', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  expect(retryAfterMs('2', now)).toBe(2000);
  expect(retryAfterMs('Tue, 24 Nov 2026 12:00:05 GMT', now)).toBe(5000);
  expect(retryAfterMs('Tue, 24 Nov 2026 11:00:00 GMT', now)).toBe(0);
  for (const bad of [undefined, '', '-1', '1.5', 'soon']) expect(retryAfterMs(bad, now), String(bad)).toBeNull();
});

test('a 429 with Retry-After is waited out and the very same send (key and payload) goes again; the retry is counted', async () => {
  const transport = scripted([tooMany('2'), tooMany('1'), ok]);
  const { limited, tally, waits } = limitedBy(transport);
  const res = await limited(SEND, 1000);
  expect(res.status).toBe(202);
  expect(transport.seen).toEqual([SEND, SEND, SEND]);
  expect(waits).toEqual([2000, 1000]);
  expect(tally).toEqual({ retries: 2, waitedMs: 3000 });
});

test('each wait is told as it starts, so the running test can take it off its own time', async () => {
  const { limited, tally } = limitedBy(scripted([tooMany('2'), tooMany('1'), ok]));
  const told: number[] = [];
  tally.onWait = (ms) => told.push(ms);
  await limited(SEND, 1000);
  expect(told).toEqual([2000, 1000]);
});

test('a 429 without Retry-After is returned as the answer, to be judged', async () => {
  const transport = scripted([tooMany(), ok]);
  const { limited, tally } = limitedBy(transport);
  expect((await limited(SEND, 1000)).status).toBe(429);
  expect(transport.seen).toHaveLength(1);
  expect(tally.retries).toBe(0);
});

test('while the harness has made the upstream fail, a 429 is the answer under test and is never retried', async () => {
  const transport = scripted([tooMany('1'), ok]);
  const { limited, tally } = limitedBy(transport, () => false);
  expect((await limited(SEND, 1000)).status).toBe(429);
  expect(transport.seen).toHaveLength(1);
  expect(tally.retries).toBe(0);
});

test(`a target that answers 429 ${RATE_LIMIT_RETRIES + 1} times in a row stops the run, on the harness's side`, async () => {
  const transport = scripted([tooMany('1')]);
  const { limited, tally } = limitedBy(transport);
  startRecording();
  const error = await limited(SEND, 1000).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(RateLimitStop);
  expect((error as Error).message).toContain(`answered 429 ${RATE_LIMIT_RETRIES + 1} times in a row`);
  expect((error as Error).message).toContain('--rate-limit');
  expect(transport.seen).toHaveLength(RATE_LIMIT_RETRIES + 1);
  expect(tally.retries).toBe(RATE_LIMIT_RETRIES);
  const { judgements } = judge([{ message: `RateLimitStop: ${(error as Error).message}` }]);
  expect(judgements).toEqual([expect.objectContaining({ kind: 'harness', stopsRun: true })]);
});

test('a Retry-After longer than the harness waits stops the run at once', async () => {
  const transport = scripted([tooMany(String(MAX_RETRY_AFTER_MS / 1000 + 1))]);
  const { limited, tally } = limitedBy(transport);
  await expect(limited(SEND, 1000)).rejects.toThrow(/longer than the 60 s the harness waits/);
  expect(transport.seen).toHaveLength(1);
  expect(tally.retries).toBe(0);
});

test('the pacer spaces requests to the rate: 4 per second is one every 250 ms', async () => {
  let clock = 0;
  const slept: number[] = [];
  const pacer = new RequestPacer(4, async (ms) => {
    slept.push(ms);
    clock += ms;
  }, () => clock);
  for (let i = 0; i < 4; i++) await pacer.turn();
  expect(slept).toEqual([250, 250, 250]);
  expect(clock).toBe(750);
  const free = new RequestPacer(null, async () => {
    throw new Error('an uncapped pacer never sleeps');
  });
  await free.turn();
});
