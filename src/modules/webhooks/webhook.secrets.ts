import { decrypt, encrypt } from '../../shared/crypto.ts';

/** The subscription's secret cannot be read back (wrong APP_SECRET, damaged value): no retry can fix it. */
export class UnsealableSecretError extends Error {
  constructor(cause: unknown) {
    super(`the signing secret cannot be unsealed (${(cause as Error).message})`, { cause });
    this.name = 'UnsealableSecretError';
  }
}

export interface SealedSecrets {
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
}

/** Signing secrets are sealed at rest (AES-256-GCM) with a key derived from APP_SECRET. */
export class WebhookSecrets {
  constructor(private readonly key: Buffer) {}

  seal(secret: string): string {
    return encrypt(this.key, secret);
  }

  /**
   * The secrets that sign a delivery now: the current one, and the previous during its grace period.
   * The current one must unseal (UnsealableSecretError otherwise); a previous one that does not is left
   * out, so rotating the secret repairs a subscription whose old secret was lost.
   */
  signingSecrets(subscription: SealedSecrets, now: Date): string[] {
    let current: string;
    try {
      current = decrypt(this.key, subscription.secretSealed);
    } catch (error) {
      throw new UnsealableSecretError(error);
    }
    const secrets = [current];
    const previous = subscription.previousSecretSealed;
    if (previous && subscription.previousSecretExpiresAt && subscription.previousSecretExpiresAt > now) {
      try {
        secrets.push(decrypt(this.key, previous));
      } catch {
        // the new secret signs alone
      }
    }
    return secrets;
  }
}
