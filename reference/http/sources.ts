import { isIP } from 'node:net';

// What the per-source limits count by (reference/README.md, Limits and defenses): the client's
// socket address, with no proxy header trusted. An IPv4 address is its own source (an
// IPv4-mapped IPv6 address, as a dual-stack listener sees IPv4 clients, counts as that IPv4
// address); an IPv6 address counts as its /64 network, which one host or one customer commonly
// holds whole, so that rotating through the addresses of one's own /64 does not multiply a limit.

/** The source a socket address is limited as: `a.b.c.d`, or `xxxx:xxxx:xxxx:xxxx::/64`; '' when unknown. */
export function sourceOf(address: string | undefined): string {
  if (address === undefined) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIP(address) !== 6) return address;
  return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, in lower-case hex without leading zeros (a zone index dropped). */
function ipv6Groups(address: string): string[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const front = groups(head);
  const back = groups(tail);
  const all = tail === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return all.map((group) => parseInt(group, 16).toString(16));
}

/** A count per source (open connections, requests in progress); a source at zero is forgotten. */
export class SourceCounts {
  private readonly counts = new Map<string, number>();

  /** One more for `source`; the new count. */
  add(source: string): number {
    const count = (this.counts.get(source) ?? 0) + 1;
    this.counts.set(source, count);
    return count;
  }

  /** One fewer for `source`. */
  remove(source: string): void {
    const count = (this.counts.get(source) ?? 0) - 1;
    if (count > 0) this.counts.set(source, count);
    else this.counts.delete(source);
  }

  get(source: string): number {
    return this.counts.get(source) ?? 0;
  }
}
