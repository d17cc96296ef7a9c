// A process that runs jobs (the webhook dispatcher among them), as production's worker does, for
// the webhooks benchmark. Prints `LISTENING 0` once the dispatcher runs.
import { loadConfig } from '../../src/config.ts';
import { createContainer } from '../../src/container.ts';
import { openDatabase } from '../../src/shared/database.ts';
import { createLogger } from '../../src/shared/logger.ts';

const config = loadConfig(process.env);
const logger = createLogger(config.logLevel);
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger, poolMax: 10 });
const container = createContainer({ config, logger, db, appSecret: config.appSecret! });
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
