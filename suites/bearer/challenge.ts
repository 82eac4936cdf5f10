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

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** name=value, the value a token or a quoted string; a value never starts with '=' (that is token68 padding). */
const PARAM = new RegExp(`^(${TOKEN})\\s*=\\s*("(?:[^"\\\\]|\\\\.)*"|[^\\s="][^\\s]*)$`);
const HEAD = new RegExp(`^(${TOKEN})(?:\\s+(.*))?$`, 's');

export function parseChallenges(value: string): Challenge[] {
  const challenges: Challenge[] = [];
  for (const raw of splitOutsideQuotes(value)) {
    const part = raw.trim();
    if (part === '') continue;
    const param = PARAM.exec(part);
    const current = challenges[challenges.length - 1];
    if (param && current) {
      current.params[param[1]!.toLowerCase()] = unquote(param[2]!);
      continue;
    }
    const head = HEAD.exec(part);
    if (!head) continue;
    const challenge: Challenge = { scheme: head[1]!, params: {} };
    const rest = head[2]?.trim();
    if (rest) {
      // After the scheme comes either the first auth-param or a token68 (which may end in '=').
      const first = PARAM.exec(rest);
      if (first) challenge.params[first[1]!.toLowerCase()] = unquote(first[2]!);
      else challenge.token68 = rest;
    }
    challenges.push(challenge);
  }
  return challenges;
}

/** The Bearer challenge of a WWW-Authenticate value (scheme compared case-insensitively). */
export function bearerChallenge(value: string | undefined): Challenge | undefined {
  if (!value) return undefined;
  return parseChallenges(value).find((c) => c.scheme.toLowerCase() === 'bearer');
}

function splitOutsideQuotes(value: string): string[] {
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
  return parts;
}

function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  return value.slice(1, -1).replace(/\\(.)/g, '$1');
}
