import { randomFillSync } from 'node:crypto';

// Random hex is drawn from a pooled buffer refilled in one call, and the time prefix is
// formatted once per millisecond: ids are made several times per request.
const POOL_BYTES = 4096;
const RANDOM_HEX_PER_ID = 19;
let pool = '';
let poolOffset = 0;
let lastTime = -1;
let timeHex = '';

function randomHex(length: number): string {
  if (poolOffset + length > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES)).toString('hex');
    poolOffset = 0;
  }
  poolOffset += length;
  return pool.slice(poolOffset - length, poolOffset);
}

/**
 * Opaque identifiers: a readable prefix and a UUIDv7 (RFC 9562) in hex, that is the creation
 * time in milliseconds followed by the version and 74 random bits. numberIds are never
 * E.164-shaped (NUM-004). Time first makes each new id sort after the earlier ones, so inserting it
 * touches the last pages of an id index instead of a random page per row; with random ids every
 * commit rewrote one page per row and index, which dominated the writer's cost.
 */
export function newId(prefix: 'num' | 'msg' | 'cnt' | 'evt' | 'req'): string {
  const now = Date.now();
  if (now !== lastTime) {
    lastTime = now;
    timeHex = now.toString(16).padStart(12, '0');
  }
  const random = randomHex(RANDOM_HEX_PER_ID);
  // RFC 9562 5.7: version 7 after the time; the variant's top bits (10) in the next group.
  const variant = ((parseInt(random[3]!, 16) & 0x3) | 0x8).toString(16);
  return `${prefix}_${timeHex}7${random.slice(0, 3)}${variant}${random.slice(4)}`;
}
