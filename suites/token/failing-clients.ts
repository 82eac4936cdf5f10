import type { ClientCredentials, Target } from '../../harness/config.ts';

/**
 * The configured client a check fails client authentication as (a wrong or near-miss secret).
 * Token endpoints limit failed authentications per client id, as the bundled reference does (10 a
 * minute per client id, 30 per source: reference/README.md, Limits and defenses), and answer
 * 429 past the limit, which the harness waits out. The token area fails authentication fourteen
 * times; all on the primary client, beside the decision table's, a limit of 10 a minute made the
 * run wait out four 429s of about 5 s each. Spread over the clients the config names, each stays
 * under its limit (and a target whose limit is lower meets it later), while every failure still
 * shows what TOKEN-007 and the standard's checks ask of any client's failed authentication.
 * `turn` numbers the failures of the area (each check its own, 0 to 7 for a secret in the body,
 * 0 to 5 in HTTP Basic), so a check fails as the same client on every run and the clients take
 * them in turn. HTTP Basic failures use the primary and secondary clients only: the special
 * client's ':' and '+' are TOKEN-107's own check, and a server that mishandled them must not
 * fail another one.
 */
export function failingClient(target: Target, turn: number, how: 'body' | 'basic' = 'body'): ClientCredentials {
  const { primary, secondary, special } = target.clients;
  const clients = [primary, ...(secondary ? [secondary] : []), ...(special && how === 'body' ? [special] : [])];
  return clients[turn % clients.length]!;
}
