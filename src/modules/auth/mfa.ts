import { Secret, TOTP } from 'otpauth';

const ISSUER = 'Guildhall';

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, label: string): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(secret),
  });
}

export function otpauthUri(secret: string, label: string): string {
  return totp(secret, label).toString();
}

/** Accepts the current step and one on either side, for clock drift between phone and server. */
export function verifyTotp(secret: string, code: string, at: Date): boolean {
  return totp(secret, 'verify').validate({ token: code, timestamp: at.getTime(), window: 1 }) !== null;
}

/** What an authenticator app shows at that moment (tests and the demo seeder use it). */
export function totpCode(secret: string, at: Date): string {
  return totp(secret, 'generate').generate({ timestamp: at.getTime() });
}
