import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';
import { ConfigError } from '../errors.ts';

// Profile webhook.targets (OWASP API7, server-side request forgery): a webhook URL a client sets
// is a request the server will make on its behalf, from inside the server's network. So a target
// whose address is in a loopback, private, link-local (the cloud metadata service at
// 169.254.169.254), unspecified, multicast or otherwise reserved range is refused, when it is set
// and again at every delivery, after DNS resolution and on the very address the delivery connects
// to (a name that resolved to a public address when it was set may resolve elsewhere later). The
// operator may allow hosts or ranges (--allow-webhook-host), for a receiver on a private network
// or on this machine; the server's own port is refused even then, so a delivery never reaches
// the control plane.

/**
 * Why a target is refused; `own-server` is the server's own listening address and port,
 * `credentials` a URL with a user name or password in it (user:password@host).
 */
export type RefusalReason = 'loopback' | 'private' | 'link-local' | 'unspecified' | 'multicast' | 'reserved' | 'own-server' | 'not-http' | 'credentials';

export type TargetCheck = { ok: true } | { ok: false; reason: RefusalReason; address?: string };

/**
 * Whether a URL carries a user name or password (user:password@host). Such a target is refused
 * wherever it is set: the credentials would be stored and shown in clear (the numbers list, the
 * update's answer, --fixtures-out) and never sent, since a receiver knows the server by the
 * callback's signature.
 */
export function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

