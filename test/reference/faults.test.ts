import { isUtf8 } from 'node:buffer';
import { createHmac, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { request as undiciRequest } from 'undici';
import { parseCommandLine } from '../../reference/cli/args.ts';
import { malformedParts } from '../../suites/support/challenge.ts';
import { ConfigError } from '../../reference/errors.ts';
import { FAULTS, FAULT_NAMES, faultBanner, parseFaults, type FaultName } from '../../faults/index.ts';
import { faultExtension } from '../../faults/inject.ts';
import { faultTable } from '../../faults/table.ts';
import { test, expect, sendBody, startReceiver, type Role, type TestServer } from './helpers.ts';
import { verificationProblem, verifyWebhook } from '../../harness/webhook-signature.ts';
import { runServer } from './serverProcess.ts';
import { rawExchange } from '../../harness/raw-http.ts';

// The fault catalogue (faults/): off unless asked for by name, loud when on, kept out
// of the clean code, and each fault really changes the behaviour it claims. The kill matrix (cli/sensitivity.ts) then shows
// whether the conformance suites notice.

type Reply = { status: number; body: any; headers: Record<string, unknown> };

async function call(server: TestServer, method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, options: { token?: string | null; headers?: Record<string, string>; payload?: unknown; body?: string } = {}): Promise<Reply> {
  const token = options.token === undefined ? await server.token() : options.token;
  const response = await server.app.inject({
    method,
    url,
    headers: { ...(token !== null && { authorization: `Bearer ${token}` }), ...(options.body !== undefined && { 'content-type': 'application/json' }), ...options.headers },
    ...(options.payload !== undefined && { payload: options.payload as Record<string, unknown> }),
    ...(options.body !== undefined && { payload: options.body }),
  });
  let body: unknown;
  try {
    body = response.json();
  } catch {
    body = response.body;
  }
  return { status: response.statusCode, body, headers: response.headers };
}

const primaryNumber = (server: TestServer, index = 0) => server.client('primary').numbers[index]!;
let keys = 0;
const newKey = () => `fault-test-${++keys}`;

/** A send with this Idempotency-Key (a new one by default, none with null). */
function send(server: TestServer, payload: unknown, key: string | null = newKey(), token?: string): Promise<Reply> {
  return call(server, 'POST', '/api/core/messages/send', { token, payload, headers: key === null ? {} : { 'idempotency-key': key } });
}

function token(server: TestServer, payload: Record<string, unknown> | string, headers: Record<string, string> = {}): Promise<Reply> {
  const form = typeof payload === 'string';
  return call(server, 'POST', '/api/auth/token', {
    token: null,
    headers: { ...headers, ...(form && { 'content-type': 'application/x-www-form-urlencoded' }) },
    ...(form ? { body: payload } : { payload }),
  });
}

/** `probe`'s answer while the secondary client is suspended through the control plane. */
async function whileSuspended(server: TestServer, probe: () => Promise<boolean>): Promise<boolean> {
  const status = (value: string) => call(server, 'PUT', `/_control/clients/${encodeURIComponent(server.client('secondary').clientId)}/status`, { token: server.app.reference.controlToken!, payload: { status: value } });
  await status('SUSPENDED');
  try {
    return await probe();
  } finally {
    await status('ACTIVE');
  }
}

/** The first delivery callback for a send from the primary's first number, with `setup` pointing the webhooks. */
/** Whether a message `role` sends, from a number without an override, reaches the primary client's delivery webhook. */
async function outcomeReachesPrimary(s: TestServer, role: Role): Promise<boolean> {
  const receiver = await startReceiver();
  try {
    await clientWebhook(s, receiver.url);
    const theirs = s.client(role).numbers.find((n) => n.campaignregId && n.smsEnabled && !n.webhookDeliveryOverride)!;
    const sent = await send(s, sendBody(theirs.numberId), newKey(), await s.token(role));
    const messageId: string = sent.body.results[0].messageId;
    await new Promise((resolve) => setTimeout(resolve, 800));
    return receiver.received.some((c) => c.body.includes(messageId));
  } finally {
    await clientWebhook(s, null);
    await receiver.close();
  }
}

async function deliveryCallback(server: TestServer, setup: (override: string, client: string) => Promise<void>) {
  const override = await startReceiver();
  const clientHook = await startReceiver();
  try {
    await setup(override.url, clientHook.url);
    const sent = await send(server, sendBody(primaryNumber(server).numberId));
    const messageId: string = sent.body.results[0].messageId;
    const [callback] = await override.waitFor(1, 2_000).catch(() => []);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { messageId, callback, atClient: clientHook.received.length };
  } finally {
    await override.close();
    await clientHook.close();
  }
}

async function overrideTo(server: TestServer, url: string): Promise<void> {
  const res = await call(server, 'PATCH', `/api/core/numbers/${primaryNumber(server).numberId}`, { payload: { webhookDeliveryOverride: url } });
  expect(res.status).toBe(200);
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** `probe` run while the primary client's delivery webhook points at a fresh receiver (through the control plane); the webhook is cleared after. */
async function atClientDeliveryHook<T>(server: TestServer, probe: (clientHook: Receiver) => Promise<T>): Promise<T> {
  const clientHook = await startReceiver();
  const path = `/_control/clients/${server.client('primary').clientId}/webhooks`;
  try {
    await call(server, 'PUT', path, { token: server.app.reference.controlToken!, payload: { delivery: clientHook.url } });
    return await probe(clientHook);
  } finally {
    await call(server, 'PUT', path, { token: server.app.reference.controlToken!, payload: { delivery: null } });
    await clientHook.close();
  }
}

/** The first `count` callbacks of a send of the secondary client's, its number's override pointed at a receiver answering `respond` (put back after), with that client's secret. */
async function secondaryCallbacks(server: TestServer, count: number, respond?: Parameters<typeof startReceiver>[0]): Promise<{ secret: string; attempts: Awaited<ReturnType<Receiver['waitFor']>> }> {
  const receiver = await startReceiver(respond);
  const theirs = server.client('secondary');
  const token = await server.token('secondary');
  const number = theirs.numbers.find((n) => n.campaignregId && n.smsEnabled)!;
  try {
    await call(server, 'PATCH', `/api/core/numbers/${number.numberId}`, { token, payload: { webhookDeliveryOverride: receiver.url } });
    await send(server, sendBody(number.numberId), newKey(), token);
    return { secret: theirs.webhookSecret, attempts: await receiver.waitFor(count, 5_000) };
  } finally {
    await call(server, 'PATCH', `/api/core/numbers/${number.numberId}`, { token, payload: { webhookDeliveryOverride: null } });
    await receiver.close();
  }
}

/** `probe` run while the primary number's delivery override points at a fresh receiver answering `respond`; the override is put back after. */
async function atOverride<T>(server: TestServer, probe: (receiver: Receiver) => Promise<T>, respond?: Parameters<typeof startReceiver>[0]): Promise<T> {
  const receiver = await startReceiver(respond);
  try {
    await overrideTo(server, receiver.url);
    return await probe(receiver);
  } finally {
    await call(server, 'PATCH', `/api/core/numbers/${primaryNumber(server).numberId}`, { payload: { webhookDeliveryOverride: null } });
    await receiver.close();
  }
}

/**
 * Whether a callback answered 500 is still tried again after `meanwhile` ran while its retry was
 * due: a send from the primary's first number, its first callback answered 500, then `meanwhile`
 * (given the send's key and body), then a second attempt within 2 s.
 */
async function retriedAfter(server: TestServer, meanwhile: (key: string, body: Record<string, unknown>) => Promise<void>): Promise<boolean> {
  return atOverride(
    server,
    async (receiver) => {
      const key = newKey();
      const body = sendBody(primaryNumber(server).numberId);
      await send(server, body, key);
      await receiver.waitFor(1, 2_000);
      await meanwhile(key, body);
      return (await receiver.waitFor(2, 2_000).catch(() => [])).length >= 2;
    },
    (_r, i) => ({ status: i === 0 ? 500 : 204 }),
  );
}

/** `probe` run after a send from the primary number to the secondary client's first number, whose inbound override that client pointed at a fresh receiver; put back after. */
async function atSecondaryInboundOverride<T>(server: TestServer, probe: (receiver: Receiver) => Promise<T>): Promise<T> {
  const receiver = await startReceiver();
  const theirs = server.client('secondary').numbers[0]!;
  const secondaryToken = await server.token('secondary');
  try {
    await call(server, 'PATCH', `/api/core/numbers/${theirs.numberId}`, { token: secondaryToken, payload: { webhookInboundOverride: receiver.url } });
    await send(server, sendBody(primaryNumber(server).numberId, { to: [theirs.phoneNumber] }));
    return await probe(receiver);
  } finally {
    await call(server, 'PATCH', `/api/core/numbers/${theirs.numberId}`, { token: secondaryToken, payload: { webhookInboundOverride: null } });
    await receiver.close();
  }
}

/** HEAD on the whoami route, with the primary client's token (undefined), none (null) or this one. */
async function headWhoami(server: TestServer, token: string | null | undefined): Promise<{ status: number; headers: Record<string, unknown> }> {
  const bearer = token === undefined ? await server.token('primary') : token;
  const res = await server.app.inject({ method: 'HEAD', url: '/api/core/whoami', headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` } });
  return { status: res.statusCode, headers: res.headers };
}

async function clientWebhook(server: TestServer, url: string | null): Promise<void> {
  const res = await call(server, 'PUT', `/_control/clients/${server.client('primary').clientId}/webhooks`, { token: server.app.reference.controlToken!, payload: { delivery: url } });
  expect(res.status).toBe(200);
}

/** Where an inbound message for the primary's first number lands, with `setup` pointing the webhooks: [at the override, at the client's webhook]. */
async function inboundCallbacks(server: TestServer, setup: (override: string, client: string) => Promise<void>): Promise<[number, number]> {
  const override = await startReceiver();
  const clientHook = await startReceiver();
  try {
    await setup(override.url, clientHook.url);
    const res = await call(server, 'POST', '/_control/inbound', { token: server.app.reference.controlToken!, payload: { numberId: primaryNumber(server).numberId, from: '+12025550123', text: 'hello' } });
    expect(res.status).toBeLessThan(300);
    await Promise.race([override.waitFor(1, 2_000), clientHook.waitFor(1, 2_000)]).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    return [override.received.length, clientHook.received.length];
  } finally {
    await call(server, 'PATCH', `/api/core/numbers/${primaryNumber(server).numberId}`, { payload: { webhookInboundOverride: null } });
    await call(server, 'PUT', `/_control/clients/${server.client('primary').clientId}/webhooks`, { token: server.app.reference.controlToken!, payload: { inbound: null } });
    await override.close();
    await clientHook.close();
  }
}

/** The callback an inbound message for the primary's first number brings to that number's inbound override, if one comes within 2 s. */
async function inboundAtOverride(server: TestServer) {
  const override = await startReceiver();
  const { numberId } = primaryNumber(server);
  try {
    await call(server, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: override.url } });
    await call(server, 'POST', '/_control/inbound', { token: server.app.reference.controlToken!, payload: { numberId, from: '+12025550123', text: 'hello' } });
    const [callback] = await override.waitFor(1, 2_000).catch(() => []);
    return callback;
  } finally {
    await call(server, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: null } });
    await override.close();
  }
}

/**
 * How many attempts the delivery callback of one send gets within 2 s when its first attempt is
 * spoiled by `fail` (every later one answered 204): 2 or more when failed callbacks are retried.
 */
async function attemptsAfterFailure(server: TestServer, fail: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  let attempts = 0;
  let secondArrived: () => void = () => {};
  const second = new Promise<void>((resolve) => (secondArrived = resolve));
  const receiver = createServer((req, res) => {
    attempts += 1;
    if (attempts === 1) return fail(req, res);
    res.writeHead(204).end();
    secondArrived();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    await overrideTo(server, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    expect((await send(server, sendBody(primaryNumber(server).numberId))).status).toBe(202);
    await Promise.race([second, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    return attempts;
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

/**
 * Whether the delivery callback of one send, its attempts answered as `answer` says, is retried
 * with growing waits: of the attempts from `from` on, the wait before the fourth is longer than
 * 1.5 times the wait before the second (WH-108).
 */
async function backsOff(server: TestServer, answer: Parameters<typeof startReceiver>[0], attempts: number, from = 0, timeoutMs = 8_000): Promise<boolean> {
  const receiver = await startReceiver(answer);
  try {
    await overrideTo(server, receiver.url);
    await send(server, sendBody(primaryNumber(server).numberId));
    const at = (await receiver.waitFor(attempts, timeoutMs)).map((r) => r.at).slice(from);
    return at[3]! - at[2]! > 1.5 * (at[1]! - at[0]!);
  } finally {
    await receiver.close();
  }
}

/** The answer to a search while the control plane's upstream answers `status`. */
async function searchWhileUpstreamAnswers(s: TestServer, status: number, criteria: Record<string, string> = { npa: '202' }, token?: string): Promise<Reply> {
  await call(s, 'POST', '/_control/upstream', { token: s.app.reference.controlToken!, payload: { mode: 'fail', status } });
  try {
    return await call(s, 'POST', '/api/core/numbers/search', { payload: criteria, token });
  } finally {
    await call(s, 'POST', '/_control/upstream', { token: s.app.reference.controlToken!, payload: { mode: 'ok' } });
  }
}

const listed = async (s: TestServer): Promise<Array<Record<string, unknown>>> => (await call(s, 'GET', '/api/core/numbers')).body.numbers;
const credentials = (s: TestServer) => ({ grant_type: 'client_credentials', client_id: s.client('primary').clientId, client_secret: s.client('primary').clientSecret });

/** A request the router itself refuses (a path parameter over fastify's maxParamLength); needs a listening server. */
async function routerRefusal(server: TestServer): Promise<Reply> {
  if (!server.app.server.listening) await server.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = server.app.server.address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/api/core/numbers/${'n'.repeat(2048)}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${await server.token()}`, 'content-type': 'application/json' },
    body: '{"smsEnabled":true}',
  });
  return { status: response.status, body: await response.json(), headers: Object.fromEntries(response.headers) };
}

/**
 * One probe per fault: true when the server does what the requirement asks. A clean server
 * passes every probe; a server with one fault fails that fault's probe.
 */
/** The externalReference of the sends a probe expects refused and never reported. */
const REFUSED_REFERENCE = 'refused-order';

/**
 * A send refused by the server (what `refuse` sends from the number, with the externalReference
 * REFUSED_REFERENCE) is never reported, however late a callback would come, while a valid send
 * after it is; callbacks of sends `refuse` made accepted before it may arrive too.
 */
async function refusedSendNeverReported(server: TestServer, refuse: (numberId: string) => Promise<Reply>): Promise<boolean> {
  const receiver = await startReceiver();
  try {
    await overrideTo(server, receiver.url);
    const refused = await refuse(primaryNumber(server).numberId);
    await send(server, sendBody(primaryNumber(server).numberId));
    await receiver.waitFor(1, 2_000).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 400));
    return refused.status >= 400 && receiver.received.length > 0 && receiver.received.every((callback) => !callback.body.includes(REFUSED_REFERENCE));
  } finally {
    await receiver.close();
  }
}

/** A send refused for its recipient is never reported. */
const rejectedSendNeverReported = (s: TestServer) => refusedSendNeverReported(s, (numberId) => send(s, sendBody(numberId, { to: ['2025550100'], externalReference: REFUSED_REFERENCE })));

/** Delivery callbacks a send gets within a quiet second after it was retried twice with its key and payload (1 when a retry queues nothing). */
async function callbacksAfterRetries(server: TestServer): Promise<number> {
  const receiver = await startReceiver();
  try {
    await overrideTo(server, receiver.url);
    const key = newKey();
    await send(server, sendBody(primaryNumber(server).numberId), key);
    await receiver.waitFor(1, 2_000).catch(() => undefined);
    await send(server, sendBody(primaryNumber(server).numberId), key);
    await send(server, sendBody(primaryNumber(server).numberId), key);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return receiver.received.length;
  } finally {
    await receiver.close();
  }
}

