// The job catalog: names, payloads and policies, known without a container or a database.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { jobTypes, queueSpecs } from '../../src/jobs/catalog.ts';
import { defineJob, payloadOf } from '../../src/jobs/job.ts';
import { JobQueue, type JobHandlers } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/shared/logger.ts';

const config = loadConfig({ NODE_ENV: 'test', MAIL_RETRY_LIMIT: '7', MAIL_RETRY_DELAY_SECONDS: '45' });
const queueOf = () =>
  new JobQueue({
    url: 'postgres://nobody@127.0.0.1:1/none',
    logger: createLogger('silent'),
    pollingIntervalSeconds: 1,
    specs: queueSpecs(config),
  });

describe('the job catalog', () => {
  it('when its policies are resolved, then names are unique, policies come from the type or the configuration, and schedules are cron', () => {
    const specs = queueSpecs(config);
    assert.equal(new Set(specs.map((s) => s.name)).size, jobTypes.length);
    const mail = specs.find((s) => s.name === 'mail.send')!;
    assert.deepEqual(mail.retry, { limit: 7, delaySeconds: 45, backoff: true });
    for (const type of jobTypes.filter((type) => type.retry && typeof type.retry !== 'function')) {
      assert.deepEqual(specs.find((s) => s.name === type.name)!.retry, type.retry, type.name);
    }
    for (const spec of specs.filter((s) => s.schedule)) assert.match(spec.schedule!, /^(\S+ ){4}\S+$/, spec.name);
  });

  it('when a type is declared twice, then resolving the catalog fails', () => {
    const twice = defineJob({
      name: 'idempotency.purge',
      payload: payloadOf<object>(),
      handler: () => async () => undefined,
    });
    assert.throws(() => queueSpecs(config, [...jobTypes, twice]), /idempotency.purge is declared twice/);
  });

  it("when workers start without the registry's handlers, or a handler or job names no catalog type, then it refuses", async () => {
    const queue = queueOf();
    await assert.rejects(
      queue.start({ workers: true }),
      /No handler registered for .*mail.send, .*generation.infographic/,
    );
    assert.throws(
      () => queue.register({ 'no.such': async () => undefined } as unknown as JobHandlers),
      /not in the job catalog/,
    );
    await assert.rejects(queue.enqueue('no.such' as 'mail.send', { messageId: 'x' }), /Unknown job type no.such/);
  });
});
