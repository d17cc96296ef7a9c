// Composition root: builds models, services, integrations and the job queue once, for the HTTP app,
// the Admin Portal, the workers and the tests alike.
import { Redis } from 'ioredis';
import type { Transaction } from 'sequelize';
import type { Config } from './config.ts';
import { domainEventCatalog } from './domain-events.ts';
import { queueSpecs } from './jobs/catalog.ts';
import { Pipelines } from './jobs/pipeline/pipelines.ts';
import { JobQueue } from './jobs/queue.ts';
import { initModels, type Models } from './models.ts';
import { modules } from './modules.ts';
import { ApiKeyService } from './modules/api-keys/api-key.service.ts';
import { AuditService } from './modules/audit/audit.service.ts';
import { ActivityService } from './modules/activity/activity.service.ts';
import { AuthService } from './modules/auth/auth.service.ts';
import { TokenService } from './modules/auth/token.service.ts';
import { ImpersonationService } from './modules/impersonation/impersonation.service.ts';
import { OrganizationService } from './modules/organizations/organization.service.ts';
import { ResourceService } from './modules/library/resource.service.ts';
import { ResourceFileService } from './modules/library/resource-files.service.ts';
import { ResourceCatalogService } from './modules/resource-catalog/catalog.service.ts';
import { ResourceCategoryService } from './modules/resource-catalog/category.service.ts';
import { CategoryIconService } from './modules/resource-catalog/category-icon.service.ts';
import { ResourceEntitlementService } from './modules/resource-catalog/entitlement.service.ts';
import { PublicCatalogueService } from './modules/resource-catalog/public-catalogue.service.ts';
import { MailService } from './modules/mail/mail.service.ts';
import { PasswordResetService } from './modules/users/password-reset.service.ts';
import { ResourceReportService } from './modules/resource-reports/resource-report.service.ts';
import { UsageRollup } from './modules/resource-reports/usage-rollup.repository.ts';
import { UserAdminService } from './modules/users/user-admin.service.ts';
import { UserDeletionService } from './modules/users/user-deletion.service.ts';
import { AnthropicClient } from './integrations/anthropic/anthropic.client.ts';
import { ChatService } from './modules/chat/chat.service.ts';
import { createEmbedder } from './integrations/embeddings/create-embedder.ts';
import type { Embedder } from './integrations/embeddings/embedder.ts';
import { FliteVoiceEngine } from './integrations/speech/flite.engine.ts';
import type { VoiceEngine } from './integrations/speech/voice-engine.ts';
import { GenerationService } from './modules/generation/generation.service.ts';
import { GenerationWorker } from './modules/generation/generation.worker.ts';
import { createFileStorage } from './integrations/storage/create-file-storage.ts';
import type { FileStorage } from './integrations/storage/file-storage.ts';
import { ThumbnailRenderer, ffmpegLocator } from './modules/library/thumbnails/thumbnail.renderer.ts';
import { ThumbnailService } from './modules/library/thumbnails/thumbnail.service.ts';
import { UploadRepository } from './modules/library/uploads/upload.repository.ts';
import { UploadService } from './modules/library/uploads/upload.service.ts';
import { createSmtpMailer } from './integrations/mail/mailer.ts';
import { courseResource } from './modules/courses/course.definition.ts';
import type { CourseDto, CourseInput } from './modules/courses/course.mapper.ts';
import type { Course } from './modules/courses/course.model.ts';
import { CrudService } from './modules/crud/crud.service.ts';
import { eventResource } from './modules/events/event.definition.ts';
import type { EventDto, EventInput } from './modules/events/event.mapper.ts';
import type { Event } from './modules/events/event.model.ts';
import { IdempotencyStore } from './modules/idempotency/idempotency.store.ts';
import { JobAdminRepository } from './modules/jobs-admin/job-admin.repository.ts';
import { JobAdminService } from './modules/jobs-admin/job-admin.service.ts';
import { memberResource } from './modules/members/member.definition.ts';
import type { MemberDto, MemberInput } from './modules/members/member.mapper.ts';
import type { Member } from './modules/members/member.model.ts';
import { IngestionRunner } from './modules/ingestion/ingestion.pipeline.ts';
import { IngestionRepository } from './modules/ingestion/ingestion.repository.ts';
import { IngestionService } from './modules/ingestion/ingestion.service.ts';
import { WebhookDeliveryRepository } from './modules/webhooks/webhook-delivery.repository.ts';
import { WebhookDeliveryService } from './modules/webhooks/webhook-delivery.service.ts';
import { WebhookDeliverer } from './modules/webhooks/webhook.deliverer.ts';
import { WebhookDispatcher } from './modules/webhooks/webhook.dispatcher.ts';
import { WebhookSender } from './modules/webhooks/webhook.sender.ts';
import { WebhookSecrets } from './modules/webhooks/webhook.secrets.ts';
import { WebhookService } from './modules/webhooks/webhook.service.ts';
import { WebhookTargetGuard, systemDnsLookup, type DnsLookup } from './modules/webhooks/webhook.target-guard.ts';
import { systemClock, type Clock } from './shared/clock.ts';
import { DomainEvents } from './shared/domain-events/domain-events.ts';
import type { ModuleManifest } from './shared/module-manifest.ts';
import { deriveKey } from './shared/crypto.ts';
import type { Database } from './shared/database.ts';
import type { Logger } from './shared/logger.ts';
import { Sql } from './shared/sql.ts';
import { PostgresCounterStore, RateLimiter, RedisCounterStore, type CounterStore } from './shared/rate-limiter.ts';

