// A process that runs every job type, as production's worker (src/worker.ts) does, for benchmarks
// whose work happens in jobs (webhook deliveries, the CRM sync). Creates the queue's schema, so start
// it before the API. Prints `LISTENING 0` once its workers run.
import { loadConfig } from '../../src/config.ts';
import { createContainer } from '../../src/container.ts';
import { registerJobHandlers } from '../../src/jobs/registry.ts';
import { openDatabase } from '../../src/shared/database.ts';
import { createLogger } from '../../src/shared/logger.ts';

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel);
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger, poolMax: 10 });
const container = createContainer({ config, logger, db, appSecret: config.appSecret! });
registerJobHandlers(container);
await container.queue.start({ workers: true });
console.log('LISTENING 0');
process.on(
  'SIGTERM',
  () =>
    void container
      .close()
      .then(() => db.close())
      .then(() => process.exit(0)),
);
