import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { ingestionRunJob } from './ingestion.job.ts';
import { IngestionRunner } from './ingestion.pipeline.ts';
import { IngestionRepository } from './ingestion.repository.ts';
import { ingestionRoutes } from './ingestion.routes.ts';
import { IngestionService } from './ingestion.service.ts';
import { ingestionSubscriber } from './ingestion.subscriber.ts';
import { reembedJob } from './reembed.job.ts';

/** Library documents -> located, embedded passages for retrieval (docs/ai.md). */
export const ingestionModule = defineModule({
  name: 'ingestion',
  services: ({ platform }) => {
    const { db, sql, pipelines, queue, clock, storage, embedder, logger, config } = platform;
    const repository = new IngestionRepository(sql);
    return {
      /** Library ingestion: status, re-run, reactions to resource events (the runner embeds, in jobs). */
      ingestion: new IngestionService({ sequelize: db.sequelize, sql, repository, pipelines, queue, clock }),
      ingestionRunner: new IngestionRunner({
        sequelize: db.sequelize,
        repository,
        pipelines,
        storage,
        embedder,
        clock,
        logger: logger.child({ module: 'ingestion' }),
        libreOfficePath: config.ai.libreOfficePath,
      }),
    };
  },
  routes: {
    api:
      ({ services }) =>
      (router) =>
        ingestionRoutes(router, services.ingestion),
  },
  jobs: [ingestionRunJob, reembedJob],
  handlers: ({ services, platform }) => [
    bindJob(ingestionRunJob, { runner: services.ingestionRunner }),
    bindJob(reembedJob, {
      repository: services.ingestionRunner.repository,
      embedder: platform.embedder,
      maxPassages: 2000,
      batchSize: 32,
    }),
  ],
  subscribers: ({ services }) => [ingestionSubscriber(services.ingestion)],
});