export interface ContainerOptions {
  config: Config;
  logger: Logger;
  db: Database;
  appSecret: string;
  clock?: Clock;
  /** DNS for webhook targets; tests stub it instead of sending traffic to private addresses. */
  dnsLookup?: DnsLookup;
}

export interface Container {
  config: Config;
  logger: Logger;
  clock: Clock;
  db: Database;
  sql: Sql;
  models: Models;
  queue: JobQueue;
  /** The domain event outbox: modules publish into it, subscribers of other modules react. */
  domainEvents: DomainEvents;
  /** Step state for long pipelines (runPipeline). */
  pipelines: Pipelines;
  limiter: RateLimiter;
  counterStore: CounterStore;
  /** Library files: local disk or S3-compatible storage. */
  storage: FileStorage;
  /** Text embeddings for the AI's retrieval (loaded on first use, in the process that embeds). */
  embedder: Embedder;
  /** Secrets derived from APP_SECRET for one purpose each. */
  keys: { adminSession: string };
  services: {
    audit: AuditService;
    tokens: TokenService;
    apiKeys: ApiKeyService;
    auth: AuthService;
    mail: MailService;
    passwords: PasswordResetService;
    users: UserAdminService;
    userDeletion: UserDeletionService;
    activity: ActivityService;
    impersonation: ImpersonationService;
    members: CrudService<Member, MemberDto, MemberInput>;
    events: CrudService<Event, EventDto, EventInput>;
    courses: CrudService<Course, CourseDto, CourseInput>;
    webhooks: WebhookService;
    webhookDeliveries: WebhookDeliveryService;
    webhookDispatcher: WebhookDispatcher;
    idempotency: IdempotencyStore;
    jobs: JobAdminService;
    organizations: OrganizationService;
    /** The library's writes: create, update (new versions), delete. */
    resources: ResourceService;
    /** The library's files for reading: download, any version, the version list, download counts. */
    resourceFiles: ResourceFileService;
    /** Library ingestion: status, re-run, reactions to resource events (the runner embeds, in jobs). */
    ingestion: IngestionService;
    ingestionRunner: IngestionRunner;
    resourceCatalog: ResourceCatalogService;
    resourceCategories: ResourceCategoryService;
    /** Uploaded category icon images (the alternative to a named icon). */
    categoryIcons: CategoryIconService;
    resourceEntitlements: ResourceEntitlementService;
    publicCatalogue: PublicCatalogueService;
    resourceReports: ResourceReportService;
    usageRollup: UsageRollup;
    generation: GenerationService;
    generationWorker: GenerationWorker;
    /** Resumable (tus) uploads; the resource service takes finished ones (CompletedUploads). */
    uploads: UploadService;
    /** Resource thumbnails (made by the library.thumbnail job) and featured images, served to readers. */
    thumbnails: ThumbnailService;
    chat: ChatService;
  };
  /** Registers cleanup for resources created later (the Admin Portal's session store); run by close(). */
  onClose(cleanup: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export function createContainer(options: ContainerOptions): Container {
  const { config, logger, db } = options;
  const clock = options.clock ?? systemClock;
  const models = initModels(db.sequelize);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true }) : undefined;
  const sql = new Sql(db.sequelize, { namedStatements: db.kind === 'postgresql' && config.databasePreparedStatements });
  const counterStore = redis ? new RedisCounterStore(redis, config.redisKeyPrefix) : new PostgresCounterStore(sql);
  const limiter = new RateLimiter(counterStore, clock);

