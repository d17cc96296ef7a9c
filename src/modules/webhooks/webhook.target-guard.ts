// SSRF protection for subscriber URLs. A URL is checked when it is saved and again at every
// delivery; the delivery then connects to exactly the address that was checked (no second DNS
// answer can slip in between: DNS rebinding). DNS is injectable so tests never send traffic to
// private addresses.
import { promises as dns } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { AppError } from '../../shared/errors.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
export type DnsLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemDnsLookup: DnsLookup = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'reserved';

/** Cloud instance-metadata endpoints outside link-local space (AWS IPv6, Alibaba). */
const METADATA = ['fd00:ec2::254', '100.100.100.200'];

const RANGES: Array<[AddressClass, string, number, 'ipv4' | 'ipv6']> = [
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['link-local', '169.254.0.0', 16, 'ipv4'], // 169.254.169.254: AWS, GCP, Azure metadata
  ['reserved', '0.0.0.0', 8, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['reserved', '192.0.2.0', 24, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['reserved', '198.51.100.0', 24, 'ipv4'],
  ['reserved', '203.0.113.0', 24, 'ipv4'],
  ['reserved', '224.0.0.0', 3, 'ipv4'], // multicast, reserved, broadcast
  ['loopback', '::1', 128, 'ipv6'],
  ['reserved', '::', 128, 'ipv6'],
  ['private', 'fc00::', 7, 'ipv6'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['reserved', 'ff00::', 8, 'ipv6'],
  ['reserved', '2001:db8::', 32, 'ipv6'],
];
const LISTS = new Map<AddressClass, BlockList>();
for (const [kind, network, prefix, type] of RANGES) {
  if (!LISTS.has(kind)) LISTS.set(kind, new BlockList());
  LISTS.get(kind)!.addSubnet(network, prefix, type);
}

/** Eight 16-bit groups of an IPv6 address, or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  const groups = [...left, ...fill, ...right].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** IPv4 hidden in an IPv6 address (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d). */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const mapped = g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  return mapped || nat64 ? [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255].join('.') : undefined;
}

function sameAddress(a: string, b: string): boolean {
  if (isIP(a) !== isIP(b)) return false;
  return isIP(a) === 4 ? a === b : ipv6Groups(a)?.join(':') === ipv6Groups(b)?.join(':');
}

export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 0) return 'reserved';
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return classifyAddress(v4);
  }
  if (METADATA.some((known) => sameAddress(known, address))) return 'metadata';
  for (const [kind, list] of LISTS) if (list.check(address, family === 6 ? 'ipv6' : 'ipv4')) return kind;
  return 'public';
}

const unsafe = (detail: string) => new AppError('unsafe_webhook_target', detail, { errors: [{ field: 'url', message: detail }] });

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
      throw unsafe('is not an absolute URL');
    }
    const schemes = this.options.allowPrivateTargets ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(url.protocol)) throw unsafe(`must use ${schemes.map((s) => s.slice(0, -1)).join(' or ')}`);
    if (url.username || url.password) throw unsafe('must not contain credentials');
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
