// The V8 inspector of a server under test (started with --inspect=127.0.0.1:<port>), for the load
// benchmark's memory figures: a full GC forced from outside and process.memoryUsage() read after it,
// which tells heap that is still referenced (a leak grows it) from garbage not yet collected and from
// RSS the allocator keeps. Node 20 has no WebSocket client, so the protocol's few frames are written
// here over node:http's upgrade (client frames masked, RFC 6455 §5.3; messages here fit one frame).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { createServer, type Socket } from 'node:net';

/** A free loopback port for --inspect (taken and released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Inspector {
  /** Full garbage collection, then the process's memory figures in MB. */
  memoryAfterGc(): Promise<{ rss: number; heapUsed: number; heapTotal: number; external: number }>;
  close(): void;
}

function frame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const length =
    payload.length < 126
      ? Buffer.from([0x80 | payload.length])
      : Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from([0x81]), length, mask, masked]);
}

export async function connectInspector(port: number): Promise<Inspector> {
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const target = new URL(list[0]!.webSocketDebuggerUrl);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const req = http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
      },
    });
    req.once('upgrade', (_res, upgraded) => resolve(upgraded));
    req.once('error', reject);
    req.end();
  });
  const waiting = new Map<number, (result: unknown) => void>();
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      if (buffered.length < 2) return;
      let length = buffered[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffered.length < 4) return;
        length = buffered.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffered.length < 10) return;
        length = Number(buffered.readBigUInt64BE(2));
        offset = 10;
      }
      if (buffered.length < offset + length) return;
      const opcode = buffered[0]! & 0x0f;
      const payload = buffered.subarray(offset, offset + length).toString('utf8');
      buffered = buffered.subarray(offset + length);
      if (opcode !== 1) continue;
      const message = JSON.parse(payload) as { id?: number; result?: unknown };
      if (message.id !== undefined) waiting.get(message.id)?.(message.result);
    }
  });
  let next = 0;
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      socket.write(frame(JSON.stringify({ id, method, params })));
    });
  return {
    async memoryAfterGc() {
      await call('HeapProfiler.collectGarbage');
      const result = (await call('Runtime.evaluate', {
        expression: 'JSON.stringify(process.memoryUsage())',
        returnByValue: true,
      })) as { result: { value: string } };
      const usage = JSON.parse(result.result.value) as Record<string, number>;
      const mb = (bytes: number) => bytes / 1024 / 1024;
      return {
        rss: mb(usage.rss!),
        heapUsed: mb(usage.heapUsed!),
        heapTotal: mb(usage.heapTotal!),
        external: mb(usage.external!),
      };
    },
    close: () => socket.destroy(),
  };
}
