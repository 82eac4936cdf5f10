import { hash, randomBytes } from 'node:crypto';

/** Profile token.lifetime: opaque random tokens, 32 bytes, base64url. */
export function newAccessToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Tokens are stored as their SHA-256 so a copy of the database grants nothing. */
export function tokenHash(token: string): string {
  return hash('sha256', token, 'hex');
}
