// A queue's retry policy follows the configuration on every start, not only on the first one
// (pg-boss's createQueue leaves an existing queue unchanged).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { queueSpecs } from '../../src/jobs/catalog.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

describe('job queue policies', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { MAIL_RETRY_LIMIT: '3' } });
  });
  after(() => t.close());

  it('when MAIL_RETRY_LIMIT changes between two starts, then the existing mail.send queue takes the new limit', async () => {
    assert.equal((await t.container.queue.pgBoss.getQueue('mail.send'))?.retryLimit, 3);
    const config = loadConfig({ NODE_ENV: 'test', MAIL_RETRY_LIMIT: '9', MAIL_RETRY_DELAY_SECONDS: '12' });
    const restarted = new JobQueue({
      url: t.db.url,
      logger: createLogger('silent'),
      pollingIntervalSeconds: 60,
      specs: queueSpecs(config),
    });
    try {
      await restarted.start({ workers: false });
      const queue = await restarted.pgBoss.getQueue('mail.send');
      assert.deepEqual([queue?.retryLimit, queue?.retryDelay], [9, 12]);
    } finally {
      await restarted.stop();
    }
  });
});
