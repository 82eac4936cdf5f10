import type { ApiClient } from '../../harness/api-client.ts';
import { tokenRequest, type TokenStyle } from '../../harness/basic-auth.ts';

/** The three ways section 5 rule 1 gives a client to ask for a token: JSON body, form body, HTTP Basic. */
export const TOKEN_WAYS: readonly TokenStyle[] = ['json', 'form', 'basic'];

/**
 * A token of `creds` obtained each way the target issues one (section 5 rule 1), for checks that
 * a rule holds whichever of the client's tokens a request carries: a server that keys a check on
 * how the token was obtained is right on the harness's own token and wrong on another. A way the
 * target refuses is left out (TOKEN-001 and its siblings judge that).
 */
export async function tokensEveryWay(api: ApiClient, creds: { clientId: string; clientSecret: string }): Promise<Array<{ how: TokenStyle; authorization: string }>> {
  const issued = await Promise.all(TOKEN_WAYS.map(async (how) => ({ how, res: await api.call('token', tokenRequest(how, creds)) })));
  return issued.flatMap(({ how, res }) => (res.status >= 200 && res.status < 300 && typeof res.body?.access_token === 'string' ? [{ how, authorization: `Bearer ${res.body.access_token as string}` }] : []));
}
