// The job worker (`npm run worker`): config -> database -> migrations -> container -> workers, and no
// HTTP, so CPU-heavy jobs (embedding, speech, ffmpeg, CRM batches) never share the API's event loop.
// Run the API with JOBS_ENABLED=false beside it; both need the same DATABASE_URL and APP_SECRET (from
// the environment or ./.env, as for the API).
import { ConfigError, loadConfig, type Config } from './config.ts';
import { loadDotEnv } from './shared/dot-env.ts';
import { onShutdownSignal } from './shared/graceful-shutdown.ts';

function workerConfig(): Config {
  const config = loadConfig();
  // the embedded database lives inside the API process: its jobs run there (JOBS_ENABLED=true)
  if (!config.databaseUrl)
    throw new ConfigError(
      'DATABASE_URL is required for the worker (the embedded database runs its jobs in the API process)',
    );
  // webhook signing secrets are sealed with a key derived from it: a random one could not open them
  if (!config.appSecret) throw new ConfigError("APP_SECRET is required for the worker (the same as the API's)");
  return config;
}

async function main(): Promise<void> {
  let config: Config;
  try {
    loadDotEnv(); // the same .env as `npm start` reads (the environment wins), so both see one DATABASE_URL
    config = workerConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  // loaded once the configuration is known good, so a bad one fails in a moment
  const [
    { createContainer },
    { jobTypes },
    { registerJobHandlers },
    { openDatabase },
    { createLogger },
    { migrateUp },
  ] = await Promise.all([
    import('./container.ts'),
    import('./jobs/catalog.ts'),
    import('./jobs/registry.ts'),
    import('./shared/database.ts'),
    import('./shared/logger.ts'),
    import('./shared/migrator.ts'),
  ]);
  const logger = createLogger(config.logLevel).child({ process: 'worker' });

  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
  const applied = await migrateUp(db, logger); // whichever process starts first migrates; the lock serialises them
  if (applied.length) logger.info({ applied }, 'migrations applied');
  const container = createContainer({ config, logger, db, appSecret: config.appSecret! });
  registerJobHandlers(container);
  await container.queue.start({ workers: true });
  // also the unhandled-rejection handler (fatal, then this same stop, exit 1), as in the API process.
  // Installed before the line that says the worker runs: until a listener exists, a SIGTERM ends the
  // process at once (the OS default), and a supervisor may send one as soon as it reads that line.
  onShutdownSignal(logger, 'shutting down: no new jobs, finishing running ones', async () => {
    await container.close(); // the queue stops gracefully first: running jobs complete
    await db.close();
  });
  logger.info({ jobTypes: jobTypes.length }, 'Guildhall worker running jobs');
}

main().catch((error) => {
  console.error('Guildhall worker failed to start:', error);
  process.exit(1);
});
