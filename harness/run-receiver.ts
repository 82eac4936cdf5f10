// The run's receiver for the client webhooks a target declares (triggers.clientWebhooks, kind
// declared): the target's own delivery and inbound webhooks point at one fixed URL for the
// whole run, {public URL}/clients/{role}/{delivery|inbound}, while each worker has its own
// receiver for the channels tests make. So one server in the runner process (the global setup)
// takes that port and appends every callback, a JSON line each, to a file per role and kind
// under the run's folder; tests read the files (RecordedChannel). Many tests' messages arrive
// there, so a test matches its callbacks by messageId or text, never by count.
import { createServer, type Server } from 'node:http';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientWebhookKind, Target } from './config.ts';
import type { InterferenceWatch } from './interference.ts';
import { publicBase, receivedCallback, WebhookChannel, type ReceivedCallback } from './webhook-receiver.ts';

export type { ClientWebhookKind };

const PATH = /^\/clients\/(primary|secondary)\/(delivery|inbound)\/?(?:\?.*)?$/;

function recordFile(runDir: string, role: string, kind: string): string {
  return join(runDir, 'client-webhooks', `${role}-${kind}.jsonl`);
}

/** The URL a declared client webhook of `role` points at. */
export function clientWebhookUrl(target: Target, role: 'primary' | 'secondary', kind: ClientWebhookKind): string {
  const { listenHost, listenPort, publicUrl } = target.webhooks;
  return `${publicBase(listenHost, listenPort, publicUrl)}/clients/${role}/${kind}`;
}

/**
 * The port of worker `index`'s own receiver: webhooks.listenPort and the ones after it, or the
 * ones after it when the run's receiver takes listenPort (declared client webhooks); 0, any free
 * port, when listenPort is 0.
 */
export function workerReceiverPort(target: Target, index: number): number {
  const { listenPort } = target.webhooks;
  if (listenPort === 0) return 0;
  return (target.triggers.clientWebhooks?.kind === 'declared' ? listenPort + 1 : listenPort) + index;
}

/** Start the run's receiver on webhooks.listenPort; resolves to a function that stops it. */
export async function startRunReceiver(target: Target, runDir: string, watch?: InterferenceWatch): Promise<() => Promise<void>> {
  mkdirSync(join(runDir, 'client-webhooks'), { recursive: true });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const match = PATH.exec(path);
      if (!match) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not a client webhook path"}');
      const text = Buffer.concat(chunks).toString('utf8');
      const callback = receivedCallback(req, `${match[1]}-${match[2]}`, text, 200);
      appendFileSync(recordFile(runDir, match[1]!, match[2]!), `${JSON.stringify(callback)}\n`);
      watch?.check(text, `a callback to the ${match[1]} client's ${match[2]} webhook`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new Error(`the run's receiver for the declared client webhooks cannot listen on ${target.webhooks.listenHost}:${target.webhooks.listenPort} (webhooks.listenPort): ${e.message}`)));
    server.listen(target.webhooks.listenPort, target.webhooks.listenHost, () => resolve());
  });
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/**
 * A client webhook's callbacks as the run's receiver recorded them: a WebhookChannel whose
 * callbacks are read from the file while a test waits on it.
 */
export class RecordedChannel extends WebhookChannel {
  private readonly file: string;
  private offset = 0;
  private partial = '';

  constructor(target: Target, runDir: string, role: 'primary' | 'secondary', kind: ClientWebhookKind) {
    super(`${role}-${kind}`, clientWebhookUrl(target, role, kind), `/clients/${role}/${kind}`);
    this.file = recordFile(runDir, role, kind);
  }

  protected override refresh(): void {
    this.sync();
  }

  /** Take in what the run's receiver has recorded since the last look. */
  sync(): void {
    if (!existsSync(this.file)) return;
    const size = statSync(this.file).size;
    if (size <= this.offset) return;
    const fd = openSync(this.file, 'r');
    try {
      const buffer = Buffer.alloc(size - this.offset);
      readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset = size;
      const lines = (this.partial + buffer.toString('utf8')).split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) if (line) this.push(JSON.parse(line) as ReceivedCallback);
    } finally {
      closeSync(fd);
    }
  }

  override async waitFor(...args: Parameters<WebhookChannel['waitFor']>): Promise<ReceivedCallback[]> {
    this.sync();
    const poll = setInterval(() => this.sync(), 50);
    try {
      return await super.waitFor(...args);
    } finally {
      clearInterval(poll);
      this.sync();
    }
  }
}
