import { CoreError } from '../errors.ts';
import type { ClientRecord } from '../store/clients.ts';

/** What an API client may be allowed (profile whoami.fields): each gates the operation of its name. */
export type Capability = 'SMS' | 'MMS' | 'NUMBER_SEARCH';

/**
 * Profile client.capabilities (CTX-202): an operation the client's capabilities do not include is
 * 403 FORBIDDEN (section 7.3, authorization: the client is not allowed it, whatever it sends).
 */
export function requireCapability(client: ClientRecord, capability: Capability): void {
  if (!client.capabilities.includes(capability)) {
    throw new CoreError('FORBIDDEN', `This API client does not have the ${capability} capability.`, { capability });
  }
}

/**
 * Profile client.status (CTX-203): only an ACTIVE client is served. A SUSPENDED client's token, issued
 * before the suspension, is 403 FORBIDDEN on every core route, and its body names the status a
 * client is told to check (section 5.5).
 */
export function requireActive(client: ClientRecord): void {
  if (client.status !== 'ACTIVE') {
    throw new CoreError('FORBIDDEN', `This API client is ${client.status}; check its account status.`, { apiClientStatus: client.status });
  }
}
