import type { CallOptions } from './api-client.ts';

/**
 * HTTP Basic client credentials as RFC 6749 2.3.1 asks: id and secret are
 * application/x-www-form-urlencoded first, so a ':' or '+' in them survives.
 */
export function basicCredentials(clientId: string, clientSecret: string): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

/** How a client authenticates at the token endpoint (section 5 rule 1): body fields in JSON or in a form, or HTTP Basic beside a form body. */
export type TokenStyle = 'json' | 'form' | 'basic';

/** A token request with these credentials, authenticated as `style` says; `grantType` is client_credentials unless a check varies it. */
export function tokenRequest(style: TokenStyle, { clientId, clientSecret }: { clientId: string; clientSecret: string }, grantType = 'client_credentials'): CallOptions {
  const fields = { grant_type: grantType, client_id: clientId, client_secret: clientSecret };
  if (style === 'json') return { json: fields };
  if (style === 'form') return { form: fields };
  return { form: { grant_type: grantType }, headers: { authorization: basicCredentials(clientId, clientSecret) } };
}
