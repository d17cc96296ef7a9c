import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { idempotencyPurgeJob } from './idempotency-purge.job.ts';

export const idempotencyModule = defineModule({
  name: 'idempotency',
  jobs: [bindJob(idempotencyPurgeJob, (c) => c.services.idempotency)],
  errors: ['idempotency_key_reused', 'idempotency_in_progress'],
});
