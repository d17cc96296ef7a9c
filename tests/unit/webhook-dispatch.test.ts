import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClaimedDelivery } from '../../src/modules/webhooks/webhook-delivery.repository.ts';
import { afterAttempt, type AttemptResult } from '../../src/modules/webhooks/webhook.deliverer.ts';
import { breakerChanges } from '../../src/modules/webhooks/webhook.dispatcher.ts';
import { retire, UnsealableSecretError, WebhookSecrets } from '../../src/modules/webhooks/webhook.secrets.ts';
import { deriveKey } from '../../src/shared/crypto.ts';

const delivery = (overrides: Partial<ClaimedDelivery> = {}): ClaimedDelivery => ({
  id: 'd1',
  organizationId: 'o1',
  subscriptionId: 's1',
  eventId: 'msg_1',
  attemptCount: 2,
  retryStep: 1,
  url: 'https://example.test/hooks',
  secretSealed: '',
  retiredSecrets: [],
  body: '{}',
  ...overrides,
});
const result = (statusCode: number | null, extra: Partial<AttemptResult> = {}): AttemptResult => ({
  outcome: { statusCode, durationMs: 3, error: statusCode === 204 ? null : 'HTTP x', responseExcerpt: null },
  unsealable: false,
  reachedEndpoint: true,
  ...extra,
});
const now = new Date('2026-11-23T12:00:00Z');

describe('webhook dispatch logic', () => {
  it('when an attempt fails with retries left, then the delivery stays pending until the next step of the schedule', () => {
    const next = afterAttempt(delivery(), result(503), now, [5, 300, 1800], () => 0.5);
    assert.equal(next.status, 'pending');
    assert.equal(next.retryStep, 2);
    assert.equal(next.claimedAttemptCount, 2);
    assert.equal(next.nextAttemptAt?.getTime(), now.getTime() + 300_000);
  });

  it('when an attempt succeeds, answers 410, exhausts the schedule or has no secret, then nothing more is scheduled', () => {
    assert.equal(afterAttempt(delivery(), result(204), now, [5]).status, 'succeeded');
    assert.equal(afterAttempt(delivery(), result(410), now, [5, 5, 5]).status, 'failed');
    assert.equal(afterAttempt(delivery({ retryStep: 1 }), result(500), now, [5]).status, 'failed');
    const unsealable = afterAttempt(
      delivery({ retryStep: 0 }),
      result(null, { unsealable: true, reachedEndpoint: false }),
      now,
      [5, 5],
    );
    assert.equal(unsealable.status, 'failed');
    assert.equal(unsealable.nextAttemptAt, null);
  });

  it('when a batch mixes outcomes, then each subscription counts its failures since its last success, and refusals before sending do not count', () => {
    const s1 = delivery({ subscriptionId: 's1' });
    const s2 = delivery({ subscriptionId: 's2' });
    const s3 = delivery({ subscriptionId: 's3' });
    const changes = breakerChanges([
      { delivery: s1, result: result(500) },
      { delivery: s1, result: result(204) },
      { delivery: s1, result: result(null) },
      { delivery: s2, result: result(502) },
      { delivery: s2, result: result(null) },
      { delivery: s3, result: result(null, { reachedEndpoint: false }) },
    ]);
    assert.deepEqual(changes, [
      { subscriptionId: 's1', reset: true, failures: 1 },
      { subscriptionId: 's2', reset: false, failures: 2 },
    ]);
  });

  it('when a secret is rotated twice within its grace, then both retired secrets keep their own expiry', () => {
    const day = 24 * 3600_000;
    const first = retire({ secretSealed: 'A', retiredSecrets: [] }, new Date(now.getTime() + day), now);
    const later = new Date(now.getTime() + day / 2);
    const second = retire({ secretSealed: 'B', retiredSecrets: first }, new Date(later.getTime() + day), later);
    assert.deepEqual(second, [
      { sealed: 'B', expiresAt: new Date(later.getTime() + day).toISOString() },
      { sealed: 'A', expiresAt: new Date(now.getTime() + day).toISOString() },
    ]);
    // an expired one is dropped at the next rotation
    const after = new Date(now.getTime() + day + 1);
    assert.deepEqual(
      retire({ secretSealed: 'C', retiredSecrets: second }, new Date(after.getTime() + day), after).map(
        (r) => r.sealed,
      ),
      ['C', 'B'],
    );
  });

  it('when the current secret cannot be unsealed, then a permanent error; a lost previous secret is skipped', () => {
    const secrets = new WebhookSecrets(deriveKey('one-secret-one-secret-one-secret-one-00', 'webhook-secrets'));
    const other = new WebhookSecrets(deriveKey('two-secret-two-secret-two-secret-two-00', 'webhook-secrets'));
    const later = new Date(now.getTime() + 3600_000);
    assert.throws(
      () => secrets.signingSecrets({ secretSealed: other.seal('whsec_a'), retiredSecrets: [] }, now),
      UnsealableSecretError,
    );
    assert.deepEqual(
      secrets.signingSecrets(
        {
          secretSealed: secrets.seal('whsec_b'),
          retiredSecrets: [{ sealed: other.seal('whsec_a'), expiresAt: later.toISOString() }],
        },
        now,
      ),
      ['whsec_b'],
    );
    assert.deepEqual(
      secrets.signingSecrets(
        {
          secretSealed: secrets.seal('whsec_b'),
          retiredSecrets: [
            { sealed: secrets.seal('whsec_a'), expiresAt: later.toISOString() },
            { sealed: secrets.seal('whsec_z'), expiresAt: now.toISOString() },
          ],
        },
        now,
      ),
      ['whsec_b', 'whsec_a'],
      'a retired secret signs until its own expiry, not after',
    );
  });
});
