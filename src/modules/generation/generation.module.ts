import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { GeneratedContent } from './generated-content.model.ts';
import { infographicJob, podcastJob } from './generation.job.ts';
import { generationRoutes } from './generation.routes.ts';
import { staleOnNewVersion } from './generation.subscriber.ts';

export const generationModule = defineModule({
  name: 'generation',
  models: { GeneratedContent },
  routes: { api: ({ container }) => (router) => generationRoutes(router, container.services.generation, container.storage) },
  jobs: [bindJob(podcastJob, (c) => c.services.generationWorker), bindJob(infographicJob, (c) => c.services.generationWorker)],
  subscribers: ({ sql }) => [staleOnNewVersion(sql)],
  permissions: ['content:generate'],
  errors: ['source_not_ingested', 'source_too_long'],
});
