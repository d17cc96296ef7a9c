// The requests the suite really made, for the contract coverage check (tests/contract/coverage.test.ts).
// scripts/run-tests.mjs names a folder in GUILDHALL_TEST_REQUEST_LOG; every test process writes there,
// when it exits, the distinct "METHOD /path STATUS MEDIA-TYPE" lines (no query; `-` for a response
// without a body, whatever its Content-Type says) its test apps answered. Without the variable nothing
// is recorded.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ServerResponse } from 'node:http';
import type { Express } from 'express';

const folder = process.env.GUILDHALL_TEST_REQUEST_LOG;
const seen = new Set<string>();
if (folder) {
  process.on('exit', () => {
    if (seen.size === 0) return;
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `${process.pid}.txt`), `${[...seen].join('\n')}\n`);
  });
}

/** Records every request the app handles, however it reaches it (supertest, a listening server). */
export function recordRequests(app: Express): Express {
  if (!folder) return app;
  type Handle = (req: { method: string; url: string }, res: ServerResponse, ...rest: unknown[]) => unknown;
  const handled = app as Express & { handle: Handle };
  const handle = handled.handle.bind(app);
  handled.handle = (req, res, ...rest) => {
    // read before routing: routers rewrite req.url as they descend
    const line = `${req.method} ${req.url.split('?')[0]}`;
    let bodyBytes = 0;
    const count = (chunk: unknown) => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) bodyBytes += chunk.length;
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((chunk: unknown, ...args: unknown[]) => (count(chunk), write(chunk, ...args))) as typeof res.write;
    res.end = ((chunk?: unknown, ...args: unknown[]) => {
      if (typeof chunk !== 'function') count(chunk);
      return end(chunk, ...args);
    }) as typeof res.end;
    res.once('finish', () => {
      const declared = String(res.getHeader('content-type') ?? '-');
      const mediaType = bodyBytes > 0 ? declared.split(';')[0]!.trim().toLowerCase() : '-';
      seen.add(`${line} ${res.statusCode} ${mediaType}`);
    });
    return handle(req, res, ...rest);
  };
  return app;
}
