// The real service (same container and app as production) on an ephemeral port, for benchmarks. It
// loads the compiled build in dist/ as the production image does (bench/lib/build.ts makes it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const compiled = (module: string) => new URL(`../../dist/src/${module}.js`, import.meta.url).href;
const { createApp } = (await import(compiled('app'))) as typeof import('../../src/app.ts');
const { loadConfig } = (await import(compiled('config'))) as typeof import('../../src/config.ts');
const { createContainer } = (await import(compiled('container'))) as typeof import('../../src/container.ts');
const { openDatabase } = (await import(compiled('shared/database'))) as typeof import('../../src/shared/database.ts');
const { createLogger } = (await import(compiled('shared/logger'))) as typeof import('../../src/shared/logger.ts');
const { createHttpServer } = (await import(compiled('http/server'))) as typeof import('../../src/http/server.ts');

// A fresh bundle directory: with a bundle left by an earlier run, the wait below would pass at once
// and AdminJS would rebuild (seconds of rollup and babel) during the measurement.
const adminJsTmpDir = mkdtempSync(path.join(tmpdir(), 'guildhall-bench-adminjs-'));
const config = loadConfig({ ...process.env, PORT: '0', ADMIN_JS_TMP_DIR: adminJsTmpDir });
const logger = createLogger(config.logLevel);
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger, poolMax: 10 });
const container = createContainer({ config, logger, db, appSecret: config.appSecret! });
// as src/main.ts starts it: the queue's schema and queues (a published upload queues its jobs), with
// workers only when JOBS_ENABLED (a bench that runs jobs starts bench/servers/jobs.worker.ts)
await container.queue.start({ workers: false });
// the listening server as src/main.ts builds it (timeouts, request and response classes)
const server = createHttpServer(createApp(container), config.http, config.baseUrl, logger).listen(
  0,
  '127.0.0.1',
  () => void announce(),
);

/**
 * In production the Admin Portal bundles its components in the background at start (rollup and
 * babel, seconds of CPU): wait for the bundle so the load does not compete with it.
 */
async function announce(): Promise<void> {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  for (let attempt = 0; attempt < 600; attempt++) {
    const response = await fetch(`http://127.0.0.1:${port}/admin/frontend/assets/components.bundle.js`).catch(
      () => undefined,
    );
    await response?.arrayBuffer();
    if (response?.ok) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  console.log(`LISTENING ${port}`);
}
process.on('SIGTERM', () =>
  server.close(
    () =>
      void container
        .close()
        .then(() => db.close())
        .then(() => rmSync(adminJsTmpDir, { recursive: true, force: true }))
        .then(() => process.exit(0)),
  ),
);
