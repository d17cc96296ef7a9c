import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { ingestionRunJob } from './ingestion.job.ts';
import { ingestionRoutes } from './ingestion.routes.ts';
import { ingestionSubscriber } from './ingestion.subscriber.ts';
import { reembedJob } from './reembed.job.ts';

/** Library documents -> located, embedded passages for retrieval (docs/ai-ingestion.md). */
export const ingestionModule = defineModule({
  name: 'ingestion',
  routes: { api: ({ container }) => (router) => ingestionRoutes(router, container.services.ingestion) },
  jobs: [
    bindJob(ingestionRunJob, (c) => ({ runner: c.services.ingestionRunner })),
    bindJob(reembedJob, (c) => ({ repository: c.services.ingestionRunner.repository, embedder: c.embedder, maxPassages: 2000, batchSize: 32 })),
  ],
  subscribers: (container) => [ingestionSubscriber(container.services.ingestion)],
});
