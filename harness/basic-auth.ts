/**
 * HTTP Basic client credentials as RFC 6749 2.3.1 asks: id and secret are
 * application/x-www-form-urlencoded first, so a ':' or '+' in them survives.
 */
export function basicCredentials(clientId: string, clientSecret: string): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}
