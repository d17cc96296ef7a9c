// How outbound targets are resolved. Injectable so tests never send traffic to private addresses.
import { promises as dns } from 'node:dns';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type DnsLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemDnsLookup: DnsLookup = async (hostname) =>
  (await dns.lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));
