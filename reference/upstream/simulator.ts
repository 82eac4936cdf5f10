import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { findAvailable, type SearchCriteria } from './inventory.ts';
import { triggeredMode, UPSTREAM_STATUS_HEADER, type UpstreamMode } from './triggers.ts';

// A small inventory provider that the reference searches over real HTTP. It can be told to
// answer normally, to fail with a status, or to stall (hold the request without answering); one
// search alone may ask for a failure or a stall (triggers.ts).
//   POST /v1/inventory/search  {npa?, nxx?, city?, state?, zipCode?, rateCenter?, quantity}
//        [Sandbox-Upstream-Status: 400-599]
//        -> 200 {total, numbers: [{phoneNumber, npa, nxx, city, state, rateCenter}]}
//   PUT  /_sim/mode            {mode: "ok" | "fail" | "stall", status?: number}


export interface UpstreamSimulator {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;

function readJson(request: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new Error('body too large'));
      else chunks.push(chunk);
    });
    request.on('end', () => {
      try {
        resolve(chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    request.on('error', reject);
  });
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

export function parseMode(body: unknown): UpstreamMode | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { mode, status } = body as { mode?: unknown; status?: unknown };
  if (mode === 'ok' || mode === 'stall') return { mode };
  if (mode !== 'fail') return undefined;
  if (status === undefined) return { mode, status: 503 };
  return Number.isInteger(status) && (status as number) >= 300 && (status as number) <= 599 ? { mode, status: status as number } : undefined;
}

export async function startUpstreamSimulator(host = '127.0.0.1', port = 0): Promise<UpstreamSimulator> {
  let current: UpstreamMode = { mode: 'ok' };
  const stalled = new Set<ServerResponse>();

  const releaseStalled = () => {
    for (const response of stalled) response.destroy();
    stalled.clear();
  };

  const server = createServer(async (request, response) => {
    let body: unknown;
    try {
      body = await readJson(request);
    } catch {
      answer(response, 400, { error: 'invalid JSON body' });
      return;
    }
    if (request.method === 'PUT' && request.url === '/_sim/mode') {
      const mode = parseMode(body);
      if (!mode) return answer(response, 400, { error: 'mode must be ok, fail (with a 3xx, 4xx or 5xx status) or stall' });
      current = mode;
      if (mode.mode !== 'stall') releaseStalled();
      return answer(response, 200, mode);
    }
    if (request.method === 'POST' && request.url === '/v1/inventory/search') {
      const mode = triggeredMode(body as SearchCriteria, request.headers[UPSTREAM_STATUS_HEADER]) ?? current;
      if (mode.mode === 'stall') {
        stalled.add(response);
        response.on('close', () => stalled.delete(response));
        return;
      }
      if (mode.mode === 'fail') return answer(response, mode.status, { error: 'simulated provider failure' });
      const { quantity, ...criteria } = body as SearchCriteria & { quantity?: number };
      const found = findAvailable(criteria);
      return answer(response, 200, { total: found.length, numbers: found.slice(0, quantity ?? 10) });
    }
    answer(response, 404, { error: 'not found' });
  });

  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        releaseStalled();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