const PROBES: Record<FaultName, (server: TestServer) => Promise<boolean>> = {
  // sendFrom named twice, the primary's own number first and the secondary's after: never sent from the secondary's.
  'send.self-recipient-refused': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { to: [primaryNumber(s).phoneNumber] }))).status === 202,
  'send.owner-by-campaign': async (s) => {
    const theirs = s.client('secondary').numbers[0]!;
    const secondaryToken = await s.token('secondary');
    await call(s, 'PATCH', `/api/core/numbers/${theirs.numberId}`, { token: secondaryToken, payload: { campaignregId: primaryNumber(s).campaignregId } });
    try {
      return (await send(s, sendBody(theirs.numberId))).status === 403;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${theirs.numberId}`, { token: secondaryToken, payload: { campaignregId: theirs.campaignregId ?? null } });
    }
  },
  'send.duplicate-sendfrom-owner-first': async (s) => {
    const own = primaryNumber(s).numberId;
    const theirs = s.client('secondary').numbers[0]!.numberId;
    const { sendFrom: _, ...rest } = sendBody(own);
    const body = `{"sendFrom":${JSON.stringify(own)},${JSON.stringify(rest).slice(1, -1)},"sendFrom":${JSON.stringify(theirs)}}`;
    const res = await call(s, 'POST', '/api/core/messages/send', { body, headers: { 'idempotency-key': newKey(), 'content-type': 'application/json' } });
    return res.status >= 400;
  },
  'send.media-rule-422': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { media: [{ url: 'https://cdn.example.com/p.png', contentType: 'image/png' }] }))).status === 400,
  'send.missing-key-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).numberId), null)).status === 400,
  'send.sms-with-media-accepted': async (s) =>
    (await send(s, sendBody(primaryNumber(s).numberId, { media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }] }))).status === 400,
  'send.array-body-first-element': async (s) => (await call(s, 'POST', '/api/core/messages/send', { body: JSON.stringify([sendBody(primaryNumber(s).numberId)]), headers: { 'idempotency-key': newKey() } })).status === 400,
  'send.mms-without-media-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { messageType: 'MMS' }))).status === 400,
  'send.mms-empty-media-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { messageType: 'MMS', media: [] }))).status === 400,
  'send.mms-null-media-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { messageType: 'MMS', media: null }))).status === 400,
  'send.later-media-item-unchecked': async (s) =>
    (await send(s, sendBody(primaryNumber(s).numberId, { messageType: 'MMS', media: [{ url: 'https://cdn.example.com/conformance/pixel.png', contentType: 'image/png' }, 'https://cdn.example.com/conformance/pixel.png'] }))).status === 400,
  'send.foreign-send-from-accepted': async (s) => (await send(s, sendBody(s.client('secondary').numbers[0]!.numberId))).status === 403,
  'send.foreign-send-from-replayed': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId);
    await send(s, body, key);
    return (await send(s, body, key, await s.token('secondary'))).status === 403;
  },
  'send.foreign-send-from-to-held-numbers': async (s) => (await send(s, { ...sendBody(s.client('secondary').numbers[0]!.numberId), to: [primaryNumber(s).phoneNumber] })).status === 403,
  'send.unknown-send-from-not-found': async (s) => (await send(s, sendBody('num_0000000000000000000000000000dead'))).status === 403,
  'send.no-campaign-accepted': async (s) => (await send(s, sendBody(primaryNumber(s, 2).numberId))).status === 400,
  'send.e164-send-from-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).phoneNumber))).status === 400,
  'send.padded-own-phone-resolved': async (s) => (await send(s, sendBody(` ${primaryNumber(s).phoneNumber}`))).status !== 202,
  'send.digits-own-phone-resolved': async (s) => (await send(s, sendBody(primaryNumber(s).phoneNumber.slice(1)))).status !== 202,
  'send.long-mms-text-without-media-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { messageType: 'MMS', text: 'x'.repeat(200) }))).status === 400,
  'send.campaign-skipped-for-held-recipients': async (s) => (await send(s, sendBody(primaryNumber(s, 2).numberId, { to: [primaryNumber(s).phoneNumber] }))).status === 400,
  'send.several-recipients-notice-in-errors': async (s) => ((await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550123', '+12025550124'] }))).body.errors as unknown[]).length === 0,
  'send.basic-token-skips-ownership': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const basic = (await token(s, 'grant_type=client_credentials', { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` })).body.access_token as string;
    return (await send(s, sendBody(s.client('secondary').numbers[0]!.numberId), newKey(), basic)).status === 403;
  },
  'send.padded-send-from-trimmed': async (s) => (await send(s, sendBody(` ${primaryNumber(s).numberId} `))).status !== 202,
  'send.own-phone-resolved-for-mms': async (s) =>
    (await send(s, sendBody(primaryNumber(s).phoneNumber, { messageType: 'MMS', media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }] }))).status === 400,
  'send.key-header-one-spelling': async (s) => {
    // Over a socket: app.inject writes every header name in lower case.
    const base = s.app.server.listening ? `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}` : await s.app.listen({ port: 0, host: '127.0.0.1' });
    const res = await undiciRequest(`${base}/api/core/messages/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await s.token()}`, 'content-type': 'application/json', 'IDEMPOTENCY-KEY': newKey() },
      body: JSON.stringify(sendBody(primaryNumber(s).numberId)),
    });
    await res.body.dump();
    return res.statusCode === 202;
  },
  'send.encoded-client-id-owner-check': async (s) => (await send(s, sendBody(s.client('special').numbers[0]!.numberId), newKey(), await s.token('special'))).status === 202,
  'send.padded-recipient-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { to: [' +12025550123\n'] }))).status === 400,
  'send.00-prefix-recipient-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { to: ['0012025550123'] }))).status === 400,
  'send.long-recipient-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { to: ['+1202555012345678'] }))).status === 400,
  'send.sixteen-digit-recipient-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { to: ['+4474001234567890'] }))).status === 400,
  'send.late-recipients-unchecked': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550123', '+12025550124', '12025550125'] }))).status === 400,
  'send.media-name-read-as-written': async (s) => {
    const body = JSON.stringify(sendBody(primaryNumber(s).numberId, { media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }] })).replace('"media"', '"\\u006dedia"');
    return (await call(s, 'POST', '/api/core/messages/send', { body, headers: { 'idempotency-key': newKey() } })).status === 400;
  },
  'send.escaped-plus-refused': async (s) => {
    const body = JSON.stringify(sendBody(primaryNumber(s).numberId, { to: ['+12025550123'] })).replace('"+1202', '"\\u002B1202');
    return (await call(s, 'POST', '/api/core/messages/send', { body, headers: { 'idempotency-key': newKey() } })).status === 202;
  },
  'search.quantity-missing-by-city': async (s) => typeof (await call(s, 'POST', '/api/core/numbers/search', { payload: { city: 'Washington' } })).body.requestedQuantity === 'number',
  'send.campaign-rule-sms-only': async (s) => {
    const { numberId } = primaryNumber(s);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: null } });
    try {
      return (await send(s, sendBody(numberId, { messageType: 'MMS', media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }] }))).status === 400;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: primaryNumber(s).campaignregId } });
    }
  },
  'send.escaped-surrogate-refused': async (s) => {
    const body = JSON.stringify(sendBody(primaryNumber(s).numberId, { text: 'mail \u{1f4e8}' })).replace('\u{1f4e8}', '\\ud83d\\udce8');
    if (!body.includes('\\ud83d\\udce8')) throw new Error(`the probe's body must hold the escaped pair: ${body}`);
    return (await call(s, 'POST', '/api/core/messages/send', { body, headers: { 'idempotency-key': newKey() } })).status === 202;
  },
  'idempotency.empty-key-taken': async (s) => (await send(s, sendBody(primaryNumber(s).numberId), '')).status === 400,
  'idempotency.repeated-key-first-wins': async (s) => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/core/messages/send',
      headers: { authorization: `Bearer ${await s.token()}`, 'content-type': 'application/json', 'idempotency-key': [newKey(), newKey()] },
      payload: JSON.stringify(sendBody(primaryNumber(s).numberId)),
    });
    return res.statusCode === 400;
  },
  'send.status-not-queued': async (s) => (await send(s, sendBody(primaryNumber(s).numberId))).body.results[0].status === 'QUEUED',
  'send.last-result-dropped': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550123', '+12025550124'] }))).body.results.length === 2,
  // A send to eleven recipients: eleven result items.
  'send.results-capped-at-ten': async (s) => {
    const to = Array.from({ length: 11 }, (_, i) => `+1202555${String(100 + i).padStart(4, '0')}`);
    const res = await send(s, sendBody(primaryNumber(s).numberId, { to }));
    return res.status === 202 && res.body.results.length === 11;
  },
  // A text of 1531 characters, within the profile's 1600: accepted.
  'send.long-text-500': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { text: 'x'.repeat(1531) }))).status === 202,
  'send.lone-media-item-wrapped': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { messageType: 'MMS', media: { url: 'https://cdn.example.com/a.png', contentType: 'image/png' } }))).status === 400,
  'send.errors-array-missing': async (s) => Array.isArray((await send(s, sendBody(primaryNumber(s).numberId))).body.errors),
  'send.replay-errors-null': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId);
    await send(s, body, key);
    return Array.isArray((await send(s, body, key)).body.errors);
  },
  'send.empty-to-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { to: [] }))).status === 400,
  'send.text-type-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { messageType: 'TEXT' }))).status === 400,
  'send.unknown-type-forbidden': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { messageType: 'RCS' }))).status === 400,
  'send.missing-external-reference-accepted': async (s) => {
    const { externalReference: _dropped, ...body } = sendBody(primaryNumber(s).numberId);
    return (await send(s, body)).status === 400;
  },
  'send.mms-refused': async (s) =>
    (await send(s, sendBody(primaryNumber(s).numberId, { messageType: 'MMS', media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }] }))).status === 202,
  'send.missing-type-accepted': async (s) => {
    const { messageType: _dropped, ...body } = sendBody(primaryNumber(s).numberId);
    return (await send(s, body)).status === 400;
  },
  'send.media-extra-member-accepted': async (s) => {
    const mms = s.client('primary').numbers.find((n) => n.mmsEnabled && n.campaignregId);
    return (await send(s, sendBody(mms!.numberId, { messageType: 'MMS', media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png', caption: 'hello' }] }))).status === 400;
  },
  'send.capability-refusal-unexplained': async (s) => {
    const { numberId } = primaryNumber(s);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: false } });
    try {
      return (await send(s, sendBody(numberId))).body?.error?.details?.setting === 'smsEnabled';
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: true } });
    }
  },
  'token.undecodable-basic-crashes': async (s) => (await token(s, 'grant_type=client_credentials', { authorization: `Basic ${Buffer.from('client%zz:secret').toString('base64')}` })).status < 500,
  'token.uri-credentials-ignored': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const res = await s.app.inject({ method: 'POST', url: `/api/auth/token?client_secret=${encodeURIComponent(clientSecret)}`, payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } });
    return res.statusCode === 400;
  },
  'token.405-without-allow': async (s) => (await s.app.inject({ method: 'GET', url: '/api/auth/token' })).headers.allow === 'POST',
  'token.undecodable-body-500': async (s) => {
    const body = Buffer.concat([Buffer.from('grant_type=client_credentials&client_secret=x&client_id='), Buffer.from([0xff, 0xfe])]);
    return (await s.app.inject({ method: 'POST', url: '/api/auth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: body })).statusCode < 500;
  },
  'token.undecodable-basic-unchallenged': async (s) => {
    const res = await token(s, 'grant_type=client_credentials', { authorization: `Basic ${Buffer.from('no-colon-here').toString('base64')}` });
    return res.status === 401 && res.headers['www-authenticate'] !== undefined;
  },
  'token.allow-lowercase': async (s) => (await s.app.inject({ method: 'GET', url: '/api/auth/token' })).headers.allow === 'POST',
  'token.empty-grant-type-unsupported': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    return (await token(s, `grant_type=&client_id=${clientId}&client_secret=${clientSecret}`)).body.error === 'invalid_request';
  },
  'token.other-method-not-found': async (s) => (await s.app.inject({ method: 'DELETE', url: '/api/auth/token' })).statusCode === 405,
  'token.malformed-json-413': async (s) => (await s.app.inject({ method: 'POST', url: '/api/auth/token', headers: { 'content-type': 'application/json' }, payload: '{"grant_type":"client_credentials"' })).statusCode === 400,
  'token.malformed-json-core-wrapper': async (s) => {
    const res = await s.app.inject({ method: 'POST', url: '/api/auth/token', headers: { 'content-type': 'application/json' }, payload: '{"grant_type":"client_credentials"' });
    return typeof JSON.parse(res.body).error === 'string';
  },
  'send.limit-not-named': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { text: 'x'.repeat(1601) }))).body?.error?.details?.limit === 1600,
  'idempotency.waiter-of-refused-fails': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId, { to: ['2025550100'] });
    const answers = await Promise.all([send(s, body, key), send(s, body, key), send(s, body, key)]);
    return answers.every((a) => a.status === 400 || a.status === 409);
  },
  'send.rejected-still-queued': rejectedSendNeverReported,
  'send.rejected-reported-late': rejectedSendNeverReported,
  'send.partial-recipients-queued': (s) => refusedSendNeverReported(s, (numberId) => send(s, sendBody(numberId, { to: ['+12025550123', '2025550100'], externalReference: REFUSED_REFERENCE }))),
  'send.missing-key-still-queued': (s) => refusedSendNeverReported(s, (numberId) => send(s, sendBody(numberId, { externalReference: REFUSED_REFERENCE }), null)),
  'send.scalar-to-accepted': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { to: '+12025550123' }))).status === 400,
  'send.text-required': async (s) => {
    const { text: _dropped, ...body } = sendBody(primaryNumber(s).numberId);
    return (await send(s, body)).status === 202;
  },
  'send.unregistered-refusal-remembered': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: null } });
    await send(s, sendBody(numberId));
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId } });
    return (await send(s, sendBody(numberId))).status === 202;
  },
  'send.disabled-type-accepted': async (s) => {
    const numberId = primaryNumber(s).numberId;
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: false } });
    try {
      return (await send(s, sendBody(numberId))).status === 400;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: true } });
    }
  },

  'idempotency.replay-current-status': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId);
    const first = await send(s, body, key);
    // Replayed for 3 s, while the simulated carrier settles the message (within moments): each
    // replay reports the first answer's status.
    for (let i = 0; i < 60; i++) {
      const replay = await send(s, body, key);
      if (replay.body.results[0].status !== first.body.results[0].status) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
    return true;
  },
  'idempotency.replay-creates-new': async (s) => {
    const key = newKey();
    const first = await send(s, sendBody(primaryNumber(s).numberId), key);
    const replay = await send(s, sendBody(primaryNumber(s).numberId), key);
    return replay.status === 202 && replay.body.results[0].messageId === first.body.results[0].messageId;
  },
  'idempotency.replay-requeues': async (s) => (await callbacksAfterRetries(s)) === 1,
  'idempotency.replay-revalidates': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s);
    const key = newKey();
    const first = await send(s, sendBody(numberId), key);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: null } });
    try {
      const replay = await send(s, sendBody(numberId), key);
      return replay.status === 202 && replay.body.results[0].messageId === first.body.results[0].messageId;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId } });
    }
  },
  'idempotency.changed-payload-accepted': async (s) => {
    const key = newKey();
    await send(s, sendBody(primaryNumber(s).numberId), key);
    return (await send(s, sendBody(primaryNumber(s).numberId, { text: 'changed' }), key)).status === 409;
  },
  'idempotency.unsafe-retry-still-queued': (s) =>
    refusedSendNeverReported(s, async (numberId) => {
      const key = newKey();
      await send(s, sendBody(numberId), key);
      return send(s, sendBody(numberId, { externalReference: REFUSED_REFERENCE }), key);
    }),
  'idempotency.keys-scoped-by-sendfrom': async (s) => {
    const key = newKey();
    await send(s, sendBody(primaryNumber(s, 0).numberId), key);
    return (await send(s, sendBody(primaryNumber(s, 1).numberId), key)).status === 409;
  },
  'idempotency.keys-scoped-by-message-type': async (s) => {
    const key = newKey();
    await send(s, sendBody(primaryNumber(s, 0).numberId), key);
    return (await send(s, sendBody(primaryNumber(s, 0).numberId, { messageType: 'MMS', media: [{ url: 'https://example.com/a.png', contentType: 'image/png' }] }), key)).status === 409;
  },
  'idempotency.keys-global': async (s) => {
    const key = newKey();
    await send(s, sendBody(primaryNumber(s).numberId), key);
    return (await send(s, sendBody(s.client('secondary').numbers[0]!.numberId), key, await s.token('secondary'))).status === 202;
  },
  'idempotency.raw-bytes-fingerprint': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId);
    const first = await call(s, 'POST', '/api/core/messages/send', { body: JSON.stringify(body), headers: { 'idempotency-key': key } });
    const retry = await call(s, 'POST', '/api/core/messages/send', { body: JSON.stringify(body, null, 1), headers: { 'idempotency-key': key } });
    return retry.status === 202 && retry.body.results[0].messageId === first.body.results[0].messageId;
  },
  // A plain replay first, then the same payload with other whitespace: a replay too.
  'idempotency.fingerprint-rewritten-on-replay': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId);
    const first = await call(s, 'POST', '/api/core/messages/send', { body: JSON.stringify(body), headers: { 'idempotency-key': key } });
    await call(s, 'POST', '/api/core/messages/send', { body: JSON.stringify(body), headers: { 'idempotency-key': key } });
    const retry = await call(s, 'POST', '/api/core/messages/send', { body: JSON.stringify(body, null, 1), headers: { 'idempotency-key': key } });
    return retry.status === 202 && retry.body.results[0].messageId === first.body.results[0].messageId;
  },
  // An MMS retried with its media item's members in the other order: a replay.
  'idempotency.fingerprint-nested-order-kept': async (s) => {
    const key = newKey();
    const mms = (media: Record<string, string>) => sendBody(primaryNumber(s).numberId, { messageType: 'MMS', media: [media] });
    const first = await send(s, mms({ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }), key);
    const retry = await send(s, mms({ contentType: 'image/png', url: 'https://cdn.example.com/a.png' }), key);
    return first.status === 202 && retry.status === 202 && retry.body.results[0].messageId === first.body.results[0].messageId;
  },
  // A key reused with a changed payload that is also invalid (no externalReference): refused; the original then replays.
  'idempotency.invalid-unsafe-retry-drops-record': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId);
    const first = await send(s, body, key);
    const { externalReference: _, ...invalid } = body;
    await send(s, { ...invalid, text: 'changed' }, key);
    const retry = await send(s, body, key);
    return first.status === 202 && retry.status === 202 && retry.body.results[0].messageId === first.body.results[0].messageId;
  },
  'idempotency.keys-cut-to-64': async (s) => {
    const stem = `${newKey()}-${'k'.repeat(80)}`;
    const first = await send(s, sendBody(primaryNumber(s).numberId), `${stem}A`);
    const second = await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550124'] }), `${stem}B`);
    return first.status === 202 && second.status === 202 && second.body.results[0].messageId !== first.body.results[0].messageId;
  },
  'idempotency.fingerprint-text-collapsed': async (s) => {
    const key = newKey();
    await send(s, sendBody(primaryNumber(s).numberId, { text: 'a b' }), key);
    return (await send(s, sendBody(primaryNumber(s).numberId, { text: 'a  b' }), key)).status === 409;
  },
  'idempotency.fingerprint-without-whitespace': async (s) => {
    const key = newKey();
    await send(s, sendBody(primaryNumber(s).numberId, { text: 'a b' }), key);
    return (await send(s, sendBody(primaryNumber(s).numberId, { text: 'ab' }), key)).status === 409;
  },
  'idempotency.fingerprint-text-nfkc': async (s) => {
    const key = newKey();
    await send(s, sendBody(primaryNumber(s).numberId, { text: 'Caf\u00e9' }), key);
    return (await send(s, sendBody(primaryNumber(s).numberId, { text: 'Cafe\u0301' }), key)).status === 409;
  },
  'idempotency.recipients-fingerprinted-as-a-set': async (s) => {
    const key = newKey();
    await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550123', '+12025550124'] }), key);
    return (await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550124', '+12025550123'] }), key)).status === 409;
  },
  'idempotency.fingerprint-without-message-type': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId);
    expect((await send(s, body, key)).status).toBe(202);
    return (await send(s, { ...body, messageType: 'MMS' }, key)).status !== 202;
  },
  'idempotency.replay-lists-failed-recipients': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId, { to: ['+12025550155'] });
    const first = await send(s, body, key);
    const replay = await send(s, body, key);
    return JSON.stringify(replay.body) === JSON.stringify(first.body);
  },
  'idempotency.fingerprint-absent-text-as-empty': async (s) => {
    const key = newKey();
    const { text: _, ...body } = sendBody(primaryNumber(s).numberId, { messageType: 'MMS', media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }] });
    expect((await send(s, body, key)).status).toBe(202);
    return (await send(s, { ...body, text: '' }, key)).status !== 202;
  },
  'idempotency.fingerprint-media-sorted': async (s) => {
    const key = newKey();
    const media = [{ url: 'https://cdn.example.com/b.png', contentType: 'image/png' }, { url: 'https://cdn.example.com/a.png', contentType: 'image/png' }];
    const body = sendBody(primaryNumber(s).numberId, { messageType: 'MMS', media });
    expect((await send(s, body, key)).status).toBe(202);
    return (await send(s, { ...body, media: [...media].reverse() }, key)).status !== 202;
  },
  'idempotency.fingerprint-media-urls-only': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId, { messageType: 'MMS', media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }] });
    expect((await send(s, body, key)).status).toBe(202);
    return (await send(s, { ...body, media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/jpeg' }] }, key)).status !== 202;
  },
  // Two payloads under one key at once: one of them only is accepted.
  'idempotency.in-flight-lock-per-payload': async (s) => {
    const key = newKey();
    const numberId = primaryNumber(s).numberId;
    // Over a socket, as a client's burst comes: each request is in flight while the others arrive.
    const base = s.app.server.listening ? `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}` : await s.app.listen({ port: 0, host: '127.0.0.1' });
    const token = await s.token();
    const statuses = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const res = await undiciRequest(`${base}/api/core/messages/send`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(sendBody(numberId, { text: i % 2 ? 'a' : 'b' })) });
        await res.body.dump();
        return res.statusCode;
      }),
    );
    return new Set(statuses.flatMap((status, i) => (status === 202 ? [i % 2] : []))).size === 1;
  },
  // A safe retry after the number's delivery override changed: the first messageIds.
  'idempotency.keys-dropped-on-override-change': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId);
    const first = await send(s, body, key);
    await overrideTo(s, 'https://hooks.example.com/changed');
    const retry = await send(s, body, key);
    return JSON.stringify(retry.body.results) === JSON.stringify(first.body.results);
  },
  'idempotency.fingerprint-recipient-set': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId);
    expect((await send(s, body, key)).status).toBe(202);
    return (await send(s, { ...body, to: [...(body.to as string[]), ...(body.to as string[])] }, key)).status !== 202;
  },
  'idempotency.fingerprint-includes-content-type': async (s) => {
    const key = newKey();
    const body = JSON.stringify(sendBody(primaryNumber(s).numberId));
    const first = await call(s, 'POST', '/api/core/messages/send', { body, headers: { 'idempotency-key': key, 'content-type': 'application/json' } });
    const retry = await call(s, 'POST', '/api/core/messages/send', { body, headers: { 'idempotency-key': key, 'content-type': 'application/json; charset=utf-8' } });
    return first.status === 202 && retry.status === 202;
  },
  'idempotency.fingerprint-text-first-segment': async (s) => {
    const key = newKey();
    const text = 'x'.repeat(200);
    await send(s, sendBody(primaryNumber(s).numberId, { text }), key);
    return (await send(s, sendBody(primaryNumber(s).numberId, { text: `${text.slice(0, -1)}y` }), key)).status === 409;
  },
  'idempotency.fingerprint-reference-case-folded': async (s) => {
    const key = newKey();
    await send(s, sendBody(primaryNumber(s).numberId, { externalReference: 'Order-1' }), key);
    return (await send(s, sendBody(primaryNumber(s).numberId, { externalReference: 'ORDER-1' }), key)).status === 409;
  },
  'idempotency.forgotten-after-outcome': async (s) => {
    const receiver = await startReceiver();
    try {
      await overrideTo(s, receiver.url);
      const key = newKey();
      const body = sendBody(primaryNumber(s).numberId);
      const first = await send(s, body, key);
      await receiver.waitFor(1, 2_000).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const retry = await send(s, body, key);
      return retry.body.results[0].messageId === first.body.results[0].messageId;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookDeliveryOverride: null } });
      await receiver.close();
    }
  },
  // A send to a recipient that fails (+1 NPA 555 0150..0199), its FAILED event delivered, then retried: the first messageId.
  'idempotency.forgotten-after-failed-outcome': async (s) =>
    atOverride(s, async (receiver) => {
      const key = newKey();
      const body = sendBody(primaryNumber(s).numberId, { to: ['+12025550150'] });
      const first = await send(s, body, key);
      await receiver.waitFor(1, 2_000).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const retry = await send(s, body, key);
      return retry.body.results[0].messageId === first.body.results[0].messageId;
    }),
  'idempotency.dies-with-token': async (s) => {
    const { clientId, clientSecret } = s.client('brief');
    const first = (await token(s, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret })).body.access_token as string;
    const key = newKey();
    const body = sendBody(s.client('brief').numbers[0]!.numberId);
    const sent = await send(s, body, key, first);
    await call(s, 'POST', '/_control/tokens/expire', { token: s.app.reference.controlToken!, payload: { clientId } });
    const second = (await token(s, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret })).body.access_token as string;
    const retry = await send(s, body, key, second);
    return retry.status === 202 && retry.body.results[0].messageId === sent.body.results[0].messageId;
  },
  // A send with an expired token (401), then the same key and payload with a new token: accepted.
  'idempotency.unauthenticated-refusal-stored': async (s) => {
    const { clientId, clientSecret } = s.client('brief');
    const first = (await token(s, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret })).body.access_token as string;
    await call(s, 'POST', '/_control/tokens/expire', { token: s.app.reference.controlToken!, payload: { clientId } });
    const key = newKey();
    const body = sendBody(s.client('brief').numbers[0]!.numberId);
    const refused = await send(s, body, key, first);
    const second = (await token(s, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret })).body.access_token as string;
    return refused.status === 401 && (await send(s, body, key, second)).status === 202;
  },
  'idempotency.keys-scoped-by-token': async (s) => {
    const key = newKey();
    const first = await send(s, sendBody(primaryNumber(s).numberId), key);
    const fresh = (await token(s, credentials(s))).body.access_token as string;
    const retry = await send(s, sendBody(primaryNumber(s).numberId), key, fresh);
    return retry.status === 202 && retry.body.results[0].messageId === first.body.results[0].messageId;
  },
  'idempotency.keys-case-insensitive': async (s) => {
    const key = `Case-${newKey()}`;
    await send(s, sendBody(primaryNumber(s).numberId), key);
    return (await send(s, sendBody(primaryNumber(s).numberId, { text: 'another operation' }), key.toLowerCase())).status === 202;
  },
  'idempotency.concurrent-duplicates': async (s) => {
    const key = newKey();
    const bearer = await s.token();
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(s, sendBody(primaryNumber(s).numberId), key, bearer)));
    return new Set(answers.filter((a) => a.status === 202).map((a) => a.body.results[0].messageId)).size === 1;
  },
  // The same burst, each send under a fresh token of the client.
  'idempotency.in-flight-lock-per-token': async (s) => {
    const key = newKey();
    const tokens = await Promise.all(Array.from({ length: 4 }, () => s.token()));
    const answers = await Promise.all(tokens.map((bearer) => send(s, sendBody(primaryNumber(s).numberId), key, bearer)));
    return new Set(answers.filter((a) => a.status === 202).map((a) => a.body.results[0].messageId)).size === 1;
  },
  'idempotency.in-flight-conflict': async (s) => {
    const key = newKey();
    const body = sendBody(primaryNumber(s).numberId);
    const answers = await Promise.all([send(s, body, key), send(s, body, key), send(s, body, key)]);
    return answers.every((a) => a.status === 202);
  },
  'idempotency.refusal-held-in-flight': async (s) => {
    const key = newKey();
    const body = { ...sendBody(primaryNumber(s).numberId), to: ['2025550100'] };
    await send(s, body, key);
    return (await send(s, body, key)).status === 400;
  },
  'idempotency.in-flight-invalid': async (s) => {
    const key = newKey();
    const bearer = await s.token();
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(s, sendBody(primaryNumber(s).numberId), key, bearer)));
    return answers.every((a) => a.status === 202 || a.status === 409);
  },

  'errors.spaced-json-refused': async (s) => {
    const key = newKey();
    const body = JSON.stringify(sendBody(primaryNumber(s).numberId), null, 2);
    return (await call(s, 'POST', '/api/core/messages/send', { body, headers: { 'idempotency-key': key } })).status === 202;
  },
  'errors.flat-router-errors': async (s) => typeof (await routerRefusal(s)).body.error === 'object',
  'errors.body-limit-plain-text': async (s) => {
    const res = await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { padding: 'x'.repeat(300_000) } });
    return res.status === 413 && typeof (res.body as { error?: unknown }).error === 'object';
  },
  'errors.wrong-method-bare-405': async (s) => (await call(s, 'GET', '/api/core/messages/send')).body?.error?.code !== undefined,
  'errors.request-id-missing': async (s) => typeof (await routerRefusal(s)).body.requestId === 'string',
  'errors.forbidden-message-empty': async (s) => (await send(s, sendBody('num_0000000000000000000000000000dead'))).body.error.message !== '',
  'errors.grant-description-empty': async (s) => (await token(s, { ...credentials(s), grant_type: 'password' })).body.error_description !== '',
  'errors.body-limit-code-empty': async (s) => {
    const res = await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { body: JSON.stringify({ campaignregId: 'x'.repeat(300 * 1024) }) });
    return res.status === 413 && typeof res.body.error.code === 'string' && res.body.error.code !== '';
  },
  'errors.body-limit-as-invalid-request': async (s) => {
    const res = await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { body: JSON.stringify({ campaignregId: 'x'.repeat(300 * 1024) }) });
    return res.status === 413 && res.body.error.code === 'PAYLOAD_TOO_LARGE';
  },
  'errors.forbidden-as-not-found': async (s) => {
    const res = await send(s, sendBody('num_0000000000000000000000000000dead'));
    return res.status === 403 && res.body.error.code === 'FORBIDDEN';
  },
  'errors.bad-utf8-500': async (s) => {
    const token = await s.token();
    const res = await s.app.inject({ method: 'POST', url: '/api/core/numbers/search', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: Buffer.concat([Buffer.from('{"npa":"202","note":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]) });
    return res.statusCode < 500;
  },
  'errors.no-date-on-errors': async (s) => (await call(s, 'GET', '/api/core/whoami', { token: null })).headers.date !== undefined,
  'errors.message-array-for-invalid-recipients': async (s) => {
    const res = await send(s, { ...sendBody(primaryNumber(s).numberId), to: ['12025550100', '+1202555O100'] });
    return res.status === 400 && typeof res.body.error.message === 'string';
  },
  'errors.nul-text-500': async (s) => (await send(s, { ...sendBody(primaryNumber(s).numberId), text: 'nul \u0000 here' })).status < 500,
  'errors.long-key-500': async (s) => (await send(s, sendBody(primaryNumber(s).numberId), `${'k'.repeat(249)}L`)).status < 500,
  'errors.zip-read-as-number-500': async (s) => (await call(s, 'POST', '/api/core/numbers/search', { payload: { zipCode: '20001-1234' } })).status < 500,
  'errors.allow-omits-head': async (s) => {
    const res = await s.app.inject({ method: 'DELETE', url: '/api/core/whoami', headers: { authorization: `Bearer ${await s.token()}` } });
    return res.statusCode !== 405 || /\bHEAD\b/.test(String(res.headers.allow));
  },
  // An Accept that admits JSON by its subtype wildcard: answered as application/json is.
  'errors.accept-partial-wildcard-406': async (s) => (await call(s, 'GET', '/api/core/numbers', { headers: { accept: 'application/*' } })).status === 200,
  'errors.405-without-allow': async (s) => {
    const res = await call(s, 'GET', '/api/core/messages/send');
    return res.status !== 405 || res.headers.allow !== undefined;
  },
  // POST on the numbers list's path: not a 405 whose Allow names POST.
  'errors.allow-names-refused-method': async (s) => {
    const res = await call(s, 'POST', '/api/core/numbers', { payload: {} });
    return !(res.status === 405 && /\bPOST\b/i.test(String(res.headers.allow ?? '')));
  },
  'errors.head-served-on-token-path': async (s) => {
    const [get, head] = await Promise.all((['GET', 'HEAD'] as const).map((method) => s.app.inject({ method, url: '/api/auth/token' })));
    return get!.statusCode === head!.statusCode;
  },
  'errors.head-without-content-type': async (s) => {
    const head = await headWhoami(s, undefined);
    const get = await s.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `Bearer ${await s.token('primary')}` } });
    return head.status === 200 && head.headers['content-type'] === get.headers['content-type'];
  },
  'errors.head-content-length-zero': async (s) => {
    const head = await headWhoami(s, undefined);
    const get = await s.app.inject({ method: 'GET', url: '/api/core/whoami', headers: { authorization: `Bearer ${await s.token('primary')}` } });
    return head.status === 200 && (head.headers['content-length'] === undefined || Number(head.headers['content-length']) === Buffer.byteLength(get.body));
  },
  // Over a real connection: the bytes after the head of HEAD's answer.
  'errors.head-sends-content': async (s) => {
    if (!s.app.server.listening) await s.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = s.app.server.address() as AddressInfo;
    const raw = await rawExchange(`http://127.0.0.1:${port}`, 'HEAD', '/api/core/whoami', { authorization: `Bearer ${await s.token('primary')}` });
    return raw.status === 200 && raw.after.length === 0;
  },
  'errors.trailing-slash-plain-404': async (s) => {
    const res = await call(s, 'GET', '/api/core/whoami/');
    return res.status === 200 || (typeof res.body === 'object' && res.body !== null && 'requestId' in res.body);
  },
  'errors.head-refused': async (s) => {
    const token = await s.token();
    return (await s.app.inject({ method: 'HEAD', url: '/api/core/numbers', headers: { authorization: `Bearer ${token}` } })).statusCode === 200;
  },
  'errors.malformed-json-500': async (s) => (await call(s, 'POST', '/api/core/numbers/search', { body: '{"npa": "202"' })).status === 400,
  'errors.stack-trace-on-mistyped-recipient': async (s) => !/\.ts:\d+:\d+/.test(JSON.stringify((await send(s, sendBody(primaryNumber(s).numberId, { to: [12025550100] }))).body)),
  'errors.request-id-per-route': async (s) => {
    const [a, b] = [await call(s, 'GET', '/api/core/numbers', { token: null }), await call(s, 'GET', '/api/core/numbers', { token: null })];
    return a.body.requestId !== b.body.requestId;
  },
  'errors.media-type-case-refused': async (s) => {
    const capitals = { 'content-type': 'Application/JSON' };
    const search = await call(s, 'POST', '/api/core/numbers/search', { body: '{"npa":"202"}', headers: capitals });
    return search.status === 200 && (await token(s, credentials(s), capitals)).status === 200;
  },
  'errors.charset-value-case-refused': async (s) => (await call(s, 'POST', '/api/core/messages/send', { body: JSON.stringify(sendBody(primaryNumber(s).numberId)), headers: { 'idempotency-key': newKey(), 'content-type': 'application/json; charset=UTF-8' } })).status === 202,
  'errors.ows-before-semicolon-refused': async (s) => (await call(s, 'POST', '/api/core/messages/send', { body: JSON.stringify(sendBody(primaryNumber(s).numberId)), headers: { 'idempotency-key': newKey(), 'content-type': 'application/json ; charset=utf-8' } })).status === 202,
  'errors.json-charset-refused': async (s) => {
    const charset = { 'content-type': 'application/json; charset=utf-8' };
    const search = await call(s, 'POST', '/api/core/numbers/search', { body: '{"npa":"202"}', headers: charset });
    return search.status === 200 && (await token(s, credentials(s), charset)).status === 200;
  },
  'errors.text-plain-content-type': async (s) => String((await call(s, 'GET', '/api/core/numbers')).headers['content-type']).startsWith('application/json'),

  'token.form-credentials-refused': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    return (await token(s, new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString())).status === 200;
  },
  'token.basic-refused': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    return (await token(s, 'grant_type=client_credentials', { authorization: basic })).status === 200;
  },
  'token.form-grant-any-case': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    return (await token(s, new URLSearchParams({ grant_type: 'CLIENT_CREDENTIALS', client_id: clientId, client_secret: clientSecret }).toString())).status === 400;
  },
  'token.basic-with-own-client-id-refused': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    return (await token(s, `grant_type=client_credentials&client_id=${encodeURIComponent(clientId)}`, { authorization: basic })).status === 200;
  },
  'token.array-parameter-unwrapped': async (s) => (await token(s, { ...credentials(s), client_secret: [credentials(s).client_secret] })).status === 400,
  'token.core-error-shape': async (s) => typeof (await token(s, { grant_type: 'client_credentials' })).body.error === 'string',
  'token.other-method-core-wrapper': async (s) => typeof (await call(s, 'GET', '/api/auth/token', { token: null })).body?.error === 'string',
  'token.basic-challenge-without-realm': async (s) => {
    const { clientId } = s.client('primary');
    const res = await token(s, 'grant_type=client_credentials', { authorization: `Basic ${Buffer.from(`${clientId}:wrong`).toString('base64')}` });
    return res.status === 401 && /^Basic\s+realm="/i.test(String(res.headers['www-authenticate']));
  },
  'token.basic-unknown-client-400': async (s) => {
    const res = await call(s, 'POST', '/api/auth/token', { token: null, headers: { authorization: `Basic ${Buffer.from('nobody:x').toString('base64')}` }, payload: { grant_type: 'client_credentials' } });
    return res.status === 401;
  },
  'token.unsupported-grant-wrong-code': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    return (await token(s, { grant_type: 'password', client_id: clientId, client_secret: clientSecret })).body.error === 'unsupported_grant_type';
  },
  'token.bearer-token-required': async (s) => (await token(s, credentials(s))).status === 200,
  'token.expires-in-missing': async (s) => Number.isInteger((await token(s, credentials(s))).body.expires_in),
  // The demo's brief client: its tokens live 2 s.
  'token.expires-in-milliseconds': async (s) => {
    const { clientId, clientSecret } = s.client('brief');
    return (await token(s, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret })).body.expires_in === 5;
  },
  'token.json-credentials-refused': async (s) => typeof (await token(s, credentials(s))).body.access_token === 'string',
  'token.failed-auth-wrong-code': async (s) => (await token(s, { ...credentials(s), client_secret: 'not-the-secret' })).body.error === 'invalid_client',
  'token.missing-credential-wrong-code': async (s) => (await token(s, { grant_type: 'client_credentials', client_id: s.client('primary').clientId })).body.error === 'invalid_request',
  'token.grant-substring-accepted': async (s) => (await token(s, { ...credentials(s), grant_type: 'client_credentials_v2' })).body.error === 'unsupported_grant_type',
  'token.mistyped-secret-invalid-client': async (s) => {
    const res = await token(s, { ...credentials(s), client_secret: 202 });
    return res.status === 400 && res.body.error === 'invalid_request';
  },
  'token.grant-type-case-insensitive': async (s) => (await token(s, { ...credentials(s), grant_type: 'CLIENT_CREDENTIALS' })).body.error === 'unsupported_grant_type',
  'token.no-store-missing-form': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const res = await token(s, new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString());
    return res.status === 200 && /no-store/.test(String(res.headers['cache-control']));
  },
  'token.basic-lifetime-halved': async (s) => {
    const { clientId, clientSecret } = s.client('brief');
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    const issued = await token(s, 'grant_type=client_credentials', { authorization: basic });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    return (await call(s, 'GET', '/api/core/whoami', { token: issued.body.access_token })).status === 200;
  },
  'token.basic-reports-default-lifetime': async (s) => {
    const { clientId, clientSecret } = s.client('brief');
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    const issued = await token(s, 'grant_type=client_credentials', { authorization: basic });
    return issued.body.expires_in !== 3600;
  },
  'token.reissued-with-full-lifetime': async (s) => {
    const { clientId, clientSecret } = s.client('brief');
    const first = await token(s, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
    const second = await token(s, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
    return first.body.access_token !== second.body.access_token;
  },
  'token.json-array-unwrapped': async (s) => (await call(s, 'POST', '/api/auth/token', { token: null, body: JSON.stringify([credentials(s)]) })).status === 400,
  'token.basic-double-padding-refused': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    // "%64" for the first "d" of demo-primary: two characters more, and the base64 ends in "==".
    const id = `%${clientId.charCodeAt(0).toString(16)}${encodeURIComponent(clientId.slice(1))}`;
    const authorization = `Basic ${Buffer.from(`${id}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    if (!authorization.endsWith('==')) throw new Error(`the probe's credentials must end in "==": ${authorization}`);
    return (await token(s, 'grant_type=client_credentials', { authorization })).status === 200;
  },
  'ctx.basic-token-raw-client-id': async (s) => {
    const { clientId, clientSecret } = s.client('special');
    const authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    const basic = (await token(s, 'grant_type=client_credentials', { authorization })).body.access_token as string;
    const viaBasic = (await call(s, 'GET', '/api/core/whoami', { token: basic })).body;
    const viaOther = (await call(s, 'GET', '/api/core/whoami', { token: await s.token('special') })).body;
    return viaBasic.apiClientId === viaOther.apiClientId;
  },
  'token.basic-client-id-any-case': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId.toUpperCase())}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    return (await token(s, 'grant_type=client_credentials', { authorization })).status === 401;
  },
  'token.missing-grant-unsupported': async (s) => (await token(s, { client_id: s.client('primary').clientId, client_secret: s.client('primary').clientSecret })).body.error === 'invalid_request',
  'token.basic-scheme-as-written': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const authorization = `basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    return (await token(s, 'grant_type=client_credentials', { authorization })).status === 200;
  },
  'token.basic-scheme-anywhere': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const authorization = `NotBasic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    return (await token(s, 'grant_type=client_credentials', { authorization })).status !== 200;
  },
  'token.form-plus-decoded-late': async (s) => {
    const { clientId, clientSecret } = s.client('special');
    return (await token(s, new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString())).status === 200;
  },
  'token.json-any-known-secret': async (s) => {
    const other = s.client('secondary').clientSecret;
    return (await token(s, { grant_type: 'client_credentials', client_id: s.client('primary').clientId, client_secret: other })).status === 401;
  },
  'token.any-known-secret': async (s) => (await token(s, { grant_type: 'client_credentials', client_id: s.client('primary').clientId, client_secret: s.client('secondary').clientSecret })).body.error === 'invalid_client',
  'token.undecodable-basic-ignored': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    return (await token(s, new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString(), { authorization: 'Basic ***' })).status !== 200;
  },
  'token.misencoded-basic-ignored': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    return (await token(s, new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString(), { authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:%zz`).toString('base64')}` })).status !== 200;
  },
  'token.empty-param-second-method': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    return (await token(s, 'grant_type=client_credentials&client_id=', { authorization: basic })).status === 200;
  },
  'token.form-secret-trimmed': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    return (await token(s, new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: ` ${clientSecret} ` }).toString())).body.error === 'invalid_client';
  },
  'token.json-client-id-trimmed': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    return (await token(s, { grant_type: 'client_credentials', client_id: ` ${clientId} `, client_secret: clientSecret })).body.error === 'invalid_client';
  },
  'token.basic-subject-from-body': async (s) => {
    const primary = s.client('primary');
    const authorization = `Basic ${Buffer.from(`${encodeURIComponent(primary.clientId)}:${encodeURIComponent(primary.clientSecret)}`).toString('base64')}`;
    const res = await token(s, new URLSearchParams({ grant_type: 'client_credentials', client_id: s.client('secondary').clientId }).toString(), { authorization });
    if (typeof res.body.access_token !== 'string') return true;
    return (await call(s, 'GET', '/api/core/whoami', { token: res.body.access_token })).body.apiClientId !== s.client('secondary').apiClientId;
  },
  'token.unsupported-type-plain': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const res = await call(s, 'POST', '/api/auth/token', { token: null, headers: { 'content-type': 'text/plain' }, body: `grant_type=client_credentials&client_id=${clientId}&client_secret=${clientSecret}` });
    return res.status < 400 || typeof res.body?.error === 'string';
  },
  'token.query-credentials-read': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const res = await call(s, 'POST', `/api/auth/token?client_id=${encodeURIComponent(clientId)}&client_secret=${encodeURIComponent(clientSecret)}`, { token: null, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    return res.body?.access_token === undefined;
  },
  'token.basic-grant-error-401': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    return (await token(s, 'grant_type=password', { authorization })).status === 400;
  },
  'token.typed-unknown-member-500': async (s) => (await token(s, { ...credentials(s), extra: { a: 1 } })).status === 200,
  'token.grant-echoed-unescaped': async (s) => typeof (await token(s, { ...credentials(s), grant_type: 'pass"word' })).body === 'object',
  'token.secret-prefix-accepted': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(`${clientSecret}x`)}`).toString('base64')}`;
    const [body, form, header] = [
      await token(s, { ...credentials(s), client_secret: `${clientSecret}x` }),
      await token(s, new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: `${clientSecret}x` }).toString()),
      await token(s, 'grant_type=client_credentials', { authorization: basic }),
    ];
    return [body, form, header].every((r) => r.body.error === 'invalid_client');
  },
  'token.invalid-client-status-200': async (s) => (await token(s, { ...credentials(s), client_secret: 'not-the-secret' })).status === 401,

  'auth.malformed-bearer-500': async (s) => (await call(s, 'GET', '/api/core/whoami', { token: null, headers: { authorization: 'Bearer two tokens' } })).status === 401,
  'auth.bearer-one-space-only': async (s) => (await call(s, 'GET', '/api/core/whoami', { token: null, headers: { authorization: `Bearer  ${await s.token()}` } })).status === 200,
  'auth.dotted-token-500': async (s) => (await call(s, 'GET', '/api/core/whoami', { token: null, headers: { authorization: 'Bearer a.b.c' } })).status === 401,
  'auth.expired-token-accepted': async (s) => {
    const bearer = await s.token();
    await call(s, 'POST', '/_control/tokens/expire', { token: s.app.reference.controlToken!, payload: { clientId: s.client('primary').clientId } });
    return (await call(s, 'GET', '/api/core/whoami', { token: bearer })).status === 401;
  },
  // An update without a token: refused, and the number unchanged.
  'auth.refused-update-applied': async (s) => {
    const own = primaryNumber(s);
    const res = await call(s, 'PATCH', `/api/core/numbers/${own.numberId}`, { token: null, payload: { smsEnabled: !own.smsEnabled } });
    const now = (await listed(s)).find((n) => n.numberId === own.numberId);
    if (now?.smsEnabled !== own.smsEnabled) await call(s, 'PATCH', `/api/core/numbers/${own.numberId}`, { payload: { smsEnabled: own.smsEnabled } });
    return res.status === 401 && now?.smsEnabled === own.smsEnabled;
  },
  'token.json-success-201': async (s) => (await call(s, 'POST', '/api/auth/token', { token: null, payload: { grant_type: 'client_credentials', client_id: s.client('primary').clientId, client_secret: s.client('primary').clientSecret } })).status === 200,
  'auth.basic-tokens-outlive-expires-in': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const issued = await token(s, 'grant_type=client_credentials', { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` });
    await call(s, 'POST', '/_control/tokens/expire', { token: s.app.reference.controlToken!, payload: { clientId } });
    return (await call(s, 'GET', '/api/core/whoami', { token: issued.body.access_token })).status === 401;
  },
  // A token used a moment before the control plane expires it: still refused after.
  'auth.expiry-slides-with-use': async (s) => {
    const bearer = await s.token();
    await call(s, 'GET', '/api/core/whoami', { token: bearer });
    await call(s, 'POST', '/_control/tokens/expire', { token: s.app.reference.controlToken!, payload: { clientId: s.client('primary').clientId } });
    return (await call(s, 'GET', '/api/core/whoami', { token: bearer })).status === 401;
  },
  'auth.missing-token-accepted-on-numbers': async (s) => (await call(s, 'GET', '/api/core/numbers', { token: null })).status === 401,
  // The primary's token as the access_token query parameter, no Authorization header: 401.
  'auth.query-token-accepted': async (s) => (await call(s, 'GET', `/api/core/whoami?access_token=${encodeURIComponent(await s.token())}`, { token: null })).status === 401,
  // A token of the primary, then a token request for the primary with a wrong secret: the token still works.
  'auth.failed-token-request-revokes': async (s) => {
    const token = await s.token();
    await call(s, 'POST', '/api/auth/token', { token: null, payload: { grant_type: 'client_credentials', client_id: s.client('primary').clientId, client_secret: 'wrong' } });
    return (await call(s, 'GET', '/api/core/whoami', { token })).status === 200;
  },
  'auth.replay-without-token': async (s) => {
    const key = newKey();
    const first = await send(s, sendBody(primaryNumber(s).numberId), key);
    const replay = await call(s, 'POST', '/api/core/messages/send', { token: null, payload: sendBody(primaryNumber(s).numberId), headers: { 'idempotency-key': key } });
    return first.status === 202 && replay.status === 401;
  },
  'auth.defect-before-token-unchallenged': async (s) => {
    const res = await call(s, 'POST', '/api/core/messages/send', { token: null, payload: sendBody(primaryNumber(s).numberId) });
    return res.status === 401 || res.headers['www-authenticate'] !== undefined;
  },
  'auth.unknown-token-forbidden': async (s) => (await call(s, 'GET', '/api/core/whoami', { token: 'never-issued-token-0123456789' })).status === 401,
  'auth.token-case-insensitive': async (s) => {
    const issued = await s.token();
    const swapped = issued.replace(/[a-zA-Z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
    return (await call(s, 'GET', '/api/core/whoami', { token: swapped })).status === 401 && (await call(s, 'GET', '/api/core/whoami', { token: issued })).status === 200;
  },
  'auth.token-acts-for-latest-client': async (s) => {
    const mine = (await token(s, credentials(s))).body.access_token as string;
    const other = s.client('secondary');
    await token(s, { grant_type: 'client_credentials', client_id: other.clientId, client_secret: other.clientSecret });
    return (await call(s, 'GET', '/api/core/whoami', { token: mine })).body.apiClientId === s.client('primary').apiClientId;
  },
  'auth.head-unauthenticated': async (s) => (await headWhoami(s, null)).status === 401,
  'auth.bare-bearer-challenge': async (s) => /^Bearer\s+\S+=/.test(String((await call(s, 'GET', '/api/core/whoami', { token: null })).headers['www-authenticate'])),
  'auth.expired-challenge-unescaped-quote': async (s) => {
    const bearer = await s.token();
    await call(s, 'POST', '/_control/tokens/expire', { token: s.app.reference.controlToken!, payload: { clientId: s.client('primary').clientId } });
    const answer = await call(s, 'GET', '/api/core/whoami', { token: bearer });
    return answer.status === 401 && malformedParts(String(answer.headers['www-authenticate'])).length === 0;
  },
  'auth.scheme-case-drops-error-code': async (s) =>
    /error="invalid_token"/.test(String((await call(s, 'GET', '/api/core/whoami', { token: null, headers: { authorization: 'bearer never-issued-token-0123456789' } })).headers['www-authenticate'])),
  'auth.malformed-bearer-no-error-code': async (s) =>
    /error="invalid_(token|request)"/.test(String((await call(s, 'GET', '/api/core/whoami', { token: null, headers: { authorization: 'Bearer two tokens' } })).headers['www-authenticate'])),
  'auth.token-prefix-compared': async (s) => {
    const issued = await s.token();
    const last = issued.at(-1) === 'A' ? 'B' : 'A';
    return (await call(s, 'GET', '/api/core/whoami', { token: `${issued.slice(0, -1)}${last}` })).status === 401;
  },
  // a token obtained 3.5 s before the client's next one still works
  'auth.token-use-quota': async (s) => {
    const bearer = (await token(s, credentials(s))).body.access_token as string;
    for (let i = 0; i < 150; i++) await call(s, 'GET', '/api/core/whoami', { token: bearer });
    return (await call(s, 'GET', '/api/core/whoami', { token: bearer })).status === 200;
  },
  'auth.older-tokens-revoked': async (s) => {
    const first = (await token(s, credentials(s))).body.access_token as string;
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    await token(s, credentials(s));
    return (await call(s, 'GET', '/api/core/whoami', { token: first })).status === 200;
  },
  // A token, another one right after it, and the first presented 5.5 s later: still within its expires_in.
  'auth.renewal-grace-5s': async (s) => {
    const first = (await token(s, credentials(s))).body.access_token as string;
    await token(s, credentials(s));
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    return (await call(s, 'GET', '/api/core/whoami', { token: first })).status === 200;
  },
  'auth.token-suffix-ignored': async (s) => {
    const issued = (await token(s, credentials(s))).body.access_token as string;
    return (await call(s, 'GET', '/api/core/whoami', { token: `${issued}A` })).status === 401;
  },
  // expired and refused on whoami first: the send route must refuse it too, as expired
  'auth.expired-accepted-by-send': async (s) => {
    const fresh = (await token(s, credentials(s))).body.access_token as string;
    const unseen = (await token(s, credentials(s))).body.access_token as string;
    await call(s, 'POST', '/_control/tokens/expire', { token: s.app.reference.controlToken!, payload: { clientId: s.client('primary').clientId } });
    const refused = (await call(s, 'GET', '/api/core/whoami', { token: fresh })).status === 401;
    return refused && (await call(s, 'POST', '/api/core/messages/send', { token: unseen, payload: sendBody(primaryNumber(s).numberId), headers: { 'idempotency-key': randomUUID() } })).status === 401;
  },
  'auth.update-refuses-tokens': async (s) => {
    const { numberId, smsEnabled } = primaryNumber(s);
    return (await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled } })).status === 200;
  },

  'numbers.list-cut-at-two': async (s) => (await listed(s)).length === s.client('primary').numbers.length,
  'whoami.field-missing': async (s) => 'apiClientName' in (await call(s, 'GET', '/api/core/whoami')).body,
  'whoami.field-mistyped': async (s) => Array.isArray((await call(s, 'GET', '/api/core/whoami')).body.capabilities),
  'ctx.same-id-for-every-client': async (s) =>
    (await call(s, 'GET', '/api/core/whoami')).body.apiClientId !== (await call(s, 'GET', '/api/core/whoami', { token: await s.token('secondary') })).body.apiClientId,
  'ctx.client-race': async (s) => {
    const tokens = { primary: await s.token(), secondary: await s.token('secondary') };
    const roles = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? 'primary' : 'secondary') as 'primary' | 'secondary');
    const answers = await Promise.all(roles.map(async (role) => ({ role, id: (await call(s, 'GET', '/api/core/whoami', { token: tokens[role] })).body.apiClientId })));
    return answers.every(({ role, id }) => id === s.client(role).apiClientId);
  },
  'ctx.delivery-flag-always-true': async (s) => {
    await clientWebhook(s, null);
    return (await call(s, 'GET', '/api/core/whoami')).body.deliveryWebhookConfigured === false;
  },
  'ctx.override-counts-as-client-webhook': async (s) => {
    const receiver = await startReceiver();
    try {
      await clientWebhook(s, null);
      await overrideTo(s, receiver.url);
      return (await call(s, 'GET', '/api/core/whoami')).body.deliveryWebhookConfigured === false;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookDeliveryOverride: null } });
      await receiver.close();
    }
  },
  'ctx.inbound-override-counts-as-client-webhook': async (s) => {
    const receiver = await startReceiver();
    try {
      await call(s, 'PUT', `/_control/clients/${s.client('primary').clientId}/webhooks`, { token: s.app.reference.controlToken!, payload: { inbound: null } });
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookInboundOverride: receiver.url } });
      return (await call(s, 'GET', '/api/core/whoami')).body.inboundWebhookConfigured === false;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookInboundOverride: null } });
      await receiver.close();
    }
  },
  'ctx.cleared-override-clears-client-webhook': async (s) => {
    try {
      await call(s, 'PUT', `/_control/clients/${s.client('primary').clientId}/webhooks`, { token: s.app.reference.controlToken!, payload: { inbound: 'http://127.0.0.1:9/client-inbound' } });
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookInboundOverride: null } });
      return (await call(s, 'GET', '/api/core/whoami')).body.inboundWebhookConfigured === true;
    } finally {
      await call(s, 'PUT', `/_control/clients/${s.client('primary').clientId}/webhooks`, { token: s.app.reference.controlToken!, payload: { inbound: null } });
    }
  },
  'ctx.count-drops-numbers-with-override': async (s) => {
    const { numberId } = primaryNumber(s);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookDeliveryOverride: 'https://hooks.example.com/count' } });
    try {
      return (await call(s, 'GET', '/api/core/whoami')).body.assignedNumbers.total === (await listed(s)).length;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookDeliveryOverride: null } });
    }
  },
  'ctx.counts-every-number-sms-enabled': async (s) => {
    const { numberId } = primaryNumber(s);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: false } });
    try {
      const { smsEnabled, total } = (await call(s, 'GET', '/api/core/whoami')).body.assignedNumbers;
      return smsEnabled < total;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: true } });
    }
  },
  'ctx.counts-every-client-number': async (s) => {
    const listed = (await call(s, 'GET', '/api/core/numbers')).body.numbers.length;
    return (await call(s, 'GET', '/api/core/whoami')).body.assignedNumbers.total === listed;
  },
  'ctx.counts-enabled-numbers-only': async (s) => {
    const { numberId, smsEnabled, mmsEnabled } = primaryNumber(s);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: false, mmsEnabled: false } });
    try {
      const listed = (await call(s, 'GET', '/api/core/numbers')).body.numbers.length;
      return (await call(s, 'GET', '/api/core/whoami')).body.assignedNumbers.total === listed;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled, mmsEnabled } });
    }
  },
  // The special client has SMS only.
  'ctx.search-ignores-capability': async (s) => (await call(s, 'POST', '/api/core/numbers/search', { token: await s.token('special'), payload: { npa: '202' } })).status === 403,
  'ctx.suspended-client-lists-numbers': async (s) => {
    const bearer = await s.token('secondary');
    return whileSuspended(s, async () => (await call(s, 'GET', '/api/core/numbers', { token: bearer })).status === 403);
  },
  'ctx.suspended-client-invalid-client': async (s) => {
    const { clientId, clientSecret } = s.client('secondary');
    return whileSuspended(s, async () => (await token(s, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret })).body.error === 'unauthorized_client');
  },
  'ctx.webhook-flags-swapped': async (s) => {
    const receiver = await startReceiver();
    try {
      await clientWebhook(s, receiver.url);
      const context = (await call(s, 'GET', '/api/core/whoami')).body;
      return context.deliveryWebhookConfigured === true && context.inboundWebhookConfigured === false;
    } finally {
      await clientWebhook(s, null);
      await receiver.close();
    }
  },

  'numbers.send-writes-back-seeded-inbound-target': async (s) => {
    const { numberId } = primaryNumber(s);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: 'https://hooks.example.com/inbound' } });
    await send(s, sendBody(numberId));
    const after = (await listed(s)).find((n) => n.numberId === numberId)!;
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: null } });
    return after.webhookInboundOverride === 'https://hooks.example.com/inbound';
  },
  // A send to another of the client's numbers, whose SMS is off: it stays off.
  'numbers.send-enables-recipient-sms': async (s) => {
    const recipient = primaryNumber(s, 1);
    await call(s, 'PATCH', `/api/core/numbers/${recipient.numberId}`, { payload: { smsEnabled: false } });
    try {
      await send(s, sendBody(primaryNumber(s).numberId, { to: [recipient.phoneNumber] }));
      const listed = (await call(s, 'GET', '/api/core/numbers')).body.numbers.find((n: { numberId: string }) => n.numberId === recipient.numberId);
      return listed.smsEnabled === false;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${recipient.numberId}`, { payload: { smsEnabled: recipient.smsEnabled } });
    }
  },
  // A callback answered 410 at the number's override: the override stays as set.
  'numbers.gone-clears-delivery-override': async (s) => {
    const receiver = await startReceiver(() => ({ status: 410 }));
    try {
      await overrideTo(s, receiver.url);
      await send(s, sendBody(primaryNumber(s).numberId));
      await receiver.waitFor(1, 5_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const listed = (await call(s, 'GET', '/api/core/numbers')).body.numbers.find((n: { numberId: string }) => n.numberId === primaryNumber(s).numberId);
      return listed.webhookDeliveryOverride === receiver.url;
    } finally {
      await receiver.close();
    }
  },
  'numbers.send-normalises-campaign': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: 'cmp-lower' } });
    try {
      await send(s, sendBody(numberId));
      const listed = (await call(s, 'GET', '/api/core/numbers')).body.numbers.find((n: { numberId: string }) => n.numberId === numberId);
      return listed.campaignregId === 'cmp-lower';
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId } });
    }
  },
  'numbers.list-leaks-other-clients': async (s) => {
    const theirs = new Set(s.client('secondary').numbers.map((n) => n.numberId));
    return !(await call(s, 'GET', '/api/core/numbers')).body.numbers.some((n: { numberId: string }) => theirs.has(n.numberId));
  },
  'numbers.list-latin1-body': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s);
    try {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: 'CR-é' } });
      const listed = await s.app.inject({ method: 'GET', url: '/api/core/numbers', headers: { authorization: `Bearer ${await s.token()}` } });
      return isUtf8(listed.rawPayload) && listed.body.includes('CR-é');
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId } });
    }
  },
  'numbers.campaign-digits-as-number': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s);
    try {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: '123456' } });
      return (await listed(s)).find((n) => n.numberId === numberId)?.campaignregId === '123456';
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId } });
    }
  },
  'numbers.client-race': async (s) => {
    const tokens = { primary: await s.token(), secondary: await s.token('secondary') };
    const roles = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? 'primary' : 'secondary') as 'primary' | 'secondary');
    const answers = await Promise.all(roles.map(async (role) => ({ role, ids: (await call(s, 'GET', '/api/core/numbers', { token: tokens[role] })).body.numbers.map((n: { numberId: string }) => n.numberId) })));
    return answers.every(({ role, ids }) => ids.every((id: string) => s.client(role).numbers.some((n) => n.numberId === id)));
  },
  'numbers.id-missing-when-unregistered': async (s) => (await listed(s)).every((n) => typeof n.numberId === 'string'),
  'numbers.sms-only-number-refused': async (s) => (await send(s, sendBody(primaryNumber(s, 1).numberId))).status === 202,
  'numbers.e164-number-ids': async (s) => (await listed(s)).every((n) => !/^\+?[1-9]\d{1,14}$/.test(String(n.numberId))),
  'numbers.campaign-field-misspelt': async (s) => (await listed(s)).every((n) => !('campaignRegId' in n)),

  'update.campaign-stored-upper-case': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s);
    try {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: 'cmp-lower' } });
      const listed = (await call(s, 'GET', '/api/core/numbers')).body.numbers.find((n: { numberId: string }) => n.numberId === numberId);
      return listed.campaignregId === 'cmp-lower';
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId } });
    }
  },
  'update.trailing-slash-skips-owner': async (s) => {
    const theirs = s.client('secondary').numbers[0]!;
    await call(s, 'PATCH', `/api/core/numbers/${theirs.numberId}/`, { payload: { smsEnabled: !theirs.smsEnabled } });
    const listed = (await call(s, 'GET', '/api/core/numbers', { token: await s.token('secondary') })).body.numbers.find((n: { numberId: string }) => n.numberId === theirs.numberId);
    await call(s, 'PATCH', `/api/core/numbers/${theirs.numberId}`, { token: await s.token('secondary'), payload: { smsEnabled: theirs.smsEnabled } });
    return listed.smsEnabled === theirs.smsEnabled;
  },
  'update.flags-not-persisted': async (s) => {
    const { numberId, mmsEnabled } = primaryNumber(s, 1);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { mmsEnabled: !mmsEnabled } });
    const listed = (await call(s, 'GET', '/api/core/numbers')).body.numbers.find((n: { numberId: string }) => n.numberId === numberId);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { mmsEnabled } });
    return listed.mmsEnabled === !mmsEnabled;
  },
  'update.foreign-number-allowed': async (s) => {
    const foreign = s.client('secondary').numbers[0]!;
    const res = await call(s, 'PATCH', `/api/core/numbers/${foreign.numberId}`, { payload: { smsEnabled: !foreign.smsEnabled } });
    const listed = (await call(s, 'GET', '/api/core/numbers', { token: await s.token('secondary') })).body.numbers.find((n: { numberId: string }) => n.numberId === foreign.numberId);
    await call(s, 'PATCH', `/api/core/numbers/${foreign.numberId}`, { token: await s.token('secondary'), payload: { smsEnabled: foreign.smsEnabled } });
    return res.status === 404 && listed.smsEnabled === foreign.smsEnabled;
  },
  // Under a token the primary client obtained with HTTP Basic: the secondary client's number is refused.
  'update.basic-token-skips-ownership': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const basic = (await token(s, 'grant_type=client_credentials', { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` })).body.access_token as string;
    const foreign = s.client('secondary').numbers[0]!;
    const res = await call(s, 'PATCH', `/api/core/numbers/${foreign.numberId}`, { token: basic, payload: { smsEnabled: !foreign.smsEnabled } });
    if (res.status === 200) await call(s, 'PATCH', `/api/core/numbers/${foreign.numberId}`, { token: await s.token('secondary'), payload: { smsEnabled: foreign.smsEnabled } });
    return res.status === 404;
  },
  // An override set, then cleared with null beside a campaignregId: the list shows null.
  'update.null-delivery-override-dropped-beside-campaign': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s);
    await overrideTo(s, 'https://hooks.example.com/before');
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId, webhookDeliveryOverride: null } });
    return listed(s).then((numbers) => numbers.find((n) => n.numberId === numberId)?.webhookDeliveryOverride === null);
  },
  'update.percent-encoded-foreign-allowed': async (s) => {
    const foreign = s.client('secondary').numbers[0]!;
    const spelt = `%${foreign.numberId.charCodeAt(0).toString(16).toUpperCase()}${foreign.numberId.slice(1)}`;
    const res = await call(s, 'PATCH', `/api/core/numbers/${spelt}`, { payload: { smsEnabled: !foreign.smsEnabled } });
    const listed = (await call(s, 'GET', '/api/core/numbers', { token: await s.token('secondary') })).body.numbers.find((n: { numberId: string }) => n.numberId === foreign.numberId);
    await call(s, 'PATCH', `/api/core/numbers/${foreign.numberId}`, { token: await s.token('secondary'), payload: { smsEnabled: foreign.smsEnabled } });
    return res.status === 404 && listed.smsEnabled === foreign.smsEnabled;
  },
  'update.second-flag-dropped': async (s) => {
    const { numberId, smsEnabled, mmsEnabled } = primaryNumber(s, 1);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: !smsEnabled, mmsEnabled: !mmsEnabled } });
    const listed = (await call(s, 'GET', '/api/core/numbers')).body.numbers.find((n: { numberId: string }) => n.numberId === numberId);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled, mmsEnabled } });
    return listed.smsEnabled === !smsEnabled && listed.mmsEnabled === !mmsEnabled;
  },
  'update.foreign-number-by-other-case': async (s) => {
    const theirs = s.client('secondary').numbers[0]!.numberId;
    const swapped = theirs.replace(/[a-zA-Z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
    return (await call(s, 'PATCH', `/api/core/numbers/${swapped}`, { payload: { smsEnabled: false } })).status >= 400;
  },
  'update.foreign-number-by-phone': async (s) => {
    const foreign = s.client('secondary').numbers[0]!;
    const res = await call(s, 'PATCH', `/api/core/numbers/${encodeURIComponent(foreign.phoneNumber)}`, { payload: { smsEnabled: !foreign.smsEnabled } });
    const listed = (await call(s, 'GET', '/api/core/numbers', { token: await s.token('secondary') })).body.numbers.find((n: { numberId: string }) => n.numberId === foreign.numberId);
    await call(s, 'PATCH', `/api/core/numbers/${foreign.numberId}`, { token: await s.token('secondary'), payload: { smsEnabled: foreign.smsEnabled } });
    return res.status !== 200 && listed.smsEnabled === foreign.smsEnabled;
  },
  'update.foreign-number-allowed-after-first-client': async (s) => {
    const own = primaryNumber(s, 0);
    const res = await call(s, 'PATCH', `/api/core/numbers/${own.numberId}`, { token: await s.token('secondary'), payload: { smsEnabled: !own.smsEnabled } });
    const after = (await listed(s)).find((n) => n.numberId === own.numberId)!;
    await call(s, 'PATCH', `/api/core/numbers/${own.numberId}`, { payload: { smsEnabled: own.smsEnabled } });
    return res.status === 404 && after.smsEnabled === own.smsEnabled;
  },
  'update.override-copied-to-siblings': async (s) => {
    const [first, second] = [primaryNumber(s, 0), primaryNumber(s, 1)];
    await call(s, 'PATCH', `/api/core/numbers/${first.numberId}`, { payload: { webhookDeliveryOverride: 'https://hooks.example.com/delivery' } });
    const sibling = (await listed(s)).find((n) => n.numberId === second.numberId)!;
    await call(s, 'PATCH', `/api/core/numbers/${first.numberId}`, { payload: { webhookDeliveryOverride: null } });
    await call(s, 'PATCH', `/api/core/numbers/${second.numberId}`, { payload: { webhookDeliveryOverride: second.webhookDeliveryOverride } });
    return sibling.webhookDeliveryOverride === second.webhookDeliveryOverride;
  },
  'update.foreign-number-invalid': async (s) => {
    const foreign = s.client('secondary').numbers[0]!;
    return (await call(s, 'PATCH', `/api/core/numbers/${foreign.numberId}`, { payload: { smsEnabled: foreign.smsEnabled } })).status === 404;
  },
  'update.campaign-cut-to-40': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s, 1);
    const value = 'C'.repeat(50);
    const res = await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: value } });
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId } });
    return res.body?.campaignregId === value;
  },
  'update.campaign-trimmed': async (s) => {
    const number = primaryNumber(s);
    try {
      await call(s, 'PATCH', `/api/core/numbers/${number.numberId}`, { payload: { campaignregId: ' CMP 7 ' } });
      const listed = (await call(s, 'GET', '/api/core/numbers')).body.numbers.find((n: { numberId: string }) => n.numberId === number.numberId);
      return listed?.campaignregId === ' CMP 7 ';
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${number.numberId}`, { payload: { campaignregId: number.campaignregId } });
    }
  },
  'update.override-cut-to-255': async (s) => {
    const { numberId } = primaryNumber(s, 1);
    const value = `http://127.0.0.1:1/${'p'.repeat(300)}`;
    const res = await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookDeliveryOverride: value } });
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookDeliveryOverride: null } });
    return res.body?.webhookDeliveryOverride === value;
  },
  'update.body-number-id-wins': async (s) => {
    const { numberId } = primaryNumber(s, 1);
    const other = primaryNumber(s, 0);
    const res = await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: !other.smsEnabled, numberId: other.numberId } });
    await call(s, 'PATCH', `/api/core/numbers/${other.numberId}`, { payload: { smsEnabled: other.smsEnabled } });
    return res.status === 400;
  },
  'update.string-flag-coerced': async (s) => {
    const { numberId, smsEnabled } = primaryNumber(s, 1);
    const res = await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: String(!smsEnabled) } });
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled } });
    return res.status === 400;
  },
  'update.partial-apply-before-rejection': async (s) => {
    const { numberId, smsEnabled } = primaryNumber(s, 1);
    const res = await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: !smsEnabled, mmsEnabled: 'true' } });
    const after = (await listed(s)).find((n) => n.numberId === numberId)!;
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled } });
    return res.status === 400 && after.smsEnabled === smsEnabled;
  },
  'update.unknown-number-accepted': async (s) => (await call(s, 'PATCH', '/api/core/numbers/num_0000000000000000000000000000dead', { payload: { smsEnabled: true } })).status === 404,
  'update.other-fields-reset': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s, 0);
    const res = await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId } });
    return res.body.smsEnabled === true && res.body.mmsEnabled === true;
  },
  'update.empty-body-500': async (s) => (await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s, 0).numberId}`, { payload: {} })).status < 500,
  'update.null-body-500': async (s) => (await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s, 0).numberId}`, { body: 'null' })).status < 500,
  'update.flags-shared-by-registered-numbers': async (s) => {
    const [first, second] = s.client('primary').numbers.filter((n) => n.campaignregId);
    if (!first || !second) throw new Error('the demo fixtures need two primary numbers with a campaignregId');
    await call(s, 'PATCH', `/api/core/numbers/${first.numberId}`, { payload: { smsEnabled: false } });
    try {
      const list = (await call(s, 'GET', '/api/core/numbers')).body as { numbers: Array<{ numberId: string; smsEnabled: boolean }> };
      return list.numbers.find((n) => n.numberId === second.numberId)?.smsEnabled === true;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${first.numberId}`, { payload: { smsEnabled: first.smsEnabled } });
      await call(s, 'PATCH', `/api/core/numbers/${second.numberId}`, { payload: { smsEnabled: second.smsEnabled } });
    }
  },
  'update.campaign-change-spreads': async (s) => {
    // The client's third number has no campaignregId: giving it one must leave the others' alone.
    const [first, , third] = s.client('primary').numbers;
    await call(s, 'PATCH', `/api/core/numbers/${first!.numberId}`, { payload: { campaignregId: null } });
    await call(s, 'PATCH', `/api/core/numbers/${third!.numberId}`, { payload: { campaignregId: 'CDEMO09' } });
    const list = (await call(s, 'GET', '/api/core/numbers')).body as { numbers: Array<{ numberId: string; campaignregId: string | null }> };
    return list.numbers.find((n) => n.numberId === first!.numberId)?.campaignregId === null;
  },
  'update.null-clears-other-override': async (s) => {
    const receiver = await startReceiver();
    const numberId = primaryNumber(s).numberId;
    try {
      await overrideTo(s, `${receiver.url}/delivery`);
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: null } });
      return (await listed(s)).find((n) => n.numberId === numberId)!.webhookDeliveryOverride === `${receiver.url}/delivery`;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookDeliveryOverride: null } });
      await receiver.close();
    }
  },
  'update.null-takes-back-last-change': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s, 1);
    for (const value of ['CAMP-A', 'CAMP-B']) await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: value } });
    const res = await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: null } });
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId } });
    return res.status === 200 && res.body.campaignregId === null;
  },
  'update.null-needs-compact-json': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s, 1);
    const res = await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { body: '{"campaignregId": null}' });
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId } });
    return res.status === 200 && res.body.campaignregId === null;
  },
  'update.null-refused': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s, 1);
    const res = await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: null } });
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId } });
    return res.status === 200 && res.body.campaignregId === null;
  },
  'update.allowed-webhook-host-refused': async (s) => {
    const numberId = primaryNumber(s).numberId;
    const res = await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookDeliveryOverride: 'http://127.0.0.1:9/hooks/allowed' } });
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookDeliveryOverride: null } });
    return res.status === 200;
  },
  'update.private-webhook-accepted': async (s) => {
    const numberId = primaryNumber(s).numberId;
    const res = await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookDeliveryOverride: 'http://169.254.169.254/latest/meta-data/' } });
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookDeliveryOverride: null } });
    return res.status === 400;
  },

  'search.failure-swallowed-by-zip': async (s) => (await searchWhileUpstreamAnswers(s, 503, { zipCode: '20001' })).status === 502,
  'search.failure-swallowed-for-others': async (s) => (await searchWhileUpstreamAnswers(s, 503, { npa: '202' }, await s.token('secondary'))).status === 502,
  'search.assigned-numbers-offered': async (s) => {
    const res = await call(s, 'POST', '/api/core/numbers/search', { payload: { npa: '202' } });
    const offered = (res.body.groups as Array<{ phoneNumbers: string[] }>).flatMap((g) => g.phoneNumbers);
    return res.status === 200 && !offered.includes(primaryNumber(s).phoneNumber);
  },
  // The primary's first number turned off for SMS: still not offered.
  'search.disabled-number-offered': async (s) => {
    const number = primaryNumber(s);
    try {
      await call(s, 'PATCH', `/api/core/numbers/${number.numberId}`, { payload: { smsEnabled: false } });
      const res = await call(s, 'POST', '/api/core/numbers/search', { payload: { npa: '202' } });
      return res.status === 200 && !(res.body.groups as Array<{ phoneNumbers: string[] }>).some((g) => g.phoneNumbers.includes(number.phoneNumber));
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${number.numberId}`, { payload: { smsEnabled: true } });
    }
  },
  'search.coerced-beside-zip': async (s) => (await call(s, 'POST', '/api/core/numbers/search', { payload: { npa: 202, zipCode: '20001' } })).status === 400,
  'search.number-field-coerced': async (s) => (await call(s, 'POST', '/api/core/numbers/search', { payload: { npa: 202 } })).status === 400,
  // A search of one exchange with several numbers: its group lists them all.
  'search.groups-keep-last-number': async (s) => {
    const groups = (await call(s, 'POST', '/api/core/numbers/search', { payload: {} })).body.groups as Array<{ count: number; phoneNumbers: string[] }>;
    return groups.some((g) => g.phoneNumbers.length > 1) && groups.every((g) => g.count === g.phoneNumbers.length);
  },
  'search.empty-groups-null': async (s) => Array.isArray((await call(s, 'POST', '/api/core/numbers/search', { payload: { npa: '999' } })).body.groups),
  'search.field-missing': async (s) => 'providerResultCount' in (await call(s, 'POST', '/api/core/numbers/search', { payload: { npa: '202' } })).body,
  // A stall is given up after the server's upstream timeout (2 s by default).
  'search.stall-status-empty': async (s) => (await call(s, 'POST', '/api/core/numbers/search', { payload: { rateCenter: 'UPSTREAM-STALL' } })).body?.error?.details?.providerStatus === 'TIMEOUT',
  'search.upstream-failure-500': async (s) => (await searchWhileUpstreamAnswers(s, 503)).status === 502,
  'search.upstream-502-wrong-code': async (s) => (await searchWhileUpstreamAnswers(s, 503)).body?.error?.code === 'UPSTREAM_ERROR',
  'search.upstream-4xx-passed-through': async (s) => (await searchWhileUpstreamAnswers(s, 404)).status === 502,
  'search.upstream-300-taken-as-success': async (s) => (await searchWhileUpstreamAnswers(s, 300)).status === 502,

  'webhooks.override-never-sent': async (s) => (await deliveryCallback(s, (override) => overrideTo(s, override))).callback !== undefined,
  'webhooks.wrong-target': async (s) => {
    const { callback, atClient } = await deliveryCallback(s, async (override, client) => {
      await overrideTo(s, override);
      await clientWebhook(s, client);
    });
    await clientWebhook(s, null);
    return callback !== undefined && atClient === 0;
  },
  'webhooks.cleared-override-still-used': async (s) => {
    const override = await startReceiver();
    const clientHook = await startReceiver();
    try {
      await clientWebhook(s, clientHook.url);
      await overrideTo(s, override.url);
      await send(s, sendBody(primaryNumber(s).numberId));
      await override.waitFor(1, 2_000).catch(() => []);
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookDeliveryOverride: null } });
      await send(s, sendBody(primaryNumber(s).numberId));
      const atClient = await clientHook.waitFor(1, 2_000).catch(() => []);
      return atClient.length === 1 && override.received.length === 1;
    } finally {
      await clientWebhook(s, null);
      await override.close();
      await clientHook.close();
    }
  },
  // An override set, cleared before any send, then a send: the client's webhook gets the outcome.
  'webhooks.cleared-override-drops-outcome': async (s) => {
    const clientHook = await startReceiver();
    try {
      await clientWebhook(s, clientHook.url);
      await overrideTo(s, 'http://127.0.0.1:9/cleared');
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookDeliveryOverride: null } });
      await send(s, sendBody(primaryNumber(s).numberId));
      return (await clientHook.waitFor(1, 2_000).catch(() => [])).length === 1;
    } finally {
      await clientWebhook(s, null);
      await clientHook.close();
    }
  },
  // The secondary client points its own number's override at a receiver and sends from it: the outcome arrives there.
  'webhooks.override-first-client-only': async (s) => {
    const theirs = s.client('secondary').numbers[0]!;
    const secondaryToken = await s.token('secondary');
    const receiver = await startReceiver();
    try {
      await call(s, 'PATCH', `/api/core/numbers/${theirs.numberId}`, { token: secondaryToken, payload: { webhookDeliveryOverride: receiver.url, campaignregId: theirs.campaignregId ?? 'CAMP-S', smsEnabled: true } });
      expect((await send(s, sendBody(theirs.numberId), newKey(), secondaryToken)).status).toBe(202);
      return (await receiver.waitFor(1, 2_000).catch(() => [])).length === 1;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${theirs.numberId}`, { token: secondaryToken, payload: { webhookDeliveryOverride: null, campaignregId: theirs.campaignregId ?? null } });
      await receiver.close();
    }
  },
  'webhooks.mms-ignores-override': async (s) => {
    const override = await startReceiver();
    try {
      await overrideTo(s, override.url);
      const mms = await send(s, sendBody(primaryNumber(s).numberId, { messageType: 'MMS', media: [{ url: 'https://cdn.example.com/a.png', contentType: 'image/png' }] }));
      const callbacks = await override.waitFor(1, 2_000).catch(() => []);
      return mms.status === 202 && callbacks.length === 1;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookDeliveryOverride: null } });
      await override.close();
    }
  },
  'webhooks.failed-ignores-override': async (s) => {
    const receiver = await startReceiver();
    try {
      await overrideTo(s, receiver.url);
      await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550150'] }));
      await receiver.waitFor(1, 2_000).catch(() => undefined);
      return receiver.received.length > 0;
    } finally {
      await receiver.close();
    }
  },
  'webhooks.later-messages-interim-only': async (s) => {
    const receiver = await startReceiver();
    try {
      await overrideTo(s, receiver.url);
      await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550100', '+12025550101'] }));
      await receiver.waitFor(2, 2_000).catch(() => undefined);
      return receiver.received.length === 2 && receiver.received.every((c) => /"status":"(DELIVERED|FAILED)"/.test(c.body));
    } finally {
      await receiver.close();
    }
  },
  'webhooks.third-message-unreported': async (s) => {
    const override = await startReceiver();
    try {
      await overrideTo(s, override.url);
      await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550100', '+12025550101', '+12025550102'] }));
      await override.waitFor(3, 2_000).catch(() => undefined);
      return override.received.length === 3 && override.received.every((c) => /"status":"(DELIVERED|FAILED)"/.test(c.body));
    } finally {
      await override.close();
    }
  },
  // the same body sent twice under two keys: both messages end with a final status
  'webhooks.repeated-reference-unreported': async (s) => {
    const override = await startReceiver();
    try {
      await overrideTo(s, override.url);
      const body = sendBody(primaryNumber(s).numberId, { externalReference: 'repeated-reference' });
      await send(s, body);
      await override.waitFor(1, 2_000).catch(() => undefined);
      await send(s, body);
      await override.waitFor(2, 2_000).catch(() => undefined);
      return override.received.length === 2 && override.received.every((c) => /"status":"(DELIVERED|FAILED)"/.test(c.body));
    } finally {
      await override.close();
    }
  },
  'webhooks.callback-before-answer': async (s) => {
    // A receiver that answers 4 s late: the send must be answered without waiting for it (1.5 s
    // allows for a loaded machine; a send that waits for its callback takes until the test
    // server gives up on the receiver, 2 s, or more).
    const slow = createServer((req, res) => {
      req.resume();
      req.on('end', () => setTimeout(() => res.writeHead(204).end(), 4_000));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      await overrideTo(s, `http://127.0.0.1:${(slow.address() as AddressInfo).port}`);
      const started = Date.now();
      const res = await send(s, sendBody(primaryNumber(s).numberId));
      return res.status === 202 && Date.now() - started < 1_500;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookDeliveryOverride: null } });
      slow.closeAllConnections();
      await new Promise((resolve) => slow.close(resolve));
    }
  },
  'webhooks.message-id-missing': async (s) => {
    const { messageId, callback } = await deliveryCallback(s, (override) => overrideTo(s, override));
    return JSON.parse(callback!.body).data.messageId === messageId;
  },
  'webhooks.client-delivery-ignored': async (s) => {
    // No override: the receiver deliveryCallback waits at is the client's delivery webhook.
    await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookDeliveryOverride: null } });
    const { callback } = await deliveryCallback(s, (receiver) => clientWebhook(s, receiver));
    await clientWebhook(s, null);
    return callback !== undefined;
  },
  'webhooks.outcome-falls-back-to-other-client': async (s) => !(await outcomeReachesPrimary(s, 'secondary')),
  'webhooks.outcome-falls-back-for-later-clients': async (s) => !(await outcomeReachesPrimary(s, 'brief')),
  'webhooks.delivery-not-labelled-json': async (s) => (await deliveryCallback(s, (override) => overrideTo(s, override))).callback?.headers['content-type'] === 'application/json',
  'webhooks.inbound-labelled-text': async (s) => (await inboundAtOverride(s))?.headers['content-type'] === 'application/json',
  'webhooks.inbound-unsigned': async (s) => typeof (await inboundAtOverride(s))?.headers['webhook-signature'] === 'string',
  // A loopback send to a number with an inbound override, its client's inbound webhook set: nothing at the client's.
  'webhooks.inbound-copied-to-client': async (s) => {
    const override = await startReceiver();
    const clientHook = await startReceiver();
    const to = primaryNumber(s, 1);
    const { clientId } = s.client('primary');
    try {
      await call(s, 'PATCH', `/api/core/numbers/${to.numberId}`, { payload: { webhookInboundOverride: override.url } });
      await call(s, 'PUT', `/_control/clients/${clientId}/webhooks`, { token: s.app.reference.controlToken!, payload: { inbound: clientHook.url } });
      await send(s, sendBody(primaryNumber(s).numberId, { to: [to.phoneNumber] }));
      await override.waitFor(1, 3_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      return clientHook.received.length === 0;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${to.numberId}`, { payload: { webhookInboundOverride: null } });
      await call(s, 'PUT', `/_control/clients/${clientId}/webhooks`, { token: s.app.reference.controlToken!, payload: { inbound: null } });
      await override.close();
      await clientHook.close();
    }
  },
  // An override whose path has capitals: the callback arrives at that path.
  'webhooks.override-path-lowercased': async (s) => {
    const receiver = await startReceiver();
    try {
      await overrideTo(s, `${receiver.url}/Hooks/ABC`);
      await send(s, sendBody(primaryNumber(s).numberId));
      return (await receiver.waitFor(1, 3_000))[0]!.path === '/Hooks/ABC';
    } finally {
      await receiver.close();
    }
  },
  // A number with an inbound override only: its outcome goes to the client's delivery webhook.
  'webhooks.delivery-falls-back-to-inbound-override': async (s) =>
    atClientDeliveryHook(s, async (clientHook) => {
      const inboundHook = await startReceiver();
      const { numberId } = primaryNumber(s);
      try {
        await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: inboundHook.url, webhookDeliveryOverride: null } });
        await send(s, sendBody(numberId));
        await clientHook.waitFor(1, 3_000).catch(() => []);
        return clientHook.received.length === 1 && inboundHook.received.length === 0;
      } finally {
        await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: null } });
        await inboundHook.close();
      }
    }),
  'webhooks.inbound-override-ignored': async (s) => {
    const [atOverride, atClient] = await inboundCallbacks(s, async (override, client) => {
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookInboundOverride: override } });
      await call(s, 'PUT', `/_control/clients/${s.client('primary').clientId}/webhooks`, { token: s.app.reference.controlToken!, payload: { inbound: client } });
    });
    return atOverride === 1 && atClient === 0;
  },
  'webhooks.cleared-inbound-override-drops-traffic': async (s) => {
    const [atOverride, atClient] = await inboundCallbacks(s, async (override, client) => {
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookInboundOverride: override } });
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookInboundOverride: null } });
      await call(s, 'PUT', `/_control/clients/${s.client('primary').clientId}/webhooks`, { token: s.app.reference.controlToken!, payload: { inbound: client } });
    });
    return atOverride === 0 && atClient === 1;
  },
  'webhooks.client-inbound-ignored': async (s) => {
    const [, atClient] = await inboundCallbacks(s, async (_override, client) => {
      await call(s, 'PUT', `/_control/clients/${s.client('primary').clientId}/webhooks`, { token: s.app.reference.controlToken!, payload: { inbound: client } });
    });
    return atClient === 1;
  },
  'webhooks.client-error-not-retried': async (s) => (await attemptsAfterFailure(s, (_req, res) => res.writeHead(400).end())) >= 2,
  'webhooks.inbound-neighbour-override': async (s) => {
    const neighbour = await startReceiver();
    const clientHook = await startReceiver();
    const other = primaryNumber(s, 1).numberId;
    try {
      await call(s, 'PATCH', `/api/core/numbers/${other}`, { payload: { webhookInboundOverride: neighbour.url } });
      await call(s, 'PUT', `/_control/clients/${s.client('primary').clientId}/webhooks`, { token: s.app.reference.controlToken!, payload: { inbound: clientHook.url } });
      await call(s, 'POST', '/_control/inbound', { token: s.app.reference.controlToken!, payload: { numberId: primaryNumber(s).numberId, from: '+12025550123', text: 'hello' } });
      await Promise.race([neighbour.waitFor(1, 2_000), clientHook.waitFor(1, 2_000)]).catch(() => undefined);
      return clientHook.received.length === 1 && neighbour.received.length === 0;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${other}`, { payload: { webhookInboundOverride: null } });
      await call(s, 'PUT', `/_control/clients/${s.client('primary').clientId}/webhooks`, { token: s.app.reference.controlToken!, payload: { inbound: null } });
      await neighbour.close();
      await clientHook.close();
    }
  },
  // A recipient named twice beside another: the answer has a result item for each distinct recipient.
  'webhooks.repeated-recipient-answer-short': async (s) => ((await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550123', '+12025550124', '+12025550123'] }))).body.results as unknown[]).length === 2,
  'webhooks.answer-not-retried': async (s) => (await attemptsAfterFailure(s, (_req, res) => res.writeHead(500).end())) >= 2,
  // no answer at all: the connection is dropped as soon as the request arrives
  'webhooks.unreachable-not-retried': async (s) => (await attemptsAfterFailure(s, (req) => req.socket.destroy())) >= 2,
  // 410 settles the callback: no second attempt within the 2 s the helper waits (a retry comes after 0.25-0.5 s)
  'webhooks.retried-after-gone': async (s) => (await attemptsAfterFailure(s, (_req, res) => res.writeHead(410).end())) === 1,
  // Retry-After 3 s: no second attempt within the helper's 2 s
  'webhooks.retry-after-leading-zero-ignored': async (s) => (await attemptsAfterFailure(s, (_req, res) => res.writeHead(429, { 'retry-after': '03' }).end())) === 1,
  'webhooks.only-200-delivers': async (s) => (await attemptsAfterFailure(s, (_req, res) => res.writeHead(204).end())) === 1,
  'webhooks.redirect-status-is-success': async (s) => (await attemptsAfterFailure(s, (_req, res) => res.writeHead(300).end())) >= 2,
  'webhooks.retry-after-date-ignored': async (s) => (await attemptsAfterFailure(s, (_req, res) => res.writeHead(429, { 'retry-after': new Date(Date.now() + 3_000).toUTCString() }).end())) === 1,
  // 503 with Retry-After 3 s: no second attempt within the helper's 2 s
  // The first attempt answered 202: no second attempt within the helper's 2 s.
  'webhooks.only-200-204-delivered': async (s) => (await attemptsAfterFailure(s, (_req, res) => res.writeHead(202).end())) === 1,
  // The event of a message to a failing recipient, answered 500 first: a second attempt comes.
  'webhooks.failed-outcome-not-retried': async (s) =>
    atOverride(
      s,
      async (receiver) => {
        await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550150'] }));
        return (await receiver.waitFor(2, 2_000).catch(() => [])).length >= 2;
      },
      (_r, i) => ({ status: i === 0 ? 500 : 204 }),
    ),
  // 429 with Retry-After 1 s, then 204: the retry carries the first attempt's webhook-id.
  'webhooks.retry-after-renamed': async (s) =>
    atOverride(
      s,
      async (receiver) => {
        await send(s, sendBody(primaryNumber(s).numberId));
        const [first, second] = await receiver.waitFor(2, 3_000);
        return first!.headers['webhook-id'] === second!.headers['webhook-id'];
      },
      (_r, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 }),
    ),
  // A message to +12025550151, the sandbox's second failing recipient: reported FAILED.
  'webhooks.only-first-failing-recipient': async (s) =>
    atOverride(s, async (receiver) => {
      await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550151'] }));
      const [callback] = await receiver.waitFor(1, 2_000);
      return callback!.body.includes('"FAILED"');
    }),
  // The first attempt held unanswered past the server's webhook timeout (the test server's is short): a second attempt comes.
  'webhooks.timeout-counted-delivered': async (s) => {
    let attempts = 0;
    const receiver = createServer((_req, res) => {
      if (++attempts > 1) res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      await overrideTo(s, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
      await send(s, sendBody(primaryNumber(s).numberId));
      for (let waited = 0; attempts < 2 && waited < 4_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      return attempts >= 2;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { webhookDeliveryOverride: null } });
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  },
  'webhooks.override-query-dropped': async (s) => {
    const paths: string[] = [];
    const receiver = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      await overrideTo(s, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook?route=a`);
      expect((await send(s, sendBody(primaryNumber(s).numberId))).status).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return paths.length > 0 && paths.every((p) => p === '/hook?route=a');
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  },
  'webhooks.retry-after-due-gives-up': async (s) => (await attemptsAfterFailure(s, (_req, res) => res.writeHead(429, { 'retry-after': '0' }).end())) === 2,
  'webhooks.retry-after-429-only': async (s) => (await attemptsAfterFailure(s, (_req, res) => res.writeHead(503, { 'retry-after': '3' }).end())) === 1,
  'webhooks.retry-after-first-failure-only': async (s) => {
    // 500, then 503 asking for 3 s: the third attempt within 2 s of the second is too soon.
    const arrivals: number[] = [];
    const receiver = createServer((req, res) => {
      arrivals.push(Date.now());
      if (arrivals.length === 1) return res.writeHead(500).end();
      if (arrivals.length === 2) return res.writeHead(503, { 'retry-after': '3' }).end();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      await overrideTo(s, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
      expect((await send(s, sendBody(primaryNumber(s).numberId))).status).toBe(202);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      return arrivals.length === 2;
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  },
  'webhooks.retry-after-ignored': async (s) => (await attemptsAfterFailure(s, (_req, res) => res.writeHead(429, { 'retry-after': '3' }).end())) === 1,
  // Inbound traffic whose callback is answered 500 first: a second attempt within 2 s (a retry comes after 0.25-0.5 s).
  // The first attempt answered 500; its retry still carries the final status.
  'webhooks.retry-reported-queued': async (s) => {
    const bodies: string[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => res.writeHead(bodies.push(body) === 1 ? 500 : 204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      await overrideTo(s, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
      await send(s, sendBody(primaryNumber(s).numberId));
      for (let waited = 0; bodies.length < 2 && waited < 2_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      return bodies.length >= 2 && bodies[1]!.includes('"status":"DELIVERED"');
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  },
  // The primary tries to update the secondary's number: its count of numbers stays its list's length.
  'ctx.count-includes-refused-update': async (s) => {
    await call(s, 'PATCH', `/api/core/numbers/${s.client('secondary').numbers[0]!.numberId}`, { payload: { smsEnabled: true } });
    const [who, list] = [await call(s, 'GET', '/api/core/whoami'), await call(s, 'GET', '/api/core/numbers')];
    return who.body.assignedNumbers.total === list.body.numbers.length;
  },
  // The primary's token, asked after the secondary obtained one, still sees the primary's name.
  'ctx.name-of-latest-token': async (s) => {
    const token = await s.token();
    const before = await call(s, 'GET', '/api/core/whoami', { token });
    await s.token('secondary');
    const after = await call(s, 'GET', '/api/core/whoami', { token });
    return before.status === 200 && after.body.apiClientName === before.body.apiClientName;
  },
  // The primary's second number shares the first's campaignregId and has an override; a send from the first (no override) brings it nothing.
  'webhooks.override-by-campaign': async (s) => {
    const receiver = await startReceiver();
    const [first, second] = [primaryNumber(s), primaryNumber(s, 1)];
    try {
      await call(s, 'PATCH', `/api/core/numbers/${second.numberId}`, { payload: { webhookDeliveryOverride: receiver.url, campaignregId: first.campaignregId } });
      await send(s, sendBody(first.numberId));
      return (await receiver.waitFor(1, 1_500).catch(() => [])).length === 0;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${second.numberId}`, { payload: { webhookDeliveryOverride: null, campaignregId: second.campaignregId } });
      await receiver.close();
    }
  },
  // A receiver that fails the first two attempts: the third carries the first's webhook-id.
  // Two clients, one key, one recipient: the two outcomes carry two webhook-ids.
  'webhooks.id-from-idempotency-key': async (s) => {
    const receiver = await startReceiver(() => ({ status: 204 }));
    try {
      const theirs = s.client('secondary').numbers.find((n) => n.campaignregId)!.numberId;
      await overrideTo(s, receiver.url);
      expect((await call(s, 'PATCH', `/api/core/numbers/${theirs}`, { token: await s.token('secondary'), payload: { webhookDeliveryOverride: receiver.url } })).status).toBe(200);
      const key = newKey();
      expect((await send(s, sendBody(primaryNumber(s).numberId), key)).status).toBe(202);
      expect((await send(s, sendBody(theirs), key, await s.token('secondary'))).status).toBe(202);
      const [a, b] = await receiver.waitFor(2, 3_000);
      return a!.headers['webhook-id'] !== b!.headers['webhook-id'];
    } finally {
      await receiver.close();
    }
  },
  'webhooks.new-id-from-third-attempt': async (s) => {
    const receiver = await startReceiver((_request, index) => ({ status: index < 2 ? 500 : 204 }));
    try {
      await overrideTo(s, receiver.url);
      await send(s, sendBody(primaryNumber(s).numberId));
      const attempts = await receiver.waitFor(3, 3_000);
      return attempts.every((a) => a.headers['webhook-id'] === attempts[0]!.headers['webhook-id']);
    } finally {
      await receiver.close();
    }
  },
  // An MMS from the MMS-enabled primary number: its delivery event verifies with the client's secret.
  'webhooks.mms-events-mis-signed': async (s) =>
    atOverride(s, async (receiver) => {
      await send(s, sendBody(primaryNumber(s).numberId, { messageType: 'MMS', media: [{ url: 'https://cdn.example.com/p.png', contentType: 'image/png' }] }));
      const [callback] = await receiver.waitFor(1, 2_000);
      return verificationProblem(s.client('primary').webhookSecret, callback!.headers as Record<string, string>, callback!.body) === '';
    }),
  // A send to two recipients: each callback's signature verifies over its own id, timestamp and body.
  'webhooks.batch-signed-as-first': async (s) => {
    const receiver = await startReceiver();
    try {
      await overrideTo(s, receiver.url);
      await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550101', '+12025550102'] }));
      const callbacks = await receiver.waitFor(2, 2_000);
      const secret = s.client('primary').webhookSecret;
      return callbacks.every((c) => {
        const expected = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64')).update(`${c.headers['webhook-id']}.${c.headers['webhook-timestamp']}.${c.body}`).digest('base64');
        return String(c.headers['webhook-signature']).split(' ').includes(`v1,${expected}`);
      });
    } finally {
      await receiver.close();
    }
  },
  // The override answers the first attempt 500; the client's delivery webhook gets nothing of the message.
  'webhooks.retry-to-client-webhook': async (s) =>
    atClientDeliveryHook(s, async (clientHook) => {
      const attempts = await attemptsAfterFailure(s, (_req, res) => res.writeHead(500).end());
      await clientHook.waitFor(1, 500).catch(() => []);
      return attempts >= 2 && clientHook.received.length === 0;
    }),
  // The override answers 410: the outcome goes nowhere else, the client's webhook included.
  'webhooks.gone-moves-to-client-webhook': async (s) =>
    atClientDeliveryHook(s, (clientHook) =>
      atOverride(
        s,
        async (override) => {
          await send(s, sendBody(primaryNumber(s).numberId));
          await override.waitFor(1, 3_000);
          await clientHook.waitFor(1, 2_000).catch(() => []);
          return clientHook.received.length === 0;
        },
        () => ({ status: 410 }),
      ),
    ),
  // The override fails the first two attempts: the third comes there too, none to the client's webhook.
  'webhooks.third-attempt-to-client-webhook': async (s) =>
    atClientDeliveryHook(s, (clientHook) =>
      atOverride(
        s,
        async (override) => {
          await send(s, sendBody(primaryNumber(s).numberId));
          await override.waitFor(3, 5_000).catch(() => []);
          await clientHook.waitFor(1, 500).catch(() => []);
          return override.received.length >= 3 && clientHook.received.length === 0;
        },
        (_request, index) => ({ status: index < 2 ? 500 : 204 }),
      ),
    ),
  // An inbound callback answered 429 with Retry-After: 2: its retry waits that long.
  'webhooks.inbound-retry-after-ignored': async (s) => {
    const times: number[] = [];
    const receiver = createServer((_req, res) => {
      times.push(Date.now());
      if (times.length === 1) res.writeHead(429, { 'retry-after': '2' }).end();
      else res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const numberId = primaryNumber(s).numberId;
    try {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/inbound` } });
      await call(s, 'POST', '/_control/inbound', { token: s.app.reference.controlToken!, payload: { numberId, from: '+12025550123', text: 'hello' } });
      for (let waited = 0; times.length < 2 && waited < 4_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      return times.length === 2 && times[1]! - times[0]! >= 1_500;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: null } });
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  },
  // An inbound callback answered 410: one attempt, none after it.
  'webhooks.inbound-gone-retried': async (s) => {
    let attempts = 0;
    const receiver = createServer((_req, res) => res.writeHead((++attempts, 410)).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const numberId = primaryNumber(s).numberId;
    try {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/inbound` } });
      await call(s, 'POST', '/_control/inbound', { token: s.app.reference.controlToken!, payload: { numberId, from: '+12025550123', text: 'hello' } });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return attempts === 1;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: null } });
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  },
  'webhooks.inbound-not-retried': async (s) => {
    let attempts = 0;
    const receiver = createServer((_req, res) => res.writeHead(++attempts === 1 ? 500 : 204).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const numberId = primaryNumber(s).numberId;
    try {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/inbound` } });
      await call(s, 'POST', '/_control/inbound', { token: s.app.reference.controlToken!, payload: { numberId, from: '+12025550123', text: 'hello' } });
      for (let waited = 0; attempts < 2 && waited < 2_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      return attempts >= 2;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookInboundOverride: null } });
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  },
  // A send from the primary's first number to its second's phone number, named after another recipient: inbound traffic at the second's override.
  // A send from one primary number to another's phone number, both kinds pointed at one receiver: two events, two webhook-ids.
  'webhooks.id-from-recipient-and-time': async (s) => {
    const receiver = await startReceiver();
    const [from, to] = [primaryNumber(s), primaryNumber(s, 1)];
    try {
      await call(s, 'PATCH', `/api/core/numbers/${from.numberId}`, { payload: { webhookDeliveryOverride: receiver.url } });
      await call(s, 'PATCH', `/api/core/numbers/${to.numberId}`, { payload: { webhookInboundOverride: receiver.url } });
      await send(s, sendBody(from.numberId, { to: [to.phoneNumber] }));
      const arrived = await receiver.waitFor(2, 2_000).catch(() => receiver.received);
      return new Set(arrived.map((r) => r.headers['webhook-id'])).size === arrived.length && arrived.length === 2;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${from.numberId}`, { payload: { webhookDeliveryOverride: null } });
      await call(s, 'PATCH', `/api/core/numbers/${to.numberId}`, { payload: { webhookInboundOverride: null } });
      await receiver.close();
    }
  },
  // An MMS from the MMS-enabled primary number to another primary number: its inbound event arrives.
  'webhooks.inbound-from-sms-only': async (s) => {
    const receiver = await startReceiver();
    const to = primaryNumber(s, 1);
    try {
      await call(s, 'PATCH', `/api/core/numbers/${to.numberId}`, { payload: { webhookInboundOverride: receiver.url } });
      await send(s, sendBody(primaryNumber(s).numberId, { to: [to.phoneNumber], messageType: 'MMS', media: [{ url: 'https://cdn.example.com/p.png', contentType: 'image/png' }] }));
      return (await receiver.waitFor(1, 2_000).catch(() => [])).length === 1;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${to.numberId}`, { payload: { webhookInboundOverride: null } });
      await receiver.close();
    }
  },
  // The first attempt answered 500; the number is then updated to a value it has; a retry still comes.
  'webhooks.update-drops-retries': async (s) => retriedAfter(s, async () => void (await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { payload: { smsEnabled: true } }))),
  // The same, with another of the client's numbers written, or a token issued, while the retry is due.
  'webhooks.neighbour-update-drops-retries': async (s) => retriedAfter(s, async () => void (await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s, 1).numberId}`, { payload: { smsEnabled: true } }))),
  'webhooks.token-drops-retries': async (s) => retriedAfter(s, async () => expect((await token(s, credentials(s))).status).toBe(200)),
  'webhooks.sms-off-drops-retries': async (s) =>
    retriedAfter(s, async () => {
      const { numberId } = primaryNumber(s);
      expect((await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: false } })).status).toBe(200);
      expect((await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { smsEnabled: true } })).status).toBe(200);
    }),
  'webhooks.unsafe-retry-drops-retries': async (s) => retriedAfter(s, async (key, body) => expect((await send(s, { ...body, text: 'changed' }, key)).status).toBe(409)),
  'webhooks.safe-retry-drops-retries': async (s) => retriedAfter(s, async (key, body) => expect((await send(s, body, key)).status).toBe(202)),
  // A send to two recipients, every callback's first attempt answered 500: both are tried again.
  'webhooks.retry-first-event-of-send-only': async (s) =>
    atOverride(
      s,
      async (receiver) => {
        await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550100', '+12025550101'] }));
        const seen = await receiver.waitFor(4, 3_000).catch(() => receiver.received);
        return seen.length >= 4;
      },
      (_r, i) => ({ status: i < 2 ? 500 : 204 }),
    ),
  // One callback answered 500, then another message's callback at the same receiver answered 410: the first is still tried again.
  'webhooks.gone-drops-target-retries': async (s) => {
    const texts: string[] = [];
    return atOverride(
      s,
      async (receiver) => {
        await send(s, sendBody(primaryNumber(s).numberId, { externalReference: 'first' }));
        await receiver.waitFor(1, 2_000);
        await send(s, sendBody(primaryNumber(s).numberId, { externalReference: 'gone' }));
        const seen = await receiver.waitFor(3, 3_000).catch(() => receiver.received);
        return seen.filter((c) => c.body.includes('"first"')).length >= 2;
      },
      (r) => {
        texts.push(r.body);
        return { status: r.body.includes('"gone"') ? 410 : texts.filter((t) => t.includes('"first"')).length === 1 ? 500 : 204 };
      },
    );
  },
  // Two loopback messages with the same text to the primary's second number: two inbound events.
  'webhooks.inbound-same-text-suppressed': async (s) => {
    const receiver = await startReceiver();
    const second = primaryNumber(s, 1);
    try {
      await call(s, 'PATCH', `/api/core/numbers/${second.numberId}`, { payload: { webhookInboundOverride: receiver.url } });
      const body = sendBody(primaryNumber(s).numberId, { to: [second.phoneNumber] });
      await send(s, body);
      await send(s, body);
      return (await receiver.waitFor(2, 2_000).catch(() => receiver.received)).length === 2;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${second.numberId}`, { payload: { webhookInboundOverride: null } });
      await receiver.close();
    }
  },
  'webhooks.inbound-first-recipient-only': async (s) => {
    const receiver = await startReceiver();
    const second = primaryNumber(s, 1);
    try {
      await call(s, 'PATCH', `/api/core/numbers/${second.numberId}`, { payload: { webhookInboundOverride: receiver.url } });
      await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550101', second.phoneNumber] }));
      return (await receiver.waitFor(1, 2_000).catch(() => [])).length === 1;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${second.numberId}`, { payload: { webhookInboundOverride: null } });
      await receiver.close();
    }
  },
  // A send from the primary to a number of the secondary's whose inbound override the secondary set: the event verifies with the secondary client's secret.
  'webhooks.cross-client-inbound-signed-by-sender': async (s) =>
    atSecondaryInboundOverride(s, async (receiver) => {
      const [callback] = await receiver.waitFor(1, 2_000);
      return verificationProblem(s.client('secondary').webhookSecret, callback!.headers as Record<string, string>, callback!.body) === '';
    }),
  // A send from the primary to a number of the secondary's whose inbound override the secondary set: the event reaches it.
  'webhooks.cross-client-inbound-override-ignored': async (s) => atSecondaryInboundOverride(s, async (receiver) => (await receiver.waitFor(1, 2_000).catch(() => [])).length === 1),
  // A send from the primary to a number of the secondary's, which has no inbound override: nothing at the primary's inbound webhook.
  'webhooks.inbound-to-sender-client': async (s) => {
    const clientHook = await startReceiver();
    const theirs = s.client('secondary').numbers[0]!;
    try {
      await call(s, 'PUT', `/_control/clients/${s.client('primary').clientId}/webhooks`, { token: s.app.reference.controlToken!, payload: { inbound: clientHook.url } });
      await send(s, sendBody(primaryNumber(s).numberId, { to: [theirs.phoneNumber] }));
      return (await clientHook.waitFor(1, 1_500).catch(() => [])).length === 0;
    } finally {
      await call(s, 'PUT', `/_control/clients/${s.client('primary').clientId}/webhooks`, { token: s.app.reference.controlToken!, payload: { inbound: null } });
      await clientHook.close();
    }
  },
  // After a receiver answered 410, a later message's outcome still reaches another receiver.
  'webhooks.gone-stops-every-callback': async (s) => {
    await attemptsAfterFailure(s, (_req, res) => res.writeHead(410).end());
    const receiver = await startReceiver();
    try {
      await overrideTo(s, receiver.url);
      await send(s, sendBody(primaryNumber(s).numberId));
      return (await receiver.waitFor(1, 2_000).catch(() => [])).length === 1;
    } finally {
      await receiver.close();
    }
  },
  'webhooks.retry-unlabelled': async (s) => {
    const types: Array<string | undefined> = [];
    const receiver = createServer((req, res) => {
      types.push(req.headers['content-type']);
      res.writeHead(types.length === 1 ? 500 : 204).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      await overrideTo(s, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
      await send(s, sendBody(primaryNumber(s).numberId));
      for (let waited = 0; types.length < 2 && waited < 3_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      if (types.length < 2) throw new Error(`the probe's callback was not retried: ${types.length} attempt(s)`);
      return types[1] === types[0];
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  },
  'webhooks.id-per-send': async (s) => {
    const receiver = await startReceiver();
    try {
      await overrideTo(s, receiver.url);
      await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550101', '+12025550102'] }));
      const callbacks = await receiver.waitFor(2, 3_000);
      return new Set(callbacks.map((c) => c.headers['webhook-id'])).size === 2;
    } finally {
      await receiver.close();
    }
  },
  'webhooks.failed-signed-reserialized': async (s) => {
    const receiver = await startReceiver();
    try {
      await overrideTo(s, receiver.url);
      await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550155'] }));
      const [callback] = await receiver.waitFor(1, 2_000);
      if (!callback!.body.includes('FAILED')) throw new Error(`the probe's message must end FAILED: ${callback!.body}`);
      verifyWebhook(s.client('primary').webhookSecret, callback!.headers as Record<string, string>, callback!.body);
      return true;
    } catch (e) {
      if ((e as Error).message.startsWith("the probe's")) throw e;
      return false;
    } finally {
      await receiver.close();
    }
  },
  'webhooks.signed-over-escaped-json': async (s) => {
    const receiver = await startReceiver();
    try {
      await overrideTo(s, receiver.url);
      await send(s, sendBody(primaryNumber(s).numberId, { externalReference: 'caf\u00e9-\u2713-\u{1f4e8}' }));
      const [callback] = await receiver.waitFor(1, 2_000);
      verifyWebhook(s.client('primary').webhookSecret, callback!.headers as Record<string, string>, callback!.body);
      return /[^\x00-\x7f]/.test(callback!.body);
    } catch {
      return false;
    } finally {
      await receiver.close();
    }
  },
  'webhooks.retry-signed-with-first-timestamp': async (s) => {
    const receiver = await startReceiver((_request, index) => ({ status: index === 0 ? 500 : 204 }));
    try {
      await overrideTo(s, receiver.url);
      await send(s, sendBody(primaryNumber(s).numberId));
      const attempts = await receiver.waitFor(2, 5_000);
      for (const attempt of attempts) verifyWebhook(s.client('primary').webhookSecret, attempt.headers as Record<string, string>, attempt.body);
      return attempts.length >= 2;
    } catch {
      return false;
    } finally {
      await receiver.close();
    }
  },
  // A failed message's event, answered 500 once: its retry carries the same event.
  'webhooks.mms-failure-reported-delivered': async (s) => {
    const receiver = await startReceiver();
    try {
      await overrideTo(s, receiver.url);
      await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550155'], messageType: 'MMS', media: [{ url: 'https://example.com/a.png', contentType: 'image/png' }] }));
      const [callback] = await receiver.waitFor(1, 5_000);
      return callback!.body.includes('FAILED');
    } finally {
      await receiver.close();
    }
  },
  'webhooks.one-callback-per-recipient': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550101', '+12025550102', '+12025550101'] }))).body.results.length === 2,
  // The secondary client's callback answered 500 once: its retry verifies with the secondary's secret too.
  'webhooks.retries-signed-with-first-client-secret': async (s) => {
    const { secret, attempts } = await secondaryCallbacks(s, 2, (_request, index) => ({ status: index === 0 ? 500 : 204 }));
    return attempts.every((a) => verificationProblem(secret, a.headers as Record<string, string>, a.body) === '');
  },
  // The secondary client's callback verifies with the secondary's secret.
  'webhooks.signed-with-first-client-secret': async (s) => {
    const { secret, attempts } = await secondaryCallbacks(s, 1);
    return verificationProblem(secret, attempts[0]!.headers as Record<string, string>, attempts[0]!.body) === '';
  },
  'webhooks.retry-reported-delivered': async (s) => {
    const receiver = await startReceiver((_request, index) => ({ status: index === 0 ? 500 : 204 }));
    try {
      await overrideTo(s, receiver.url);
      await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550155'] }));
      const [first, retry] = await receiver.waitFor(2, 5_000);
      if (!first!.body.includes('FAILED')) throw new Error(`the probe's message must end FAILED: ${first!.body}`);
      return retry!.body === first!.body;
    } finally {
      await receiver.close();
    }
  },
  // Four attempts, all failed (a retry base of 0.5 s: waits of 0.25-0.5, 0.5-1 and 1-2 s): the third wait is longer than the first.
  'webhooks.retries-at-fixed-interval': (s) => backsOff(s, () => ({ status: 500 }), 4),
  // The same, every attempt's connection reset without an answer (the fourth answered).
  'webhooks.backoff-flat-after-reset': (s) => backsOff(s, (_r, index) => (index < 3 ? 'reset' : { status: 204 }), 4),
  // The first attempt answered 429 with Retry-After: 1, the next three 500 (waits of 0.5-1, 1-2
  // and 2-4 s after the honoured second): the last wait is longer than the first after it.
  'webhooks.backoff-flat-after-retry-after': (s) => backsOff(s, (_r, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : index < 4 ? { status: 500 } : { status: 204 }), 5, 1, 12_000),
  // Two recipients: each callback names the messageId the answer gave its recipient.
  'webhooks.message-ids-crossed': async (s) => {
    const receiver = await startReceiver();
    try {
      await overrideTo(s, receiver.url);
      const sent = await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550123', '+12025550124'] }));
      const callbacks = await receiver.waitFor(2, 5_000);
      return (sent.body.results as Array<{ to: string; messageId: string }>).every(({ to, messageId }) => callbacks.some((c) => c.body.includes(messageId) && c.body.includes(to)));
    } finally {
      await receiver.close();
    }
  },
  // A send to the secondary client's number: its outcome comes to the sender's override.
  'webhooks.outcome-to-recipient-owner': async (s) => {
    const receiver = await startReceiver();
    try {
      await overrideTo(s, receiver.url);
      const sent = await send(s, sendBody(primaryNumber(s).numberId, { to: [s.client('secondary').numbers[0]!.phoneNumber] }));
      const messageId: string = sent.body.results[0].messageId;
      await receiver.waitFor(1, 2_000).catch(() => undefined);
      return receiver.received.some((c) => c.body.includes(messageId));
    } finally {
      await receiver.close();
    }
  },
  'webhooks.signature-unpadded': async (s) => /^v1,[A-Za-z0-9+/]{43}=$/.test(String((await deliveryCallback(s, (override) => overrideTo(s, override))).callback?.headers['webhook-signature'])),
  'webhooks.failed-event-labelled-text': async (s) =>
    atOverride(s, async (receiver) => {
      await send(s, sendBody(primaryNumber(s).numberId, { to: ['+12025550155'] }));
      const [callback] = await receiver.waitFor(1, 3_000);
      return /^application\/json/.test(String(callback!.headers['content-type']));
    }),
  'webhooks.unsigned': async (s) => typeof (await deliveryCallback(s, (override) => overrideTo(s, override))).callback?.headers['webhook-signature'] === 'string',

  'errors.unlabelled-update-body-500': async (s) => {
    const { numberId, smsEnabled } = primaryNumber(s);
    const answer = await s.app.inject({ method: 'PATCH', url: `/api/core/numbers/${numberId}`, headers: { authorization: `Bearer ${await s.token()}` }, payload: JSON.stringify({ smsEnabled }) });
    return answer.statusCode < 500;
  },
  'errors.escaped-slash-refused': async (s) => {
    const numberId = primaryNumber(s).numberId;
    try {
      return (await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { body: '{"webhookDeliveryOverride":"http:\\/\\/127.0.0.1:9\\/x"}' })).status === 200;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { webhookDeliveryOverride: null } });
    }
  },
  'errors.raw-control-characters-read': async (s) => (await call(s, 'POST', '/api/core/messages/send', { body: JSON.stringify(sendBody(primaryNumber(s).numberId)).replace('"Hello"', '"Hel\nlo"'), headers: { 'idempotency-key': newKey(), 'content-type': 'application/json' } })).status === 400,
  'errors.empty-update-body-500': async (s) => (await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { body: '', headers: { 'content-type': 'application/json' } })).status === 400,
  'errors.trailing-json-ignored': async (s) => (await call(s, 'POST', '/api/core/messages/send', { body: `${JSON.stringify(sendBody(primaryNumber(s).numberId))} x`, headers: { 'idempotency-key': newKey(), 'content-type': 'application/json' } })).status === 400,
  'errors.json-number-words-read': async (s) => (await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { body: '{"note":NaN,"smsEnabled":true}', headers: { 'content-type': 'application/json' } })).status === 400,
  'errors.json5-read': async (s) => (await call(s, 'POST', '/api/core/numbers/search', { body: '{/* c */npa:"202"}', headers: { 'content-type': 'application/json' } })).status === 400,
  'errors.unknown-core-path-405': async (s) => (await call(s, 'GET', '/api/core/no-such-route')).status !== 405,
  'errors.query-string-unrouted': async (s) => (await call(s, 'GET', '/api/core/whoami?x=1')).status === 200,
  'errors.unknown-core-path-unwrapped': async (s) => typeof (await call(s, 'GET', '/api/core/no-such-route')).body?.error?.code === 'string',
  'search.non-ascii-500': async (s) => (await call(s, 'POST', '/api/core/numbers/search', { payload: { city: 'Montr\u00e9al' } })).status < 500,
  'search.nothing-found-count-null': async (s) => typeof (await call(s, 'POST', '/api/core/numbers/search', { payload: { npa: '999' } })).body.providerResultCount === 'number',
  'errors.leading-whitespace-refused': async (s) => (await call(s, 'PATCH', `/api/core/numbers/${primaryNumber(s).numberId}`, { body: ' {"smsEnabled":true}', headers: { 'content-type': 'application/json' } })).status === 200,
  'errors.form-type-case-refused': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const body = `grant_type=client_credentials&client_id=${encodeURIComponent(clientId)}&client_secret=${encodeURIComponent(clientSecret)}`;
    return (await call(s, 'POST', '/api/auth/token', { token: null, headers: { 'content-type': 'Application/X-WWW-Form-Urlencoded' }, body })).status === 200;
  },
  'send.foreign-settings-checked-first': async (s) => {
    const theirs = s.client('secondary').numbers[0]!;
    const token = await s.token('secondary');
    await call(s, 'PATCH', `/api/core/numbers/${theirs.numberId}`, { token, payload: { campaignregId: null } });
    try {
      return (await send(s, sendBody(theirs.numberId))).status === 403;
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${theirs.numberId}`, { token, payload: { campaignregId: theirs.campaignregId } });
    }
  },
  'token.get-query-credentials-issue': async (s) => {
    const { clientId, clientSecret } = s.client('primary');
    const res = await s.app.inject({ method: 'GET', url: `/api/auth/token?grant_type=client_credentials&client_id=${encodeURIComponent(clientId)}&client_secret=${encodeURIComponent(clientSecret)}` });
    return res.statusCode === 405;
  },
  'token.json-unknown-member-refused': async (s) => (await token(s, { ...credentials(s), audience: 'x' })).status === 200,
  'update.non-ascii-stored-as-question-marks': async (s) => {
    const { numberId, campaignregId } = primaryNumber(s);
    await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId: 'CR-中' } });
    try {
      const list = (await call(s, 'GET', '/api/core/numbers')).body as { numbers: Array<{ numberId: string; campaignregId: string | null }> };
      return list.numbers.find((n) => n.numberId === numberId)?.campaignregId === 'CR-中';
    } finally {
      await call(s, 'PATCH', `/api/core/numbers/${numberId}`, { payload: { campaignregId } });
    }
  },
  'send.null-media-taken-as-absent': async (s) => (await send(s, sendBody(primaryNumber(s).numberId, { media: null }))).status === 400,

  'versioning.v1-prefix-only': async (s) => (await token(s, credentials(s))).status === 200,
};

test.describe('the fault catalogue', () => {
  test('every fault names one requirement of spec/requirements.yaml, is named area.what and has a probe here', () => {
    const catalogue = parse(readFileSync(fileURLToPath(new URL('../../spec/requirements.yaml', import.meta.url)), 'utf8')) as { requirements: Array<{ id: string }> };
    const ids = new Set(catalogue.requirements.map((requirement) => requirement.id));
    for (const name of FAULT_NAMES) {
      expect(name, 'fault names are area.what').toMatch(/^[a-z]+\.[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(FAULTS[name].breaks).toHaveLength(1);
      expect(ids.has(FAULTS[name].breaks[0]), `${name} breaks ${FAULTS[name].breaks[0]}, which is in the catalogue`).toBe(true);
      expect(FAULTS[name].description.length).toBeGreaterThan(10);
    }
    expect(Object.keys(PROBES).sort()).toEqual([...FAULT_NAMES].sort());
  });

  test('every checkable document-level requirement is broken by at least one fault (README, Kill matrix)', () => {
    type Entry = { id: string; level: string; check: string; withdrawn?: boolean };
    const catalogue = parse(readFileSync(fileURLToPath(new URL('../../spec/requirements.yaml', import.meta.url)), 'utf8')) as { requirements: Entry[] };
    const checkable = catalogue.requirements.filter((r) => r.level === 'document' && !r.withdrawn && ['black-box', 'fixture', 'hook'].includes(r.check));
    expect(checkable.length).toBeGreaterThan(70);
    const broken = new Set(FAULT_NAMES.map((name) => FAULTS[name].breaks[0]));
    expect(checkable.filter((r) => !broken.has(r.id)).map((r) => r.id), 'document-level requirements no fault breaks').toEqual([]);
  });

  test('the fault table of faults/README.md is the catalogue\'s (print it with npx tsx faults/table.ts)', () => {
    const readme = readFileSync(fileURLToPath(new URL('../../faults/README.md', import.meta.url)), 'utf8');
    const table = /<!-- faults:start -->\n([\s\S]*?)\n<!-- faults:end -->/.exec(readme)?.[1];
    expect(table, 'faults/README.md has <!-- faults:start --> and <!-- faults:end --> markers').toBeDefined();
    expect(table!.trim()).toBe(faultTable());
  });

  test('nothing the package ships knows a fault: no file of reference/ or harness/ names one or imports faults/', () => {
    const problems = ['reference/', 'harness/'].flatMap((folder) => {
      const root = fileURLToPath(new URL(`../../${folder}`, import.meta.url));
      const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
      expect(files.length, folder).toBeGreaterThan(40);
      return files.flatMap((file) => {
        const code = readFileSync(join(root, file), 'utf8');
        return [
          ...FAULT_NAMES.filter((name) => code.includes(`'${name}'`)).map((name) => `${folder}${file} names the fault ${name}`),
          ...(/faults\.has\(|options\.faults/.test(code) ? [`${folder}${file} asks which faults are on`] : []),
          ...(/from '[./]*faults\//.test(code) ? [`${folder}${file} imports from faults/`] : []),
        ];
      });
    });
    expect(problems).toEqual([]);
  });

  test('--faults is read by name, trimmed and de-duplicated; an unknown or empty list is refused naming the known faults', () => {
    expect(parseFaults(' send.status-not-queued , webhooks.unsigned,send.status-not-queued')).toEqual(['send.status-not-queued', 'webhooks.unsigned']);
    expect(() => parseFaults('send.status-not-queued,nope')).toThrow(ConfigError);
    expect(() => parseFaults('nope')).toThrow(/unknown fault "nope"; known faults: .*send\.missing-key-accepted/);
    expect(() => parseFaults(' , ')).toThrow(/needs at least one fault name/);
  });

  test('the reference as shipped takes no fault: its command line refuses --faults, and no environment variable turns one on', () => {
    expect(() => parseCommandLine(['--faults', 'webhooks.unsigned'])).toThrow(ConfigError);
    process.env.CONFORMANCE_REFERENCE_FAULTS = 'send.status-not-queued';
    try {
      expect(parseCommandLine([])).not.toHaveProperty('faults');
    } finally {
      delete process.env.CONFORMANCE_REFERENCE_FAULTS;
    }
  });

  test('the banner names every active fault and the requirement it breaks', () => {
    const banner = faultBanner(['send.status-not-queued', 'webhooks.unsigned']);
    expect(banner).toContain('FAULTS INJECTED');
    expect(banner).toMatch(/send\.status-not-queued\s+breaks SEND-008/);
    expect(banner).toMatch(/webhooks\.unsigned\s+breaks WH-101/);
    expect(banner.split('\n').length).toBeGreaterThan(5);
    expect(faultBanner([])).toBe('');
  });
});

/** The entry that starts the reference with faults (not part of the package). */
const FAULTS_ENTRY = 'faults/main.ts';

test.describe('the CLI', () => {
  test('an unknown fault name is a one-line error listing the known faults, exit code 2', async () => {
    const server = runServer(['--faults', 'send.status-not-queued,no.such-fault'], FAULTS_ENTRY);
    expect(await server.exited).toBe(2);
    expect(server.stderr()).toMatch(/error: --faults: unknown fault "no.such-fault"; known faults: .*webhooks\.unsigned/);
    expect(server.stderr()).not.toMatch(/\n\s+at /);
  });

  test('a server started with faults announces each on stderr, in a banner and a warn log line', async () => {
    const server = runServer(['--port', '0', '--db', ':memory:', '--faults', 'send.status-not-queued,auth.expired-token-accepted'], FAULTS_ENTRY);
    try {
      await server.listening;
      await expect.poll(() => server.stderr()).toContain('"level":40');
      const stderr = server.stderr();
      expect(stderr).toContain('FAULTS INJECTED');
      expect(stderr).toMatch(/!!\s+send\.status-not-queued\s+breaks SEND-008/);
      expect(stderr).toMatch(/!!\s+auth\.expired-token-accepted\s+breaks AUTH-003/);
      const warns = stderr.split('\n').filter((line) => line.includes('"level":40')).map((line) => JSON.parse(line) as Record<string, unknown>);
      // the reference's own warning of a changed server, and the faults' list
      expect(warns).toContainEqual(expect.objectContaining({ extensions: ['faults send.status-not-queued, auth.expired-token-accepted'] }));
      expect(warns).toContainEqual(expect.objectContaining({ faults: ['send.status-not-queued', 'auth.expired-token-accepted'] }));
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  test('the faults entry without --faults refuses to start, exit code 2; the reference\'s own refuses --faults, exit code 2', async () => {
    const bare = runServer(['--port', '0', '--db', ':memory:'], FAULTS_ENTRY);
    expect(await bare.exited).toBe(2);
    expect(bare.stderr()).toMatch(/error: --faults is required here/);
    const shipped = runServer(['--port', '0', '--db', ':memory:', '--faults', 'webhooks.unsigned']);
    expect(await shipped.exited).toBe(2);
    expect(shipped.stderr()).not.toContain('FAULTS INJECTED');
  });

  test('a server started without --faults prints no banner', async () => {
    const server = runServer(['--port', '0', '--db', ':memory:']);
    try {
      await server.listening;
      expect(server.stderr()).not.toContain('FAULTS');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});

test.describe('without faults', () => {
  test('every probe finds the behaviour its requirement asks for', async ({ server }) => {
    // Every probe in turn on one server (about 300, some waiting for callbacks): a minute on a busy machine.
    test.setTimeout(240_000);
    for (const name of FAULT_NAMES) {
      expect(await PROBES[name](server), `${name}: the clean server behaves`).toBe(true);
    }
  });
});

for (const name of FAULT_NAMES) {
  test.describe(`with ${name}`, () => {
    test.use({ serverOptions: { extensions: [faultExtension([name])] } });

    test(`the behaviour ${FAULTS[name].breaks[0]} asks for is broken`, async ({ server }) => {
      expect(await PROBES[name](server), `${name}: ${FAULTS[name].description}`).toBe(false);
    });
  });
}
