// A subscriber's endpoint on loopback: records every delivery (headers and the exact body) and
// answers with the status the test chooses for each attempt.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: Record<string, string>;
  body: string;
  status: number;
}

export type Responder = (attempt: number, delivery: Omit<ReceivedDelivery, 'status'>) => number | Promise<number>;

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedDelivery[];
  /** Resolves once `count` deliveries arrived (fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(respond: Responder = () => 204, port = 0): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const delivery = { headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') };
      const status = await respond(received.length + 1, delivery);
      received.push({ ...delivery, status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actualPort}/hooks`,
    port: actualPort,
    received,
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} deliveries, got ${received.length} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return received.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls until `check` returns a value (not undefined/false), for state the worker writes. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
