import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import supertest from 'supertest';
import { createApp, type AppOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createContainer, type Container } from '../../src/container.ts';
import { registerJobHandlers } from '../../src/jobs/registry.ts';
import { ManualClock } from '../../src/shared/clock.ts';
import { openDatabase, type Database } from '../../src/shared/database.ts';
import { createLogger, type Logger } from '../../src/shared/logger.ts';
import { migrateUp } from '../../src/shared/migrator.ts';
import type { DnsLookup } from '../../src/modules/webhooks/webhook.target-guard.ts';
import { portalBundleDir } from './admin-bundle.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { recordRequests } from './request-log.ts';

export interface TestApp {
  app: Express;
  container: Container;
  config: Config;
  db: Database;
  clock: ManualClock;
  http: ReturnType<typeof supertest>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Extra environment for loadConfig (e.g. small rate limits). */
  env?: Record<string, string>;
  /** Start the job queue's workers (off unless a test needs jobs to run). */
  workers?: boolean;
  /** Use this database instead of a fresh one, and leave it in place on close (restart tests). */
  database?: TestDatabase;
  /** Stub DNS for webhook targets. */
  dnsLookup?: DnsLookup;
  /** A contract of the test's own (test-only operations for `routes`). */
  contract?: AppOptions['contract'];
  /** Test-only routes, by surface (createApp's `routes`). */
  routes?: AppOptions['routes'];
  /** The app's logger instead of one at TEST_LOG_LEVEL (a test that reads what was logged). */
  logger?: Logger;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const testDb = options.database ?? (await createTestDatabase());
  // library files of this app: a folder of its own (DATA_DIR may be memory://, never a folder to write in)
  const filesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'guildhall-files-'));
  const config = loadConfig({
    LIBRARY_STORAGE_DIR: filesDir,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    APP_SECRET: 'test-secret-test-secret-test-secret-0123',
    JOBS_POLLING_SECONDS: '0.5',
    ADMIN_JS_TMP_DIR: portalBundleDir(), // one per process: AdminJS reads it once
    ...(testDb.databaseUrl ? { DATABASE_URL: testDb.databaseUrl } : {}),
    DATA_DIR: testDb.dataDir,
    ...options.env,
  });
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    logger,
  });
  await migrateUp(db, logger);
  const clock = new ManualClock(new Date());
  const container = createContainer({
    config,
    logger,
    db,
    clock,
    appSecret: config.appSecret!,
    dnsLookup: options.dnsLookup,
  });
  registerJobHandlers(container); // so a test may start the workers later
  await container.queue.start({ workers: options.workers ?? false });
  const app = recordRequests(createApp(container, { contract: options.contract, routes: options.routes }));
  return {
    app,
    container,
    config,
    db,
    clock,
    http: supertest(app),
    async close() {
      await container.close();
      await db.close();
      fs.rmSync(filesDir, { recursive: true, force: true });
      if (!options.database) await testDb.drop();
    },
  };
}