  const audit = new AuditService();
  const tokens = new TokenService(deriveKey(options.appSecret, 'jwt'), clock, config.jwtTtlSeconds);
  const apiKeys = new ApiKeyService({ sequelize: db.sequelize, sql, clock, audit, appEnv: config.appEnv });
  const auth = new AuthService({ config, clock, tokens, apiKeys, audit, limiter, secretsKey: deriveKey(options.appSecret, 'secrets'), sql });

  // Any change to a user through the models drops this instance's cached view of that user at once,
  // and again after the commit: a lookup racing the transaction still read the row as it was.
  const forgetUser = (id: string | undefined, transaction?: Transaction | null) => {
    auth.forgetUser(id);
    transaction?.afterCommit(() => auth.forgetUser(id));
  };
  models.User.addHook('afterSave', 'forget-credentials', (user, options) => forgetUser(String(user.get('id')), options.transaction));
  models.User.addHook('afterDestroy', 'forget-credentials', (user, options) => forgetUser(String(user.get('id')), options.transaction));
  models.User.addHook('afterBulkUpdate', 'forget-credentials', (options) => forgetUser(undefined, options.transaction));
  models.User.addHook('afterBulkDestroy', 'forget-credentials', (options) => forgetUser(undefined, options.transaction));

  // A plan or suspension change must reach the next request, not the next cache refresh.
  const forgetOrganizations = (transaction?: Transaction | null) => {
    auth.forgetUser();
    apiKeys.forgetAll();
    transaction?.afterCommit(() => {
      auth.forgetUser();
      apiKeys.forgetAll();
    });
  };
  models.Organization.addHook('afterSave', 'forget-credentials', (_organization, options) => forgetOrganizations(options.transaction));

