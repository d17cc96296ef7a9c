import { TesseractOcr } from '../../integrations/documents/ocr.ts';
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
    const { db, sql, pipelines, queue, clock, storage, embedder, logger, config, onClose } = platform;
    const repository = new IngestionRepository(sql);
    // the OCR worker thread starts with the first scanned page, in the process that runs ingestions
    const ocr = config.ai.ocr.enabled ? new TesseractOcr() : undefined;
    if (ocr) onClose(() => ocr.close());
    return {
      /** Library ingestion: status, re-run, reactions to resource events (the runner embeds, in jobs). */
      ingestion: new IngestionService({
        sequelize: db.sequelize,
        sql,
        repository,
        pipelines,
        queue,
        clock,
        ocr: Boolean(ocr),
      }),
      ingestionRunner: new IngestionRunner({
        sequelize: db.sequelize,
        repository,
        pipelines,
        storage,
        embedder,
        clock,
        logger: logger.child({ module: 'ingestion' }),
        libreOfficePath: config.ai.libreOfficePath,
        ocr,
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
