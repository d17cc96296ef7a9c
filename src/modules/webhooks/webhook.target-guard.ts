// SSRF protection for subscriber URLs. A URL is checked when it is saved and again at every
// delivery; the delivery then connects to exactly the address that was checked (no second DNS
// answer can slip in between: DNS rebinding). DNS is injectable so tests never send traffic to
// private addresses.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { DnsLookup, ResolvedAddress } from '../../shared/dns-lookup.ts';
import { AppError, errors } from '../../shared/errors.ts';

export { systemDnsLookup, type DnsLookup, type ResolvedAddress } from '../../shared/dns-lookup.ts';

export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'reserved';

/** Cloud instance-metadata endpoints outside link-local space (AWS IPv6, Alibaba). */
const METADATA = new Set(
  ['fd00:ec2::254', '100.100.100.200'].map((address) => ipaddr.parse(address).toNormalizedString()),
);

/**
 * ipaddr.js's names for the special ranges (its SpecialRanges tables, RFC 6890 and successors), by
 * what they mean for a webhook target. Every other name (unspecified, broadcast, multicast,
 * documentation, benchmarking, Teredo, ORCHID, AS112, AMT, segment routing, discard...) is
 * `reserved`: a range ipaddr.js learns in a later release is refused until it is placed here.
 */
const CLASSES: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  carrierGradeNat: 'private',
  uniqueLocal: 'private',
  deprecatedSiteLocal: 'private',
  linkLocal: 'link-local',
};

/** IANA's global unicast block: an IPv6 address ipaddr.js calls `unicast` outside it is unassigned space. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** IPv4 hidden in an IPv6 address (mapped ::ffff:a.b.c.d, translated ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16). */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = address.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return v4(parts[6]!, parts[7]!);
    case 'rfc6052':
      // the well-known /96 prefix carries the address in its last 32 bits; the local-use /48 (RFC 8215) is a private network
      return parts[2] === 0 ? v4(parts[6]!, parts[7]!) : new ipaddr.IPv4([10, 0, 0, 0]);
    case '6to4':
      return v4(parts[1]!, parts[2]!);
    default:
      return undefined;
  }
}

export function classifyAddress(address: string): AddressClass {
  if (isIP(address) === 0) return 'reserved'; // only plain dotted quads and IPv6, not ipaddr.js's 0x7f.1 forms
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'reserved';
  }
  if (parsed.kind() === 'ipv6') {
    const v4 = embeddedIpv4(parsed as ipaddr.IPv6);
    if (v4) return classifyAddress(v4.toString());
  }
  if (METADATA.has(parsed.toNormalizedString())) return 'metadata';
  const range = parsed.range();
  if (range === 'unicast' && parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST)) {
    // unassigned space, never a target; the deprecated IPv4-compatible ::a.b.c.d, which some stacks still
    // route to the IPv4 address, is named by that address's class when it is not public
    const parts = (parsed as ipaddr.IPv6).parts;
    const compatible = parts.slice(0, 6).every((part) => part === 0);
    const v4 = new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 255, parts[7]! >> 8, parts[7]! & 255]);
    const kind = compatible ? classifyAddress(v4.toString()) : 'reserved';
    return kind === 'public' ? 'reserved' : kind;
  }
  return CLASSES[range] ?? 'reserved';
}

const unsafe = (detail: string) =>
  new AppError('unsafe_webhook_target', detail, { errors: [{ field: 'url', message: detail }] });

export class WebhookTargetGuard {
  constructor(private readonly options: { allowPrivateTargets: boolean; lookup: DnsLookup }) {}

  /** What may be connected to: loopback and private networks only with the development switch. */
  allows(kind: AddressClass): boolean {
    return kind === 'public' || (this.options.allowPrivateTargets && (kind === 'loopback' || kind === 'private'));
  }

  parse(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      // a malformed address (a port past 65535, no host) is the sender's mistake, not an unsafe target
      throw errors.validation([
        { field: 'url', message: 'must be an absolute URL (a scheme, a host, a port up to 65535)' },
      ]);
    }
    const schemes = this.options.allowPrivateTargets ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(url.protocol)) throw unsafe(`must use ${schemes.map((s) => s.slice(0, -1)).join(' or ')}`);
    if (url.username || url.password) throw unsafe('must not contain credentials');
    // no connection can be made to it (WHATWG URL keeps port 0, and drops only the scheme's default)
    if (url.port === '0') throw unsafe('must not use port 0');
    return url;
  }

  /** Every address the host resolves to must be allowed; the first is the one to connect to. */
  async resolve(url: URL): Promise<ResolvedAddress> {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const literal = isIP(host);
    let addresses: ResolvedAddress[];
    try {
      addresses = literal ? [{ address: host, family: literal === 6 ? 6 : 4 }] : await this.options.lookup(host);
    } catch {
      throw unsafe(`host ${host} does not resolve`);
    }
    if (addresses.length === 0) throw unsafe(`host ${host} does not resolve`);
    for (const { address } of addresses) {
      const kind = classifyAddress(address);
      if (!this.allows(kind)) throw unsafe(`host ${host} resolves to a ${kind} address (${address})`);
    }
    return addresses[0]!;
  }

  async check(raw: string): Promise<URL> {
    const url = this.parse(raw);
    await this.resolve(url);
    return url;
  }
}
