import { OAuthError } from '../errors.ts';

/** A form-encoded body, kept with every value of every parameter so repeats can be refused. */
export class FormParameters {
  constructor(readonly values: ReadonlyMap<string, readonly string[]>) {}

  static parse(text: string): FormParameters {
    const values = new Map<string, string[]>();
    for (const [name, value] of new URLSearchParams(text)) {
      values.set(name, [...(values.get(name) ?? []), value]);
    }
    return new FormParameters(values);
  }
}

export interface TokenParameters {
  grantType?: string;
  clientId?: string;
  clientSecret?: string;
}

const NAMES = { grant_type: 'grantType', client_id: 'clientId', client_secret: 'clientSecret' } as const;

/**
 * RFC 6749 3.2: empty parameters count as absent (TOKEN-108), unknown ones are ignored
 * (TOKEN-109), none may repeat (TOKEN-110).
 * JSON bodies (this interface's extension) follow the same rules; a non-string value is invalid.
 */
export function readTokenParameters(body: unknown): TokenParameters {
  const parameters: TokenParameters = {};
  if (body === undefined || body === null) return parameters;
  for (const [wire, name] of Object.entries(NAMES) as Array<[keyof typeof NAMES, keyof TokenParameters]>) {
    let value: unknown;
    if (body instanceof FormParameters) {
      const all = body.values.get(wire) ?? [];
      if (all.length > 1) throw new OAuthError('invalid_request', `${wire} must not be repeated.`);
      value = all[0];
    } else if (typeof body === 'object' && !Array.isArray(body)) {
      value = (body as Record<string, unknown>)[wire];
    } else {
      throw new OAuthError('invalid_request', 'The request body must be a JSON object or form-encoded parameters.');
    }
    if (value === undefined || value === null || value === '') continue;
    // TOKEN-012: section 4.1 types each as a string, so no other JSON type issues a token; TOKEN-112: RFC 6749 5.2's invalid_request.
    if (typeof value !== 'string') throw new OAuthError('invalid_request', `${wire} must be a string.`);
    parameters[name] = value;
  }
  return parameters;
}
