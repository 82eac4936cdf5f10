import type { Db } from '../db/open.ts';
import { ClientStore } from './clients.ts';
import { IdempotencyStore } from './idempotency.ts';
import { MessageStore } from './messages.ts';
import { NumberStore } from './numbers.ts';
import { OutboxStore } from './outbox.ts';
import { TokenStore } from './tokens.ts';

export interface Stores {
  db: Db;
  clients: ClientStore;
  numbers: NumberStore;
  tokens: TokenStore;
  messages: MessageStore;
  idempotency: IdempotencyStore;
  outbox: OutboxStore;
}

export function createStores(db: Db): Stores {
  return {
    db,
    clients: new ClientStore(db),
    numbers: new NumberStore(db),
    tokens: new TokenStore(db),
    messages: new MessageStore(db),
    idempotency: new IdempotencyStore(db),
    outbox: new OutboxStore(db),
  };
}
