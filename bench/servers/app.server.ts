// The real service (same container and app as production) on an ephemeral port, for benchmarks.
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createContainer } from '../../src/container.ts';
import { openDatabase } from '../../src/shared/database.ts';
import { createLogger } from '../../src/shared/logger.ts';

const config = loadConfig({ ...process.env, PORT: '0' });
const logger = createLogger(config.logLevel);
const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger, poolMax: 10 });
const container = createContainer({ config, logger, db, appSecret: config.appSecret! });
const server = createApp(container).listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`LISTENING ${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => server.close(() => void container.close().then(() => db.close()).then(() => process.exit(0))));
