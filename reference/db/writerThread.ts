import { parentPort, workerData } from 'node:worker_threads';
import { applyWrite } from '../store/commands.ts';
import { createStores } from '../store/index.ts';
import { openDatabase } from './open.ts';
import type { Committed, FromWriter, ToWriter, WriteItem, WriterThreadOptions } from './writer.ts';
import { WriteQueue } from './writeQueue.ts';

// The writer thread: the only place durable writes are made once the server runs. Its commits
// (and their fsyncs) block this thread only, so the main thread keeps parsing, validating and
// answering requests while a batch syncs, and the next batch gathers meanwhile.

const port = parentPort!;
const { path, synchronous } = workerData as WriterThreadOptions;
const db = openDatabase({ path, fresh: false, synchronous });
const stores = createStores(db);

const queue = new WriteQueue<WriteItem>(
  db,
  (item) => applyWrite(stores, item.command),
  (batch, outcomes) => {
    const committed: Committed = { ids: batch.map((item) => item.id), outcomes };
    port.postMessage({ kind: 'committed', json: JSON.stringify(committed) } satisfies FromWriter);
  },
);

port.on('message', (message: ToWriter) => {
  if (message.kind === 'write') {
    for (const item of JSON.parse(message.json) as WriteItem[]) queue.add(item);
    return;
  }
  // close: commit what is queued, answer it, and let the thread end.
  queue.flush();
  db.close();
  port.close();
});

port.postMessage({ kind: 'ready' } satisfies FromWriter);
