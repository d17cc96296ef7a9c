import type { DnsLookup } from '../../src/modules/webhooks/webhook.target-guard.ts';

/** A DNS whose answers the test sets (and changes, to play a rebinding attack). Unknown names fail. */
export function stubDns(initial: Record<string, string[]> = {}): {
  lookup: DnsLookup;
  set(hostname: string, addresses: string[]): void;
} {
  const answers = new Map(Object.entries(initial));
  return {
    lookup: async (hostname) => {
      const addresses = answers.get(hostname);
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    set: (hostname, addresses) => void answers.set(hostname, addresses),
  };
}
