import { FliteVoiceEngine } from '../../integrations/speech/flite.engine.ts';
import type { VoiceEngine } from '../../integrations/speech/voice-engine.ts';
import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { GeneratedContent } from './generated-content.model.ts';
import { infographicJob, podcastJob } from './generation.job.ts';
import { generationRoutes } from './generation.routes.ts';
import { GenerationService } from './generation.service.ts';
import { staleOnNewVersion } from './generation.subscriber.ts';
import { GenerationWorker } from './generation.worker.ts';

export const generationModule = defineModule({
  name: 'generation',
  models: { GeneratedContent },
  services: ({ platform }) => {
    const { db, sql, clock, queue, storage, logger, config, anthropic, onClose } = platform;
    // the speech engine's child processes start with the first podcast and stop with the container
    let voices: VoiceEngine | undefined;
    onClose(() => voices?.close());
    return {
      generation: new GenerationService({
        sequelize: db.sequelize,
        sql,
        clock,
        queue,
        storage,
        maxPages: config.ai.generationMaxPages,
      }),
      generationWorker: new GenerationWorker({
        sequelize: db.sequelize,
        sql,
        clock,
        storage,
        logger: logger.child({ module: 'generation' }),
        voices: () => (voices ??= new FliteVoiceEngine({ logger: logger.child({ module: 'speech' }) })),
        ffmpegPath: config.ai.ffmpegPath,
        claude: anthropic && { client: anthropic.client, model: anthropic.model },
      }),
    };
  },
  routes: {
    api:
      ({ services, platform }) =>
      (router) =>
        generationRoutes(router, services.generation, platform.storage),
  },
  jobs: [podcastJob, infographicJob],
  handlers: ({ services }) => [
    bindJob(podcastJob, services.generationWorker),
    bindJob(infographicJob, services.generationWorker),
  ],
  subscribers: ({ platform }) => [staleOnNewVersion(platform.sql)],
  permissions: ['content:generate'],
  errors: ['source_not_ingested', 'source_too_long'],
});
