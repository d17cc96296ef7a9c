// WorkOS's webhook signature as pure logic: the header's grammar, the window's edges, rotation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  computeSignature,
  parseSignatureHeader,
  verifyIdpSignature,
} from '../../src/modules/directory/identity-service/idp-signature.ts';
import { signWebhook } from '../support/identity-service-stand-in.ts';

const SECRET = 'whsec_unit_0123456789';
const body = Buffer.from('{"id":"evt_1","event":"dsync.user.created","data":{}}');
const now = new Date('2026-05-01T12:00:00.000Z');
const check =
  (header: string | undefined, at = now) =>
  () =>
    verifyIdpSignature({ header, rawBody: body, secret: SECRET, now: at });

describe('idp webhook signature', () => {
  it('when the header is WorkOS-shaped, then its timestamp (as sent) and every v1 are read', () => {
    assert.deepEqual(parseSignatureHeader('t=1714564800000, v1=ab, v1=cd'), {
      timestamp: '1714564800000',
      signatures: ['ab', 'cd'],
    });
    assert.deepEqual(parseSignatureHeader('v1=ab,t=12'), { timestamp: '12', signatures: ['ab'] });
    assert.equal(parseSignatureHeader('t=abc, v1=ab'), null);
    assert.equal(parseSignatureHeader('t=12'), null);
    assert.equal(parseSignatureHeader(''), null);
  });

  it('when the stamp is exactly 5 minutes off either way, then accepted; a millisecond more, refused', () => {
    const t = now.getTime();
    assert.doesNotThrow(check(signWebhook(SECRET, body.toString(), t - 300_000)));
    assert.doesNotThrow(check(signWebhook(SECRET, body.toString(), t + 300_000)));
    assert.throws(check(signWebhook(SECRET, body.toString(), t - 300_001)), /older than 5 minutes/);
    assert.throws(check(signWebhook(SECRET, body.toString(), t + 300_001)), /in the future/);
  });

  it('when one of several v1 signatures matches (a rotated secret), then accepted; none, refused', () => {
    const t = now.getTime();
    const good = computeSignature(SECRET, t, body).toString('hex');
    const other = computeSignature('whsec_previous_secret', t, body).toString('hex');
    assert.doesNotThrow(check(`t=${t}, v1=${other}, v1=${good}`));
    assert.throws(check(`t=${t}, v1=${other}`), /does not match/);
    assert.throws(check(`t=${t}, v1=${good.slice(0, 62)}`), /does not match/, 'a short signature is a mismatch');
    assert.throws(check(`t=${t}, v1=${good.toUpperCase()}0`), /does not match/);
    assert.throws(check(undefined), /missing/);
  });

  it('when the timestamp is written with leading zeros, then the MAC covers the digits as sent', () => {
    const t = `0${now.getTime()}`;
    const mac = computeSignature(SECRET, t, body).toString('hex');
    assert.doesNotThrow(check(`t=${t}, v1=${mac}`));
    assert.throws(check(`t=${now.getTime()}, v1=${mac}`), /does not match/);
  });
});
