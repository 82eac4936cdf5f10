import { test, expect } from '@playwright/test';
import { pino } from 'pino';
import { parseBasicCredentials } from '../../reference/auth/basicCredentials.ts';
import { SimulatedCarrier } from '../../reference/delivery/carrier.ts';
import { outcomeFor } from '../../reference/delivery/outcome.ts';
import { canonicalJson } from '../../reference/send/fingerprint.ts';
import { signature } from '../../reference/webhooks/sign.ts';
import { isLoopbackHost, parseCommandLine } from '../../reference/cli/args.ts';
import { parseRetryAfter, retryDelayMs, WEBHOOK_BACKOFF_CAP_IN_MS } from '../../reference/webhooks/retryPolicy.ts';

// The small pure pieces, each against its standard.

test('Basic credentials are form-decoded after base64 (RFC 6749 2.3.1)', () => {
  const header = `Basic ${Buffer.from('special%3Aclient%2B1:p%40ss%3Aw%2Brd').toString('base64')}`;
  expect(parseBasicCredentials(header)).toEqual({ clientId: 'special:client+1', clientSecret: 'p@ss:w+rd' });
  expect(parseBasicCredentials(`Basic ${Buffer.from('a+b:c').toString('base64')}`)).toEqual({ clientId: 'a b', clientSecret: 'c' });
  expect(parseBasicCredentials(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBe('malformed');
  expect(parseBasicCredentials(`Basic ${Buffer.from('%zz:x').toString('base64')}`)).toBe('malformed');
  expect(parseBasicCredentials('Bearer abc')).toBeUndefined();
  expect(parseBasicCredentials(undefined)).toBeUndefined();
});

test('a made control token is allowed only on a loopback host; an operator\'s token on any host', () => {
  for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) expect(isLoopbackHost(host), host).toBe(true);
  for (const host of ['0.0.0.0', '::', '192.0.2.1', '10.0.0.1', 'example.com', '::2', 'fe80::1', '128.0.0.1']) expect(isLoopbackHost(host), host).toBe(false);
  expect(parseCommandLine(['--control', '--control-token', 'shared', '--host', '0.0.0.0'])).toMatchObject({ control: true, controlToken: 'shared', host: '0.0.0.0' });
  expect(parseCommandLine(['--control', '--fixtures-out', 'target.json'])).toMatchObject({ control: true, controlToken: undefined, host: '127.0.0.1' });
  expect(() => parseCommandLine(['--control', '--fixtures-out', 'target.json', '--host', '192.0.2.1'])).toThrow('--control on --host 192.0.2.1, which other machines may reach, needs --control-token TOKEN');
});

test('the webhook signature matches the Standard Webhooks reference vector', () => {
  // From the Standard Webhooks specification's example.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const body = '{"test": 2432232314}';
  expect(signature(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
});

test('canonical JSON ignores key order and whitespace but not values', () => {
  expect(canonicalJson({ b: 1, a: [{ y: 2, x: 1 }] })).toBe(canonicalJson(JSON.parse('{ "a": [ { "x": 1, "y": 2 } ], "b": 1 }')));
  expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
});

test('test outcomes: +1 NPA 555 0150..0199 fail, everything else is delivered', () => {
  expect(outcomeFor('+12025550150')).toEqual({ status: 'FAILED', errorCode: 'UNDELIVERABLE' });
  expect(outcomeFor('+14155550199')).toEqual({ status: 'FAILED', errorCode: 'UNDELIVERABLE' });
  expect(outcomeFor('+12025550149').status).toBe('DELIVERED');
  expect(outcomeFor('+12025550200').status).toBe('DELIVERED');
  expect(outcomeFor('+442025550150').status).toBe('DELIVERED');
});

test('retry delays double from 0.5 s (or --webhook-retry-base) with jitter, are capped at 60 s and honour Retry-After', () => {
  expect(retryDelayMs(1, undefined, () => 0)).toBe(250);
  expect(retryDelayMs(1, undefined, () => 1)).toBe(500);
  expect(retryDelayMs(3, undefined, () => 1)).toBe(2000);
  expect(retryDelayMs(20, undefined, () => 1)).toBe(WEBHOOK_BACKOFF_CAP_IN_MS);
  expect(retryDelayMs(1, 5, () => 0)).toBe(5000);
  expect(retryDelayMs(1, 3600, () => 0)).toBe(WEBHOOK_BACKOFF_CAP_IN_MS);
  // --webhook-retry-base: the same schedule from another base
  expect(retryDelayMs(1, undefined, () => 0, 100)).toBe(50);
  expect(retryDelayMs(3, undefined, () => 1, 100)).toBe(400);
  expect(retryDelayMs(1, 5, () => 0, 100)).toBe(5000);
  expect(parseCommandLine(['--webhook-retry-base', '0.1']).webhookRetryBaseMs).toBe(100);
  expect(parseCommandLine([]).webhookRetryBaseMs).toBe(500);
  expect(parseRetryAfter('7', 0)).toBe(7);
  expect(parseRetryAfter(new Date(10_000).toUTCString(), 0)).toBe(10);
  expect(parseRetryAfter('soon', 0)).toBeUndefined();
});

test('a message outcome whose write fails (a full disk) is written again until it commits, not left QUEUED until the next start', async () => {
  const attempts: unknown[] = [];
  const writes = {
    async run(command: unknown) {
      attempts.push(command);
      if (attempts.length <= 2) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      return null;
    },
  };
  const carrier = new SimulatedCarrier(writes as never, { inProgress: () => [] } as never, pino({ level: 'silent' }));
  carrier.take([{ messageId: 'msg_1', to: '+12025550123' }]);
  await expect.poll(() => attempts.length, { timeout: 3000 }).toBe(3);
  expect(attempts[2]).toMatchObject({ op: 'completeMessages', outcomes: [{ messageId: 'msg_1', status: 'DELIVERED' }] });
  carrier.close();
});
