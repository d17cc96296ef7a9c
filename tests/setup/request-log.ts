// The requests the suite really made, for the contract coverage check (tests/contract/coverage.test.ts).
// scripts/run-tests.mjs names a folder in GUILDHALL_TEST_REQUEST_LOG; every test process writes there,
// when it exits, the distinct "METHOD /path" lines (no query) its test apps answered. Without the
// variable nothing is recorded.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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
  const handled = app as Express & { handle: (req: { method: string; url: string }, ...rest: unknown[]) => unknown };
  const handle = handled.handle.bind(app);
  handled.handle = (req, ...rest) => {
    seen.add(`${req.method} ${req.url.split('?')[0]}`);
    return handle(req, ...rest);
  };
  return app;
}
