// Production must deliver its e-mail: without SMTP the welcome passwords and password links would wait
// in the outbox table instead of reaching their recipients, so the start is refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const PRODUCTION = { NODE_ENV: 'production', APP_SECRET: 'p'.repeat(32) };

describe('mail settings in production', () => {
  it('when NODE_ENV=production has no SMTP_URL, then the configuration is refused, naming it', () => {
    assert.throws(
      () => loadConfig(PRODUCTION),
      (error: unknown) =>
        error instanceof ConfigError && /SMTP_URL is required when NODE_ENV=production/.test(error.message),
    );
    assert.throws(() => loadConfig({ ...PRODUCTION, SMTP_URL: '  ' }), ConfigError);
  });

  it('when NODE_ENV=production has an SMTP_URL, then it starts with it', () => {
    assert.equal(
      loadConfig({ ...PRODUCTION, SMTP_URL: 'smtps://user:pass@mail.example.test:465' }).smtpUrl,
      'smtps://user:pass@mail.example.test:465',
    );
  });

  it('when developing or testing without SMTP_URL, then mail stays in the outbox and the start goes on', () => {
    assert.equal(loadConfig({}).smtpUrl, undefined);
    assert.equal(loadConfig({ NODE_ENV: 'test' }).smtpUrl, undefined);
  });
});
