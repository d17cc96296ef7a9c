// What no module owns: the outbox of domain events, pipeline step state and the rate-limit counters.
// It takes the manifest's shape so the catalogs are derived from one list.
import { PipelineRun, PipelineStepRecord } from '../jobs/pipeline/pipeline-run.model.ts';
import { pipelinePurgeJob } from '../jobs/pipeline/pipeline-purge.job.ts';
import { domainEventDeliverJob, domainEventsPurgeJob } from './domain-events/domain-event-deliver.job.ts';
import { DomainEventRecord } from './domain-events/domain-event.model.ts';
import { bindJob, defineModule } from './module-manifest.ts';
import { rateLimitPurgeJob } from './rate-limit-purge.job.ts';

export const platformModule = defineModule({
  name: 'platform',
  models: { DomainEvent: DomainEventRecord, PipelineRun, PipelineStep: PipelineStepRecord },
  jobs: [rateLimitPurgeJob, domainEventDeliverJob, domainEventsPurgeJob, pipelinePurgeJob],
  handlers: ({ platform: { counterStore, clock, domainEvents, pipelines, config } }) => [
    bindJob(rateLimitPurgeJob, { counterStore, clock }),
    bindJob(domainEventDeliverJob, domainEvents),
    bindJob(domainEventsPurgeJob, { events: domainEvents, clock, retentionDays: config.domainEvents.retentionDays }),
    bindJob(pipelinePurgeJob, { pipelines, clock, retentionDays: config.pipelines.retentionDays }),
  ],
});
