import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import {
  DEFAULT_RETRY_DELAYS_SECONDS,
  retryDelaySeconds,
  totalScheduleSeconds,
} from '../../src/modules/webhooks/webhook.retry-schedule.ts';
import { newWebhookSecret, signDelivery } from '../../src/modules/webhooks/webhook.signer.ts';

describe('webhook signing and retry schedule', () => {
  const body = JSON.stringify({ type: 'member.created', timestamp: '2026-11-22T10:00:00.000Z', data: { id: 'm1' } });

  it('when a delivery is signed, then the standardwebhooks library verifies it', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const headers = signDelivery([secret], 'msg_1', new Date(), body);
    assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(new Webhook(secret).verify(body, { ...headers }), JSON.parse(body));
  });

  it('when the body, the id or the secret differ, then verification fails', () => {
    const secret = newWebhookSecret();
    const headers = signDelivery([secret], 'msg_1', new Date(), body);
    assert.throws(() => new Webhook(secret).verify(body.replace('m1', 'm2'), { ...headers }), WebhookVerificationError);
    assert.throws(
      () => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_2' }),
      WebhookVerificationError,
    );
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, { ...headers }), WebhookVerificationError);
  });

  it('when two secrets sign (after a rotation), then either secret verifies', () => {
    const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()];
    const headers = signDelivery([newSecret, oldSecret], 'msg_1', new Date(), body);
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    assert.ok(new Webhook(oldSecret).verify(body, { ...headers }));
    assert.ok(new Webhook(newSecret).verify(body, { ...headers }));
  });

  it('when the default schedule runs out, then it has spanned about three days in ten attempts', () => {
    const hours = totalScheduleSeconds(DEFAULT_RETRY_DELAYS_SECONDS) / 3600;
    assert.ok(hours > 66 && hours < 78, `${hours} h`);
    assert.equal(DEFAULT_RETRY_DELAYS_SECONDS.length + 1, 10);
    assert.equal(retryDelaySeconds(DEFAULT_RETRY_DELAYS_SECONDS.length + 1, DEFAULT_RETRY_DELAYS_SECONDS), null);
  });

  it('when a delay is drawn, then it stays within 10% of the schedule', () => {
    assert.equal(
      retryDelaySeconds(2, [5, 300], () => 0),
      270,
    );
    assert.equal(
      retryDelaySeconds(2, [5, 300], () => 1),
      330,
    );
    assert.equal(
      retryDelaySeconds(1, [1], () => 0),
      1,
    );
  });
});
