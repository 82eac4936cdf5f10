import { CoreError } from '../errors.ts';
import type { TargetCheck } from './targets.ts';

const WHY: Record<Extract<TargetCheck, { ok: false }>['reason'], string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  'own-server': "this server's own address and port",
  'not-http': 'not an absolute http(s) URL',
  credentials: 'a URL with credentials in it (user:password@host)',
};

/** Why a target is refused, in words: "at a loopback address (127.0.0.1)". */
export function refusalText(check: Extract<TargetCheck, { ok: false }>): string {
  return check.reason === 'not-http' || check.reason === 'credentials' ? WHY[check.reason] : `at ${WHY[check.reason]}${check.address ? ` (${check.address})` : ''}`;
}

/** What to do about a refused target, for the operator's start-up errors. */
export function refusalRemedy(check: Extract<TargetCheck, { ok: false }>): string {
  return check.reason === 'credentials' ? 'remove the credentials: callbacks are signed (webhook-signature), so the receiver knows the server without them' : 'see --allow-webhook-host';
}

/** A URL as an error message may show it: any credentials in it replaced. */
export function shownUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1[credentials]@');
}

/** The 400 of a webhook target the server will not call (profile webhook.targets), naming the field and the reason. */
export function targetRefused(field: string, check: Extract<TargetCheck, { ok: false }>): CoreError {
  const message =
    check.reason === 'credentials'
      ? `${field} is ${refusalText(check)}; the server does not store or send credentials in a webhook URL: callbacks are signed (webhook-signature), so the receiver knows the server without them.`
      : `${field} is ${refusalText(check)}; the server does not call such webhook targets.`;
  return new CoreError('INVALID_REQUEST', message, {
    field,
    reason: check.reason,
    ...(check.address !== undefined && { address: check.address }),
  });
}