  const queue = new JobQueue({ url: db.url, logger, pollingIntervalSeconds: config.jobs.pollingIntervalSeconds, specs: queueSpecs(config) });
  const domainEvents = new DomainEvents({ sequelize: db.sequelize, clock, queue, logger: logger.child({ module: 'domain-events' }) });
  domainEvents.declare(domainEventCatalog);
  const { sequelize } = db;
  const mailer = config.smtpUrl ? createSmtpMailer(config.smtpUrl, config.mailFrom) : undefined;
  const mail = new MailService({ queue, clock, retryLimit: config.mail.retryLimit, mailer });
  const passwords = new PasswordResetService({ sequelize, clock, audit, mail, config });
  const users = new UserAdminService({ sequelize, audit, mail, passwords, config });
  const userDeletion = new UserDeletionService({ sequelize, clock, audit });
  const activity = new ActivityService({ sequelize });
  const impersonation = new ImpersonationService({ sequelize, clock, tokens, audit, mail, config });
  auth.setImpersonationGuard((claims) => impersonation.assertTokenUsable(claims));
  const cleanups: Array<() => Promise<void> | void> = [];
  const secrets = new WebhookSecrets(deriveKey(options.appSecret, 'webhook-secrets'));
  const guard = new WebhookTargetGuard({ allowPrivateTargets: config.webhooks.allowPrivateTargets, lookup: options.dnsLookup ?? systemDnsLookup });
  const crud = { sequelize, sql, clock, audit, publisher: domainEvents };
  const webhooks = new WebhookService({ sequelize, clock, audit, queue, guard, secrets });
  const webhookSender = new WebhookSender(config.webhooks.concurrency);
  const webhookDispatcher = new WebhookDispatcher({
    repository: new WebhookDeliveryRepository({ sequelize, sql }),
    deliverer: new WebhookDeliverer({ guard, secrets, sender: webhookSender, timeoutMs: config.webhooks.timeoutMs }),
    // delivery timing runs on wall time, as receivers and the network do (tests build their own with a ManualClock)
    clock: systemClock,
    logger: logger.child({ module: 'webhooks' }),
    options: {
      concurrency: config.webhooks.concurrency,
      pollIntervalMs: config.webhooks.pollIntervalMs,
      breakerThreshold: config.webhooks.breakerThreshold,
      breakerCooldownMs: config.webhooks.breakerCooldownSeconds * 1000,
      leaseMs: 2 * config.webhooks.timeoutMs + 60_000,
      retryDelaysSeconds: config.webhooks.retryDelaysSeconds,
    },
  });
  const pipelines = new Pipelines({ clock, logger: logger.child({ module: 'pipelines' }) });
  const storage = createFileStorage(config.library);
  const embedder = createEmbedder(config.ai.embeddings);
  const ingestionRepository = new IngestionRepository(sql);
  // one Claude client (ANTHROPIC_API_KEY) for chat answers and podcast scripts
  const anthropic = config.ai.anthropic ? new AnthropicClient(config.ai.anthropic) : undefined;
  // the speech engine's child process starts with the first podcast and stops with the container
  let voices: VoiceEngine | undefined;
  cleanups.push(() => voices?.close());
  const generationWorker = new GenerationWorker({
    sequelize,
    sql,
    clock,
    storage,
    logger: logger.child({ module: 'generation' }),
    voices: () => (voices ??= new FliteVoiceEngine({ logger: logger.child({ module: 'speech' }) })),
    ffmpegPath: config.ai.ffmpegPath,
    claude: anthropic && { client: anthropic.client, model: anthropic.model },
  });
  // resumable uploads: the resource service takes the finished ones (POST /api/resources {uploadId})
  const uploads = new UploadService({ repository: new UploadRepository(sql), storage, clock, logger: logger.child({ module: 'uploads' }), settings: config.library });
  const container: Container = {
    config,
    logger,
    clock,
    db,
    sql,
    models,
    queue,
    domainEvents,
    pipelines,
    limiter,
    counterStore,
    storage,
    embedder,
    keys: { adminSession: deriveKey(options.appSecret, 'admin-session').toString('base64url') },
    services: {
      audit,
      tokens,
      apiKeys,
      auth,
      mail,
      passwords,
      users,
      userDeletion,
      activity,
      impersonation,
      members: new CrudService(memberResource, crud),
      events: new CrudService(eventResource, crud),
      courses: new CrudService(courseResource, crud),
      webhooks,
      webhookDeliveries: new WebhookDeliveryService({ sequelize, clock, audit, subscriptions: webhooks, wake: () => webhookDispatcher.wake() }),
      webhookDispatcher,
      idempotency: new IdempotencyStore({ sequelize, clock }),
      jobs: new JobAdminService(new JobAdminRepository(sequelize), { queue, audit }),
      organizations: new OrganizationService({ sequelize, sql, clock, audit, events: domainEvents }),
      resources: new ResourceService({ sequelize, sql, storage, audit, events: domainEvents, clock, logger: logger.child({ module: 'library' }), uploads }),
      resourceFiles: new ResourceFileService({ sql, clock }),
      ingestion: new IngestionService({ sequelize, sql, repository: ingestionRepository, pipelines, queue, clock }),
      ingestionRunner: new IngestionRunner({ sequelize, repository: ingestionRepository, pipelines, storage, embedder, clock, logger: logger.child({ module: 'ingestion' }), libreOfficePath: config.ai.libreOfficePath }),
      resourceCatalog: new ResourceCatalogService({ sequelize, sql }),
      resourceCategories: new ResourceCategoryService({ sequelize, sql, clock, audit }),
      categoryIcons: new CategoryIconService({ sequelize, sql, storage, audit, logger: logger.child({ module: 'library' }) }),
      resourceEntitlements: new ResourceEntitlementService({ sequelize, sql, clock, audit, events: domainEvents }),
      publicCatalogue: new PublicCatalogueService({ sql, visitorSecret: deriveKey(options.appSecret, 'library-visitor').toString('base64url') }),
      resourceReports: new ResourceReportService({ sql, sequelize, clock }),
      usageRollup: new UsageRollup({ sequelize, sql }),
      generation: new GenerationService({ sequelize, sql, clock, queue, storage, maxPages: config.ai.generationMaxPages }),
      generationWorker,
      uploads,
      thumbnails: new ThumbnailService({ sql, storage, renderer: new ThumbnailRenderer(ffmpegLocator(config.ai.ffmpegPath)), logger: logger.child({ module: 'thumbnails' }) }),
      chat: new ChatService({ sql, sequelize, embedder, anthropic, logger: logger.child({ module: 'chat' }) }),
    },
    onClose(cleanup) {
      cleanups.push(cleanup);
    },
    async close() {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      await limiter.close();
      await queue.stop();
      mailer?.close();
      redis?.disconnect();
    },
  };
  // each module's reactions to other modules' events (the webhooks module's publisher, inline)
  for (const manifest of modules as readonly ModuleManifest[]) {
    for (const subscriber of manifest.subscribers?.(container) ?? []) domainEvents.subscribe(subscriber);
  }
  queue.runAlongside(webhookDispatcher);
  return container;
}
