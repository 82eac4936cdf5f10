export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** application/x-www-form-urlencoded decoding: '+' is a space, then percent-decoding. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/**
 * TOKEN-005, TOKEN-107 (RFC 6749 2.3.1): the client id and secret are form-urlencoded, then joined by ':' and base64
 * encoded as the Basic credentials. Splitting at the first ':' is safe because an encoded id
 * cannot contain one. Returns undefined when the header is not Basic at all, 'malformed' when
 * it is Basic but cannot be decoded.
 */
export function parseBasicCredentials(header: string | undefined): ClientCredentials | 'malformed' | undefined {
  if (header === undefined) return undefined;
  // The scheme first, in any case (TOKEN-114, TOKEN-115), one or more spaces after it, base64 with any padding.
  const match = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (!match) return /^Basic(\s|$)/i.test(header) ? 'malformed' : undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return 'malformed';
  }
}
