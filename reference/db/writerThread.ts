import { parentPort, workerData } from 'node:worker_threads';
import { applyBatch, type PackedCommand } from '../store/commands.ts';
import { createStores } from '../store/index.ts';
import { openDatabase } from './open.ts';
import type { FromWriter, ToWriter, WriterThreadOptions } from './writer.ts';
import { WriteQueue } from './writeQueue.ts';

// The writer thread: the only place durable writes are made once the server runs. Its commits
// (and their fsyncs) block this thread only, so the main thread keeps parsing, validating and
// answering requests while a batch syncs, and the next batch gathers meanwhile.

const port = parentPort!;
const { path, synchronous } = workerData as WriterThreadOptions;
const db = openDatabase({ path, fresh: false, synchronous });
const stores = createStores(db);

const queue = new WriteQueue<PackedCommand>(
  db,
  (batch) => applyBatch(stores, batch),
  (_batch, outcomes) => port.postMessage({ kind: 'committed', json: JSON.stringify(outcomes) } satisfies FromWriter),
);

port.on('message', (message: ToWriter) => {
  if (message.kind === 'write') {
    // The main thread posts one batch at a time and waits for its outcomes, in its order: it is
    // committed at once, as one transaction.
    for (const packed of JSON.parse(message.json) as PackedCommand[]) queue.add(packed);
    queue.flush();
    return;
  }
  // close: commit what is queued, answer it, and let the thread end.
  queue.flush();
  db.close();
  port.close();
});

port.postMessage({ kind: 'ready' } satisfies FromWriter);
