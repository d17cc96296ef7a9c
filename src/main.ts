// .env -> config -> database -> migrations -> container -> job queue (and workers) -> seed -> app -> listen;
// graceful shutdown.
import type { Server } from 'node:http';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { loadDotEnv } from './shared/dot-env.ts';

async function main(): Promise<void> {
  let config: Config;
  try {
    loadDotEnv();
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  // loaded once the configuration is known good, so a bad one fails in a moment (as the worker does)
  const [
    { createApp },
    { createContainer },
    { createHttpServer },
    { resolveAppSecret },
    { openDatabase },
    { onShutdownSignal },
    { createLogger },
    { migrateUp },
    { formatDemoCredentials, seedDemoOnFirstStart },
    { startupLine },
  ] = await Promise.all([
    import('./app.ts'),
    import('./container.ts'),
    import('./http/server.ts'),
    import('./shared/app-secret.ts'),
    import('./shared/database.ts'),
    import('./shared/graceful-shutdown.ts'),
    import('./shared/logger.ts'),
    import('./shared/migrator.ts'),
    import('../seeders/demo.seeder.ts'),
    import('./shared/startup-line.ts'),
  ]);
  const logger = createLogger(config.logLevel);

  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
  const applied = await migrateUp(db, logger);
  if (applied.length) logger.info({ applied }, 'migrations applied');
  // After migrations: they create pgvector and converge the vector schema (src/shared/vector-schema.ts).
  logger.info(
    { database: db.kind, version: db.version, vector: db.vector },
    db.vector
      ? 'database ready; pgvector available: semantic search enabled'
      : 'database ready; pgvector NOT available: semantic search degrades to keyword search',
  );

  const container = createContainer({ config, logger, db, appSecret: await resolveAppSecret(config, logger) });
  // The embedded default runs every job here; with JOBS_ENABLED=false `npm run worker` runs them and
  // this process does not even load the handlers.
  if (config.jobs.enabled) (await import('./jobs/registry.ts')).registerJobHandlers(container);
  await container.queue.start({ workers: config.jobs.enabled });
  // development quick start only; production gets demo data only when asked (npm run seed:demo). After
  // the queue: the demo library's events enqueue its ingestion.
  const demo = await seedDemoOnFirstStart(container);
  if (demo) console.log(formatDemoCredentials(demo, config.baseUrl));

  const app = createApp(container);
  const server: Server = createHttpServer(app, config.http, config.baseUrl, logger);
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    logger.info(
      { port, env: config.appEnv, nodeEnv: config.nodeEnv },
      startupLine(port, config.nodeEnv, config.appEnv),
    );
  });

  // also the unhandled-rejection handler (fatal, then this same stop, exit 1); before it, during the
  // start, Node's default applies: a rejection nobody handles ends the start
  onShutdownSignal(logger, 'shutting down: no new connections, finishing in-flight requests', async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await closed;
    await container.close();
    await db.close();
  });
}

main().catch((error) => {
  if (error instanceof Error && error.name === 'DataDirInUseError') {
    console.error(`Guildhall failed to start: ${error.message}`);
    process.exit(75); // EX_TEMPFAIL
  }
  console.error('Guildhall failed to start:', error);
  process.exit(1);
});
