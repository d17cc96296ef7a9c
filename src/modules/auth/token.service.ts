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
  constructor(
    private readonly key: Uint8Array,
    private readonly clock: Clock,
    private readonly defaultTtlSeconds: number,
  ) {}

  async issue(claims: TokenClaims, ttlSeconds = this.defaultTtlSeconds): Promise<IssuedToken> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    const { sub, ...rest } = claims;
    const token = await new SignJWT({ ...rest })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(sub)
      .setIssuer(ISSUER)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(this.key);
    return { token, expiresAt: new Date((now + ttlSeconds) * 1000), expiresIn: ttlSeconds };
  }

  async verify(token: string): Promise<TokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        algorithms: ['HS256'],
        currentDate: this.clock.now(),
      });
      return payload as unknown as TokenClaims;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new AppError('token_expired', 'The token has expired');
      throw errors.unauthenticated('The bearer token is not valid');
    }
  }
}
