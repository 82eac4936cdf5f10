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
};

/** Why a target is refused, in words: "at a loopback address (127.0.0.1)". */
export function refusalText(check: Extract<TargetCheck, { ok: false }>): string {
  return check.reason === 'not-http' ? WHY[check.reason] : `at ${WHY[check.reason]}${check.address ? ` (${check.address})` : ''}`;
}

/** The 400 of a webhook target the server will not call (profile webhook.targets), naming the field and the reason. */
export function targetRefused(field: string, check: Extract<TargetCheck, { ok: false }>): CoreError {
  return new CoreError('INVALID_REQUEST', `${field} is ${refusalText(check)}; the server does not call such webhook targets.`, {
    field,
    reason: check.reason,
    ...(check.address !== undefined && { address: check.address }),
  });
}
