import { isE164Syntax } from '../../generators/e164-syntax.ts';

/**
 * An independent reading of section 4.6, for the generators' tests only: which rules a
 * request breaks. Requirement IDs name the document's rules; names in lower case are
 * breakages no requirement lists (a wrong type, a limit), which a generator must not cause
 * by accident either.
 */
export interface SenderKnowledge {
  /** Owned numberIds with a campaignregId. */
  sendable: readonly string[];
  /** numberIds of another client. */
  foreign?: readonly string[];
  /** Owned numberIds without a campaignregId. */
  unregistered?: readonly string[];
}

export function brokenRules(payload: Record<string, unknown>, headers: Record<string, string>, senders: SenderKnowledge): string[] {
  const broken: string[] = [];
  const key = Object.entries(headers).find(([name]) => name.toLowerCase() === 'idempotency-key')?.[1];
  if (key === undefined || key === '') broken.push('SEND-001');

  const { sendFrom, to, messageType, text, media, externalReference } = payload;
  if (!('sendFrom' in payload) || !('to' in payload) || !('messageType' in payload)) broken.push('SEND-014');

  if ('messageType' in payload && messageType !== 'SMS' && messageType !== 'MMS') broken.push('SEND-012');
  if (messageType === 'SMS' && 'media' in payload) broken.push('SEND-002');
  if (messageType === 'MMS' && !('media' in payload)) broken.push('SEND-003');

  if ('sendFrom' in payload) {
    if (isE164Syntax(sendFrom)) broken.push('SEND-006');
    else if (senders.foreign?.includes(sendFrom as string)) broken.push('SEND-004');
    else if (senders.unregistered?.includes(sendFrom as string)) broken.push('SEND-005');
    else if (!senders.sendable.includes(sendFrom as string)) broken.push('unknown sendFrom');
  }

  if ('to' in payload) {
    if (!Array.isArray(to)) broken.push('to not an array');
    else if (to.length === 0) broken.push('SEND-011');
    else {
      if (!to.every(isE164Syntax)) broken.push('SEND-007');
      if (new Set(to).size !== to.length) broken.push('repeated recipient');
      if (to.length > 100) broken.push('over 100 recipients');
    }
  }

  if (!('externalReference' in payload)) broken.push('SEND-013');
  else if (typeof externalReference !== 'string' || externalReference.length === 0) broken.push('externalReference not a non-empty string');

  if ('text' in payload && (typeof text !== 'string' || text.length > 1600 || hasLoneSurrogate(text))) broken.push('text not a string within 1600');
  if ('media' in payload && !validMedia(media)) broken.push('media malformed');

  const known = new Set(['sendFrom', 'to', 'messageType', 'text', 'media', 'externalReference']);
  if (Object.keys(payload).some((field) => !known.has(field))) broken.push('unknown field');
  return broken;
}

export function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

function validMedia(media: unknown): boolean {
  if (!Array.isArray(media) || media.length < 1 || media.length > 10) return false;
  return media.every((item) => {
    const { url, contentType, ...rest } = (item ?? {}) as Record<string, unknown>;
    if (Object.keys(rest).length > 0 || typeof url !== 'string' || typeof contentType !== 'string') return false;
    if (!/^[a-z]+\/[a-z0-9.+-]+$/.test(contentType)) return false;
    try {
      const parsed = new URL(url);
      return parsed.protocol === 'https:' && parsed.href === url;
    } catch {
      return false;
    }
  });
}
