// Reads `evidence` attachments into redacted exchanges. Accepted shapes (application/json):
// the harness's `{ exchanges: [...], omitted: N }`, a bare array of exchanges, or one exchange. A malformed attachment is reported, not fatal: the test's own
// verdict does not depend on it.
import { readFileSync } from 'node:fs';
import { redactExchange, type ExchangeInput } from './redact.ts';
import type { Exchange } from './types.ts';

export const EVIDENCE_ATTACHMENT = 'evidence';

export interface AttachmentLike {
  name: string;
  contentType: string;
  path?: string;
  body?: Buffer;
}

function isExchange(v: unknown): v is ExchangeInput {
  if (typeof v !== 'object' || v === null) return false;
  const r = (v as { request?: unknown }).request;
  return typeof r === 'object' && r !== null && 'method' in r && 'url' in r;
}

/** Exchanges from every `evidence` attachment, redacted, plus a note per unreadable one. */
export function readEvidence(attachments: readonly AttachmentLike[]): { exchanges: Exchange[]; omitted: number; problems: string[] } {
  const exchanges: Exchange[] = [];
  const problems: string[] = [];
  let omitted = 0;
  for (const a of attachments) {
    if (a.name !== EVIDENCE_ATTACHMENT) continue;
    let parsed: unknown;
    try {
      const text = a.body ? a.body.toString('utf8') : a.path ? readFileSync(a.path, 'utf8') : '';
      parsed = JSON.parse(text);
    } catch (e) {
      problems.push(`evidence attachment unreadable: ${(e as Error).message}`);
      continue;
    }
    let list: unknown[];
    if (Array.isArray(parsed)) list = parsed;
    else if (typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { exchanges?: unknown }).exchanges)) {
      const log = parsed as { exchanges: unknown[]; omitted?: unknown };
      list = log.exchanges;
      if (typeof log.omitted === 'number' && log.omitted > 0) omitted += log.omitted;
    } else list = [parsed];
    for (const x of list) {
      if (isExchange(x)) exchanges.push(redactExchange(x));
      else problems.push('evidence attachment holds an entry without request.method and request.url');
    }
  }
  return { exchanges, omitted, problems };
}
