// One HTTP attempt: POST the signed body to the address the guard approved, within the timeout.
// No redirects are followed (a 3xx is a failure), and at most 1 KiB of the answer is kept.
// Connections are kept alive and pooled per approved address (the IP is the connection's host; the
// name travels in Host and TLS SNI), so a busy receiver costs one handshake, not one per delivery,
// and a pooled connection can only ever lead to an address the guard approved.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { ResolvedAddress } from './webhook.target-guard.ts';

export interface AttemptOutcome {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

const EXCERPT_LIMIT = 1024;
export const USER_AGENT = 'Guildhall-Webhooks/1.0 (+https://www.standardwebhooks.com)';

export class WebhookSender {
  private readonly http: http.Agent;
  private readonly https: https.Agent;

  /** `maxSockets` per address: the dispatcher's concurrency bounds the total anyway. */
  constructor(maxSockets: number) {
    this.http = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: 30_000 });
    this.https = new https.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: 30_000 });
  }

  post(
    url: URL,
    address: ResolvedAddress,
    headers: Record<string, string>,
    body: string,
    timeoutMs: number,
  ): Promise<AttemptOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: Omit<AttemptOutcome, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...outcome, durationMs: elapsed() });
      };
      const secure = url.protocol === 'https:';
      const name = url.hostname.replace(/^\[(.*)\]$/, '$1');
      const request = (secure ? https : http).request(
        {
          method: 'POST',
          protocol: url.protocol,
          hostname: address.address,
          family: address.family,
          port: url.port || (secure ? 443 : 80),
          path: `${url.pathname}${url.search}`,
          agent: secure ? this.https : this.http,
          ...(secure && !isIP(name) ? { servername: name } : {}),
          signal: AbortSignal.timeout(timeoutMs),
          headers: {
            host: url.host,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': USER_AGENT,
            ...headers,
          },
        },
        (response) => {
          let excerpt = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            if (excerpt.length < EXCERPT_LIMIT) excerpt += chunk;
          });
          response.on('error', (error) =>
            finish({ statusCode: response.statusCode ?? null, error: error.message, responseExcerpt: null }),
          );
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            const ok = status >= 200 && status < 300;
            finish({
              statusCode: status,
              error: ok ? null : `HTTP ${status}`,
              responseExcerpt: excerpt.slice(0, EXCERPT_LIMIT) || null,
            });
          });
        },
      );
      request.on('error', (error) => {
        const timedOut = error.name === 'AbortError' || error.name === 'TimeoutError';
        finish({
          statusCode: null,
          error: timedOut ? `no answer within ${timeoutMs} ms` : error.message,
          responseExcerpt: null,
        });
      });
      request.end(body);
    });
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }
}
