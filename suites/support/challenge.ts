/**
 * A WWW-Authenticate value read as RFC 9110 11.6.1 writes it: challenges separated by commas,
 * each a scheme followed by auth-params (or a token68), commas inside quoted strings kept.
 * Small on purpose: enough to find the Bearer challenge and its `error` parameter (RFC 6750 3).
 */
export interface Challenge {
  scheme: string;
  /** Parameter names in lower case; quoted values unquoted. */
  params: Record<string, string>;
  token68?: string;
}

/** token68 (RFC 9110 11.2): what may follow a scheme instead of auth-params. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** name=value, the value a token or a quoted string; a value never starts with '=' (that is token68 padding). */
const PARAM = new RegExp(`^(${TOKEN})\\s*=\\s*("(?:[^"\\\\]|\\\\.)*"|[^\\s="][^\\s]*)$`);
const HEAD = new RegExp(`^(${TOKEN})(?:\\s+(.*))?$`, 's');

export function parseChallenges(value: string): Challenge[] {
  return read(value).challenges;
}

/**
 * The parts of a WWW-Authenticate value that RFC 9110 11.6.1's grammar does not take: neither a
 * challenge (a scheme, then an auth-param or a token68) nor an auth-param of the one before, or a
 * quoted string left open. Empty when the whole value parses. A client reading the header with a
 * real parser loses the challenge that holds such a part (a '"' not escaped inside a quoted
 * string ends it early), while parseChallenges above skips it and still finds the rest.
 */
export function malformedParts(value: string): string[] {
  return read(value).malformed;
}

function read(value: string): { challenges: Challenge[]; malformed: string[] } {
  const challenges: Challenge[] = [];
  const malformed: string[] = [];
  const { parts, open } = splitOutsideQuotes(value);
  if (open) malformed.push(`a quoted string left open: ${value}`);
  for (const raw of parts) {
    const part = raw.trim();
    // Empty list elements are allowed (RFC 9110 5.6.1).
    if (part === '') continue;
    const param = PARAM.exec(part);
    const current = challenges[challenges.length - 1];
    if (param && current) {
      current.params[param[1]!.toLowerCase()] = unquote(param[2]!);
      continue;
    }
    const head = HEAD.exec(part);
    if (!head) {
      malformed.push(part);
      continue;
    }
    const challenge: Challenge = { scheme: head[1]!, params: {} };
    const rest = head[2]?.trim();
    if (rest) {
      // After the scheme comes either the first auth-param or a token68 (which may end in '=').
      const first = PARAM.exec(rest);
      if (first) challenge.params[first[1]!.toLowerCase()] = unquote(first[2]!);
      else {
        challenge.token68 = rest;
        if (!TOKEN68.test(rest)) malformed.push(part);
      }
    }
    challenges.push(challenge);
  }
  return { challenges, malformed };
}

/** The Bearer challenge of a WWW-Authenticate value (scheme compared case-insensitively). */
export function bearerChallenge(value: string | undefined): Challenge | undefined {
  if (!value) return undefined;
  return parseChallenges(value).find((c) => c.scheme.toLowerCase() === 'bearer');
}

function splitOutsideQuotes(value: string): { parts: string[]; open: boolean } {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quoted && c === '\\' && i + 1 < value.length) {
      current += c + value[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ',' && !quoted) {
      parts.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  parts.push(current);
  return { parts, open: quoted };
}

function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  return value.slice(1, -1).replace(/\\(.)/g, '$1');
}
