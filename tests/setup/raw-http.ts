// A real listening server (createHttpServer, as main.ts builds it) and raw sockets: what supertest's
// in-process shortcut cannot show (Node's own 431, timeouts, what the server reads off the wire).
import type { Server } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../../src/http/server.ts';
import type { TestApp } from './test-app.ts';

export async function listen(t: TestApp): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createHttpServer(t.app, t.config.http, t.config.baseUrl, t.container.logger);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function parseRaw(text: string): RawResponse {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4) };
}

/** A raw connection: write what you like, read everything the server sends until it closes. */
export function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  let closedAt: number | undefined;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined); // a reset while we still write is one of the outcomes under test
  const closed = new Promise<void>((resolve) => socket.on('close', () => ((closedAt = Date.now()), resolve())));
  return {
    socket,
    closed,
    get closedAt() {
      return closedAt;
    },
    received: () => received,
    /** Resolves with the first whole response (headers and a Content-Length body), or rejects after timeoutMs. */
    response(timeoutMs: number): Promise<RawResponse> {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const check = () => {
          const end = received.indexOf('\r\n\r\n');
          if (end >= 0) {
            const parsed = parseRaw(received);
            const length = Number(parsed.headers['content-length'] ?? 0);
            if (Buffer.byteLength(parsed.body) >= length)
              return resolve({ ...parsed, body: parsed.body.slice(0, length) });
          }
          if (Date.now() - started > timeoutMs)
            return reject(
              new Error(`no whole response within ${timeoutMs} ms; got ${JSON.stringify(received.slice(0, 300))}`),
            );
          setTimeout(check, 20);
        };
        check();
      });
    },
  };
}
