import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../reference/db/open.ts';
import { WriteQueue } from '../reference/db/writeQueue.ts';
import { buildAcceptance } from '../reference/send/accept.ts';
import type { SendRequest } from '../reference/send/sendRequest.ts';
import type { ClientRecord } from '../reference/store/clients.ts';
import { applyBatch, packCommand, type PackedCommand } from '../reference/store/commands.ts';
import { createStores } from '../reference/store/index.ts';
import type { NumberRecord } from '../reference/store/numbers.ts';
import { REFERENCE_WEBHOOKS } from '../reference/webhooks/policy.ts';

// The durable part of a send alone, without HTTP or threads: the rows of an accepted send
// (buildAcceptance) applied by the reference's own write commands and group commit
// (WriteQueue), on a file database with synchronous=FULL. It shows what a send costs the writer
// at a given batch size, so the end-to-end figure of reference-throughput.ts can be taken apart.
// Prints figures; asserts nothing.
//   npx tsx bench/send-store.ts [--sends 100000] [--batches 1,20,100]

const { values } = parseArgs({
  options: {
    sends: { type: 'string', default: '100000' },
    batches: { type: 'string', default: '1,20,100' },
  },
});
const sends = Number(values.sends);
const batchSizes = values.batches.split(',').map(Number);

const client = { apiClientId: 'cli_bench', webhookSecret: 'whsec_bench', deliveryWebhookUrl: null } as ClientRecord;
const number = { numberId: 'num_0190000000007abc8def0123456789', webhookDeliveryOverride: null } as NumberRecord;
const request: SendRequest = { sendFrom: number.numberId, to: ['+12025550123'], messageType: 'SMS', text: 'benchmark', externalReference: 'bench' };

type KeyStyle = 'random (UUIDv4)' | 'time-ordered';

function run(batchSize: number, keys: KeyStyle, dir: string) {
  const path = join(dir, `store-${batchSize}-${keys === 'time-ordered' ? 'ordered' : 'random'}.db`);
  const db = openDatabase({ path, fresh: true, synchronous: 'FULL' });
  const stores = createStores(db);
  let committed = 0;
  const queue = new WriteQueue<PackedCommand>(db, (batch) => applyBatch(stores, batch), (batch) => (committed += batch.length));
  // Only small runs for batches of one: each is a commit and an fsync.
  const total = batchSize === 1 ? Math.min(sends, 2000) : sends;
  let sequence = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  while (committed < total) {
    for (let i = 0; i < batchSize; i += 1) {
      const nowMs = Date.now();
      const acceptance = buildAcceptance(REFERENCE_WEBHOOKS, client, number, request, 'fingerprint', nowMs);
      sequence += 1;
      const idempotencyKey = keys === 'time-ordered' ? `key-${String(sequence).padStart(12, '0')}` : randomUUID();
      queue.add(packCommand({
        op: 'acceptSend',
        apiClientId: client.apiClientId,
        idempotencyKey,
        nowMs,
        expiresAt: nowMs + 86_400_000,
        rows: { record: acceptance.record, content: acceptance.content, messages: acceptance.messages, events: acceptance.events },
      }));
    }
    queue.flush();
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  db.close();
  return { total, perSecond: total / seconds, userUs: cpu.user / total, systemUs: cpu.system / total, wallUs: (seconds * 1e6) / total };
}

const dir = mkdtempSync(join(tmpdir(), 'send-store-bench-'));
try {
  console.log('durable part of a send (store layer only, synchronous=FULL, one thread)');
  console.log('');
  console.log('batch  keys               sends       sends/s   user us   sys us   wall us  (per send)');
  for (const batchSize of batchSizes) {
    for (const keys of ['random (UUIDv4)', 'time-ordered'] as const) {
      const r = run(batchSize, keys, dir);
      console.log(
        `${String(batchSize).padStart(5)}  ${keys.padEnd(17)} ${String(r.total).padStart(7)}  ${r.perSecond.toFixed(0).padStart(12)}  ${r.userUs.toFixed(1).padStart(8)}  ${r.systemUs.toFixed(1).padStart(7)}  ${r.wallUs.toFixed(1).padStart(8)}`,
      );
    }
  }
  console.log('');
  console.log('batch 1 is a commit (and an fsync) per send; the server commits whatever arrived during the last commit.');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
