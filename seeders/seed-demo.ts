// npm run seed:demo: creates the demo organization, admins and API key on the configured database
// (any NODE_ENV: it is an explicit request) and prints the credentials once.
import { loadConfig } from '../src/config.ts';
import { createContainer } from '../src/container.ts';
import { resolveAppSecret } from '../src/shared/app-secret.ts';
import { DataDirInUseError } from '../src/shared/data-dir-lock.ts';
import { openDatabase } from '../src/shared/database.ts';
import { loadDotEnv } from '../src/shared/dot-env.ts';
import { createLogger } from '../src/shared/logger.ts';
import { migrateUp } from '../src/shared/migrator.ts';
import { DEMO_ORGANIZATION_SLUG, formatDemoCredentials, seedDemo } from './demo.seeder.ts';

loadDotEnv();
const config = loadConfig();
const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger }).catch(
  (error: unknown) => {
    // the embedded database is the running service's: one line that says so, as reset-admin does
    if (!(error instanceof DataDirInUseError)) throw error;
    console.error(`Demo data not created: ${error.message}`);
    process.exit(75); // EX_TEMPFAIL
  },
);
const container = createContainer({ config, logger, db, appSecret: await resolveAppSecret(config, logger) });
try {
  await migrateUp(db, logger);
  // no workers here: the demo library's ingestion jobs wait in the queue for the service's worker
  await container.queue.start({ workers: false });
  const demo = await seedDemo(container);
  if (demo) console.log(formatDemoCredentials(demo, config.baseUrl));
  else
    console.log(
      `Demo data exists already (organization "${DEMO_ORGANIZATION_SLUG}"): no new credentials (they were shown when it was created; lost them? npm run reset-admin). Any missing demo records were added.`,
    );
} catch (error) {
  console.error('Demo data not created:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await container.close();
  await db.close();
}
