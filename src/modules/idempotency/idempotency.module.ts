import { bindJob, defineModule } from '../../shared/module-manifest.ts';
import { idempotencyPurgeJob } from './idempotency-purge.job.ts';
import { IdempotencyStore } from './idempotency.store.ts';

export const idempotencyModule = defineModule({
  name: 'idempotency',
  services: ({ platform }) => ({
    idempotency: new IdempotencyStore({
      sequelize: platform.db.sequelize,
      clock: platform.clock,
      key: platform.deriveKey('idempotency-responses'),
    }),
  }),
  jobs: [idempotencyPurgeJob],
  handlers: ({ services }) => [bindJob(idempotencyPurgeJob, services.idempotency)],
  errors: ['idempotency_key_reused', 'idempotency_in_progress'],
});
