import { webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError, errors } from '../../shared/errors.ts';
import type { Clock } from '../../shared/clock.ts';
import type { ImpersonationMode } from '../../shared/access/actor.ts';
import type { Role } from '../../shared/access/roles.ts';

export interface TokenClaims {
  sub: string;
  org: string | null;
  roles: Role[];
  /** RFC 8176 authentication methods: pwd, otp. */
  amr: string[];
  /** RFC 8693 actor claim: the administrator behind an impersonation token. */
  act?: { sub: string };
  /** Impersonation session id. */
  sid?: string;
  mode?: ImpersonationMode;
}

export interface IssuedToken {
  token: string;
  expiresAt: Date;
  expiresIn: number;
}

const ISSUER = 'guildhall';

export class TokenService {
  /** Imported once: handing jose raw bytes makes it import the key again on every verification. */
  private readonly key: Promise<webcrypto.CryptoKey>;
  /** Tokens already verified, until they expire: a client sends the same token many times. */
  private readonly verified = new Map<string, TokenClaims & { exp: number }>();

  constructor(
    secret: Uint8Array,
    private readonly clock: Clock,
    private readonly defaultTtlSeconds: number,
  ) {
    this.key = webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  }

  async issue(claims: TokenClaims, ttlSeconds = this.defaultTtlSeconds): Promise<IssuedToken> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    const { sub, ...rest } = claims;
    const token = await new SignJWT({ ...rest })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(sub)
      .setIssuer(ISSUER)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(await this.key);
    return { token, expiresAt: new Date((now + ttlSeconds) * 1000), expiresIn: ttlSeconds };
  }

  async verify(token: string): Promise<TokenClaims> {
    const known = this.verified.get(token);
    if (known) {
      if (known.exp * 1000 > this.clock.now().getTime()) return known;
      this.verified.delete(token);
    }
    try {
      const { payload } = await jwtVerify(token, await this.key, {
        issuer: ISSUER,
        algorithms: ['HS256'],
        currentDate: this.clock.now(),
      });
      const claims = payload as unknown as TokenClaims & { exp: number };
      if (this.verified.size >= 10_000) this.verified.clear();
      this.verified.set(token, claims);
      return claims;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new AppError('token_expired', 'The token has expired');
      throw errors.unauthenticated('The bearer token is not valid');
    }
  }
}
