import { decrypt, encrypt } from '../../shared/crypto.ts';

/** The subscription's secret cannot be read back (wrong APP_SECRET, damaged value): no retry can fix it. */
export class UnsealableSecretError extends Error {
  constructor(cause: unknown) {
    super(`the signing secret cannot be unsealed (${(cause as Error).message})`, { cause });
    this.name = 'UnsealableSecretError';
  }
}

/** A secret a rotation replaced: it keeps signing until `expiresAt` (ISO 8601), so receivers can switch. */
export interface RetiredSecret {
  sealed: string;
  expiresAt: string;
}

export interface SealedSecrets {
  secretSealed: string;
  retiredSecrets: readonly RetiredSecret[];
}

/** Retired secrets kept at most (each adds a signature to every delivery's header). */
const MAX_RETIRED_SECRETS = 5;

/**
 * The retired list after a rotation: the secret just replaced first, then those still in their grace.
 * Each keeps its own expiry, so a second rotation within the day does not cut the first one's short.
 */
export function retire(subscription: SealedSecrets, expiresAt: Date, now: Date): RetiredSecret[] {
  const live = subscription.retiredSecrets.filter((retired) => new Date(retired.expiresAt) > now);
  return [{ sealed: subscription.secretSealed, expiresAt: expiresAt.toISOString() }, ...live].slice(
    0,
    MAX_RETIRED_SECRETS,
  );
}

/** Signing secrets are sealed at rest (AES-256-GCM) with a key derived from APP_SECRET. */
export class WebhookSecrets {
  constructor(private readonly key: Buffer) {}

  seal(secret: string): string {
    return encrypt(this.key, secret);
  }

  /**
   * The secrets that sign a delivery now: the current one, and each retired one during its grace
   * period. The current one must unseal (UnsealableSecretError otherwise); a retired one that does not
   * is left out, so rotating the secret repairs a subscription whose old secret was lost.
   */
  signingSecrets(subscription: SealedSecrets, now: Date): string[] {
    let current: string;
    try {
      current = decrypt(this.key, subscription.secretSealed);
    } catch (error) {
      throw new UnsealableSecretError(error);
    }
    const secrets = [current];
    for (const retired of subscription.retiredSecrets) {
      if (new Date(retired.expiresAt) <= now) continue;
      try {
        secrets.push(decrypt(this.key, retired.sealed));
      } catch {
        // the newer secrets sign without it
      }
    }
    return secrets;
  }
}
