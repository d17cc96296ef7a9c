import { decrypt, encrypt } from '../../shared/crypto.ts';
import type { WebhookSubscription } from './webhook-subscription.model.ts';

/** Signing secrets are sealed at rest (AES-256-GCM) with a key derived from APP_SECRET. */
export class WebhookSecrets {
  constructor(private readonly key: Buffer) {}

  seal(secret: string): string {
    return encrypt(this.key, secret);
  }

  /** The secrets that sign a delivery now: the current one, and the previous during its grace period. */
  signingSecrets(subscription: WebhookSubscription, now: Date): string[] {
    const secrets = [decrypt(this.key, subscription.secretSealed)];
    const previous = subscription.previousSecretSealed;
    if (previous && subscription.previousSecretExpiresAt && subscription.previousSecretExpiresAt > now) secrets.push(decrypt(this.key, previous));
    return secrets;
  }
}
