// One HTTP attempt: POST the signed body to the address the guard approved, within the timeout.
// No redirects are followed (a 3xx is a failure), and at most 1 KiB of the answer is kept.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './webhook.target-guard.ts';

export interface AttemptOutcome {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

const EXCERPT_LIMIT = 1024;
export const USER_AGENT = 'Guildhall-Webhooks/1.0 (+https://www.standardwebhooks.com)';

/** Resolves every name to the approved address: the connection goes exactly where the check looked. */
function pinned({ address, family }: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as LookupFunction;
}

export function postWebhook(url: URL, address: ResolvedAddress, headers: Record<string, string>, body: string, timeoutMs: number): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<AttemptOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(
      url,
      {
        method: 'POST',
        agent: false,
        lookup: pinned(address),
        signal: AbortSignal.timeout(timeoutMs),
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': USER_AGENT, ...headers },
      },
      (response) => {
        let excerpt = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (excerpt.length < EXCERPT_LIMIT) excerpt += chunk;
        });
        response.on('error', (error) => finish({ statusCode: response.statusCode ?? null, error: error.message, responseExcerpt: null }));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          finish({ statusCode: status, error: ok ? null : `HTTP ${status}`, responseExcerpt: excerpt.slice(0, EXCERPT_LIMIT) || null });
        });
      },
    );
    request.on('error', (error) => {
      const timedOut = error.name === 'AbortError' || error.name === 'TimeoutError';
      finish({ statusCode: null, error: timedOut ? `no answer within ${timeoutMs} ms` : error.message, responseExcerpt: null });
    });
    request.end(body);
  });
}