/** The ranges a target may not reach unless allowed: [reason, network, prefix length]. */
const REFUSED_RANGES: ReadonlyArray<readonly [RefusalReason, string, number]> = [
  ['unspecified', '0.0.0.0', 8], // "this network" (RFC 791): 0.0.0.0 reaches the local host
  ['private', '10.0.0.0', 8], // RFC 1918
  ['private', '100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16], // RFC 3927; 169.254.169.254 is the cloud metadata service
  ['private', '172.16.0.0', 12], // RFC 1918
  ['reserved', '192.0.0.0', 24], // IETF protocol assignments (RFC 6890)
  ['reserved', '192.0.2.0', 24], // documentation (RFC 5737)
  ['reserved', '192.88.99.0', 24], // 6to4 relay anycast (RFC 7526)
  ['private', '192.168.0.0', 16], // RFC 1918
  ['reserved', '198.18.0.0', 15], // benchmarking (RFC 2544)
  ['reserved', '198.51.100.0', 24], // documentation
  ['reserved', '203.0.113.0', 24], // documentation
  ['multicast', '224.0.0.0', 4],
  ['reserved', '240.0.0.0', 4], // future use, and 255.255.255.255
  ['unspecified', '::', 128],
  ['loopback', '::1', 128],
  ['reserved', '64:ff9b:1::', 48], // local-use IPv4/IPv6 translation (RFC 8215)
  ['reserved', '100::', 64], // discard-only (RFC 6666)
  ['reserved', '2001::', 23], // IETF protocol assignments, Teredo among them (RFC 6890)
  ['reserved', '2001:db8::', 32], // documentation (RFC 3849)
  ['private', 'fc00::', 7], // unique local (RFC 4193)
  ['link-local', 'fe80::', 10],
  ['private', 'fec0::', 10], // site-local, deprecated (RFC 3879)
  ['multicast', 'ff00::', 8],
];

const familyOf = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/**
 * The IPv4 address an IPv6 address carries, where a packet to it may end up at that IPv4
 * address: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96) and
 * 6to4 (2002::/16).
 */
export function embeddedIpv4(address: string): string | undefined {
  if (isIP(address) !== 6) return undefined;
  // ipaddr.js reads every IPv6 spelling (::, an embedded dotted quad, a zone index).
  const bytes = ipaddr.IPv6.parse(address).toByteArray();
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const quad = (at: number) => bytes.slice(at, at + 4).join('.');
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return quad(12);
  if (zeros(0, 12)) return quad(12); // ::a.b.c.d (:: and ::1 match their own ranges first)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return quad(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return quad(2);
  return undefined;
}

/** One --allow-webhook-host entry: an address, a CIDR range, or a host name. */
type Allowed = { kind: 'range'; list: BlockList } | { kind: 'name'; name: string };

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i;

/** Reads one --allow-webhook-host value; anything else is a ConfigError naming it. */
export function parseAllowedHost(entry: string): Allowed {
  const [address, prefix, extra] = entry.split('/');
  if (isIP(address!) && extra === undefined) {
    const family = familyOf(address!);
    const bits = family === 'ipv6' ? 128 : 32;
    const length = prefix === undefined ? bits : Number(prefix);
    if (!/^\d+$/.test(prefix ?? '0') || length > bits) throw new ConfigError(`--allow-webhook-host: "${entry}" has a prefix length outside 0-${bits}`);
    const list = new BlockList();
    list.addSubnet(address!, length, family);
    return { kind: 'range', list };
  }
  if (prefix === undefined && HOST_NAME.test(entry)) return { kind: 'name', name: entry.toLowerCase().replace(/\.$/, '') };
  throw new ConfigError(`--allow-webhook-host: "${entry}" is not an IP address, a CIDR range (10.0.0.0/8) or a host name`);
}

export type Resolve = (hostname: string) => Promise<Array<{ address: string }>>;

const resolveAll: Resolve = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** A delivery refused by the target check; the dispatcher settles its event without retrying. */
export class TargetRefused extends Error {
  constructor(readonly check: Extract<TargetCheck, { ok: false }>) {
    super(`webhook target refused: ${check.reason}${check.address ? ` (${check.address})` : ''}`);
    this.name = 'TargetRefused';
  }
}

export class WebhookTargets {
  private readonly refused = new Map<RefusalReason, BlockList>();
  private readonly allowedRanges: BlockList[] = [];
  private readonly allowedNames = new Set<string>();
  private localAddresses: { at: number; list: BlockList } | undefined;
  /** The port the server listens on, once it does; a delivery to this machine on it is refused. */
  listeningPort: () => number | undefined = () => undefined;

  constructor(
    allow: readonly string[] = [],
    private readonly resolve: Resolve = resolveAll,
  ) {
    for (const [reason, network, prefix] of REFUSED_RANGES) {
      if (!this.refused.has(reason)) this.refused.set(reason, new BlockList());
      this.refused.get(reason)!.addSubnet(network, prefix, familyOf(network));
    }
    for (const entry of allow) {
      const allowed = parseAllowedHost(entry);
      if (allowed.kind === 'range') this.allowedRanges.push(allowed.list);
      else this.allowedNames.add(allowed.name);
    }
  }

  /**
   * The check when a client sets a target (400 on refusal). A host name is resolved; one that
   * does not resolve now is accepted, and its delivery is checked when it is made.
   */
  async check(url: string): Promise<TargetCheck> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { ok: false, reason: 'not-http' };
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { ok: false, reason: 'not-http' };
    if (hasCredentials(url)) return { ok: false, reason: 'credentials' };
    const hostname = parsed.hostname.replace(/^\[|\]$/g, '');
    const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
    const resolved = await this.addressesOf(hostname).catch(() => undefined);
    if (resolved === undefined) return { ok: true };
    return this.checkAddresses(hostname, resolved, port);
  }

  /**
   * The check at delivery, on the addresses the connection will use: the address to connect to,
   * or the refusal. Every address a name resolves to must pass, so that no answer of a
   * round-robin or rebinding name slips through.
   */
  async resolveForDelivery(hostname: string, port: number): Promise<{ ok: true; address: string } | Extract<TargetCheck, { ok: false }>> {
    const addresses = await this.addressesOf(hostname);
    const check = this.checkAddresses(hostname, addresses, port);
    return check.ok ? { ok: true, address: addresses[0]! } : check;
  }

  /** Why this address is refused as a target, or undefined when it may be one. */
  refusalOf(address: string): RefusalReason | undefined {
    const candidates = [address, embeddedIpv4(address)].filter((a): a is string => a !== undefined);
    for (const candidate of candidates) {
      if (this.allowedRanges.some((list) => list.check(candidate, familyOf(candidate)))) return undefined;
    }
    for (const candidate of candidates) {
      for (const [reason, list] of this.refused) if (list.check(candidate, familyOf(candidate))) return reason;
    }
    return undefined;
  }

  private async addressesOf(hostname: string): Promise<string[]> {
    if (isIP(hostname)) return [hostname];
    const answers = await this.resolve(hostname);
    if (answers.length === 0) throw new Error(`${hostname} has no address`);
    return answers.map((answer) => answer.address);
  }

  private checkAddresses(hostname: string, addresses: readonly string[], port: number): TargetCheck {
    for (const address of addresses) {
      if (port === this.listeningPort() && this.isThisMachine(address)) return { ok: false, reason: 'own-server', address };
    }
    if (this.allowedNames.has(hostname.toLowerCase().replace(/\.$/, ''))) return { ok: true };
    for (const address of addresses) {
      const reason = this.refusalOf(address);
      if (reason) return { ok: false, reason, address };
    }
    return { ok: true };
  }

  /** Loopback, unspecified, or an address of one of this machine's interfaces. */
  private isThisMachine(address: string): boolean {
    const candidates = [address, embeddedIpv4(address)].filter((a): a is string => a !== undefined);
    const local = this.localList();
    return candidates.some((candidate) => ['loopback', 'unspecified'].includes(this.rangeOf(candidate) ?? '') || local.check(candidate, familyOf(candidate)));
  }

  private rangeOf(address: string): RefusalReason | undefined {
    for (const [reason, list] of this.refused) if (list.check(address, familyOf(address))) return reason;
    return undefined;
  }

  private localList(): BlockList {
    // Interfaces rarely change; read them at most once a few seconds.
    if (!this.localAddresses || Date.now() - this.localAddresses.at > 5000) {
      const list = new BlockList();
      for (const entries of Object.values(networkInterfaces())) {
        for (const entry of entries ?? []) list.addAddress(entry.address.replace(/%.*$/, ''), entry.family === 'IPv6' ? 'ipv6' : 'ipv4');
      }
      this.localAddresses = { at: Date.now(), list };
    }
    return this.localAddresses.list;
  }
}
