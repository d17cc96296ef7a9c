import { Secret, TOTP } from 'otpauth';

const ISSUER = 'Guildhall';
const PERIOD_SECONDS = 30;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, label: string): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

export function otpauthUri(secret: string, label: string): string {
  return totp(secret, label).toString();
}

/**
 * The time step the code belongs to, or null when it is not valid. Accepts the current step and one
 * on either side, for clock drift between phone and server; the caller refuses a step already used.
 */
export function totpStep(secret: string, code: string, at: Date): number | null {
  const delta = totp(secret, 'verify').validate({ token: code, timestamp: at.getTime(), window: 1 });
  return delta === null ? null : Math.floor(at.getTime() / 1000 / PERIOD_SECONDS) + delta;
}

/** What an authenticator app shows at that moment (tests and the demo seeder use it). */
export function totpCode(secret: string, at: Date): string {
  return totp(secret, 'generate').generate({ timestamp: at.getTime() });
}
