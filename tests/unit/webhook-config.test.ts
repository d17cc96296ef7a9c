import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { DEFAULT_RETRY_DELAYS_SECONDS } from '../../src/modules/webhooks/webhook.retry-schedule.ts';

const SECRET = 'x'.repeat(32);

describe('webhook settings', () => {
  it('when nothing is set, then the three-day schedule, a 5 s timeout, 64 in flight, a 5-failure circuit and no private targets apply', () => {
    const { webhooks } = loadConfig({});
    assert.deepEqual(webhooks, {
      allowPrivateTargets: false,
      timeoutMs: 5_000,
      retryDelaysSeconds: [...DEFAULT_RETRY_DELAYS_SECONDS],
      concurrency: 64,
      pollIntervalMs: 500,
      breakerThreshold: 5,
      breakerCooldownSeconds: 60,
    });
  });

  it('when a retry schedule is given, then it is whole seconds, comma-separated', () => {
    assert.deepEqual(loadConfig({ WEBHOOKS_RETRY_DELAYS: '1, 2,3' }).webhooks.retryDelaysSeconds, [1, 2, 3]);
    for (const bad of ['1,two', '0', '1.5', '-1', '999999999']) {
      assert.throws(() => loadConfig({ WEBHOOKS_RETRY_DELAYS: bad }), ConfigError, bad);
    }
  });

  it('when private targets are allowed in production, then the start is refused', () => {
    assert.throws(
      () =>
        loadConfig({
          NODE_ENV: 'production',
          APP_SECRET: SECRET,
          SMTP_URL: 'smtp://mail.example.test',
          WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
        }),
      /WEBHOOKS_ALLOW_PRIVATE_TARGETS/,
    );
    assert.equal(
      loadConfig({ NODE_ENV: 'production', APP_SECRET: SECRET, SMTP_URL: 'smtp://mail.example.test' }).webhooks
        .allowPrivateTargets,
      false,
    );
    assert.equal(loadConfig({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }).webhooks.allowPrivateTargets, true);
  });
});
