// Standard Webhooks signing (https://www.standardwebhooks.com), with the reference library, so
// any receiver using a Standard Webhooks verifier accepts our deliveries.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** `whsec_` + base64 of 32 random bytes (256-bit HMAC key). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Headers for one attempt. Several secrets (just after a rotation) give several space-separated
 * signatures; a receiver accepts the message if any of them verifies with the secret it holds.
 */
export function signDelivery(
  secrets: readonly string[],
  eventId: string,
  timestamp: Date,
  body: string,
): SignedHeaders {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, timestamp, body)).join(' '),
  };
}
