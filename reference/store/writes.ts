import type { Writer } from '../db/writer.ts';
import type { WriteCommand, WriteCommands, WriteOp, WriteResult } from './commands.ts';
import type { Stores } from './index.ts';

export type Command<K extends WriteOp> = { op: K } & WriteCommands[K]['args'];

// Writes after which a cached token lookup may be stale: a token lost its lifetime, or the
// client record it resolves to changed.
const STALES_TOKEN_CACHE: ReadonlySet<WriteOp> = new Set<WriteOp>(['expireTokens', 'setClientWebhooks', 'setClientStatus', 'resetToSeed']);
const STALES_NUMBER_CACHE: ReadonlySet<WriteOp> = new Set<WriteOp>(['updateNumber', 'resetToSeed']);

/** The one way the server writes: typed commands, each settled once it is committed. */
export class Writes {
  constructor(
    private readonly writer: Writer,
    private readonly stores: Stores,
  ) {}

  async run<K extends WriteOp>(command: Command<K>): Promise<WriteResult<K>> {
    const result = (await this.writer.run(command as WriteCommand)) as WriteResult<K>;
    if (STALES_TOKEN_CACHE.has(command.op)) this.stores.clients.forgetCachedTokens();
    if (STALES_NUMBER_CACHE.has(command.op)) this.stores.numbers.forgetCached();
    return result;
  }

  close(): Promise<void> {
    return this.writer.close();
  }
}
