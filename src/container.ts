// Composition root: builds the platform (database access, queue, outbox, limiter, storage, AI clients)
// once, then each module of src/modules.ts in order from its own manifest, for the HTTP app, the Admin
// Portal, the workers and the tests alike. Imported only by the entry points (main, worker, seeders,
// scripts) and the test set-up.
import { Redis } from 'ioredis';
import type { AppContext, AppServices } from './app-context.ts';
import type { Config } from './config.ts';
import { domainEventCatalog } from './domain-events.ts';
import { AnthropicClient } from './integrations/anthropic/anthropic.client.ts';
import { createEmbedder } from './integrations/embeddings/create-embedder.ts';
import { createSmtpMailer } from './integrations/mail/mailer.ts';
import { createFileStorage } from './integrations/storage/create-file-storage.ts';
import { queueSpecs } from './jobs/catalog.ts';
import { Pipelines } from './jobs/pipeline/pipelines.ts';
import { JobQueue } from './jobs/queue.ts';
import { initModels } from './models.ts';
import { modules } from './modules.ts';
import { systemClock, type Clock } from './shared/clock.ts';
import { deriveKey } from './shared/crypto.ts';
import type { Database } from './shared/database.ts';
import { systemDnsLookup, type DnsLookup } from './shared/dns-lookup.ts';
import { DomainEvents } from './shared/domain-events/domain-events.ts';
import type { Logger } from './shared/logger.ts';
import { buildModules, type ModuleManifest, type Platform } from './shared/module-manifest.ts';
import { PostgresCounterStore, RateLimiter, RedisCounterStore } from './shared/rate-limiter.ts';
import { Sql } from './shared/sql.ts';

export type { AppContext as Container } from './app-context.ts';

export interface ContainerOptions {
  config: Config;
  logger: Logger;
  db: Database;
  appSecret: string;
  clock?: Clock;
  /** DNS for outbound targets; tests stub it instead of sending traffic to private addresses. */
  dnsLookup?: DnsLookup;
}

function createPlatform(options: ContainerOptions, cleanups: Array<() => Promise<void> | void>): Platform {
  const { config, logger, db } = options;
  const clock = options.clock ?? systemClock;
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true })
    : undefined;
  const sql = new Sql(db.sequelize, { namedStatements: db.kind === 'postgresql' && config.databasePreparedStatements });
  const counterStore = redis ? new RedisCounterStore(redis, config.redisKeyPrefix) : new PostgresCounterStore(sql);
  const limiter = new RateLimiter(counterStore, clock);
  const queue = new JobQueue({
    url: db.url,
    logger,
    pollingIntervalSeconds: config.jobs.pollingIntervalSeconds,
    specs: queueSpecs(config),
  });
  const domainEvents = new DomainEvents({
    sequelize: db.sequelize,
    clock,
    queue,
    logger: logger.child({ module: 'domain-events' }),
  });
  domainEvents.declare(domainEventCatalog);
  const mailer = config.smtpUrl ? createSmtpMailer(config.smtpUrl, config.mailFrom) : undefined;
  // closed last, in this order, after every module's own cleanup
  cleanups.push(
    () => redis?.disconnect(),
    () => mailer?.close(),
    () => queue.stop(),
    () => limiter.close(),
  );
  return {
    config,
    logger,
    clock,
    db,
    sql,
    queue,
    domainEvents,
    pipelines: new Pipelines({ clock, logger: logger.child({ module: 'pipelines' }) }),
    limiter,
    counterStore,
    storage: createFileStorage(config.library),
    embedder: createEmbedder(config.ai.embeddings),
    anthropic: config.ai.anthropic ? new AnthropicClient(config.ai.anthropic) : undefined,
    mailer,
    dnsLookup: options.dnsLookup ?? systemDnsLookup,
    ownedUserData: (modules as readonly ModuleManifest[]).flatMap((m) => m.ownedUserData ?? []),
    deriveKey: (purpose) => deriveKey(options.appSecret, purpose),
    onClose: (cleanup) => void cleanups.push(cleanup),
  };
}

export function createContainer(options: ContainerOptions): AppContext {
  const cleanups: Array<() => Promise<void> | void> = [];
  const platform = createPlatform(options, cleanups);
  const models = initModels(options.db.sequelize);
  const { services, built } = buildModules(modules, platform);
  return {
    ...platform,
    models,
    services: services as AppServices,
    modules: built,
    async close() {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    },
  };
}
