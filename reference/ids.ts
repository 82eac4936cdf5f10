import { randomUUID } from 'node:crypto';

/** Opaque identifiers: a readable prefix and 128 random bits. numberIds are never E.164-shaped. */
export function newId(prefix: 'num' | 'msg' | 'evt' | 'req'): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}
