import { JwtService } from '@nestjs/jwt';
import { randomBytes } from 'node:crypto';
import { Clock } from '@strata/domain/time';
import { AuthErrors } from '../auth-errors';

export interface AccessClaims {
  sub: string;
  typ: 'access';
  exp: number;
  iat: number;
}

/** Signs and verifies user access tokens (HS256 JWTs). */
export class TokenService {
  private readonly jwt: JwtService;

  constructor(
    secret: string,
    readonly accessTtl: number,
    readonly refreshTtl: number,
    private readonly clock: Clock,
  ) {
    this.jwt = new JwtService({ secret, signOptions: { algorithm: 'HS256' }, verifyOptions: { algorithms: ['HS256'] } });
  }

  signAccess(userId: string): { access_token: string; expires_in: number } {
    const iat = Math.floor(this.clock.now());
    const token = this.jwt.sign({ sub: userId, typ: 'access', iat, exp: iat + this.accessTtl, jti: randomBytes(8).toString('base64url') });
    return { access_token: token, expires_in: this.accessTtl };
  }

  /** Verifies signature and expiry; 401 `token_expired` or `invalid_token`. */
  verifyAccess(token: string): AccessClaims {
    let claims: AccessClaims;
    try {
      claims = this.jwt.verify<AccessClaims & object>(token, { clockTimestamp: Math.floor(this.clock.now()) });
    } catch (err) {
      if ((err as Error).name === 'TokenExpiredError') throw AuthErrors.tokenExpired();
      throw AuthErrors.invalidToken();
    }
    if (claims.typ !== 'access' || typeof claims.sub !== 'string' || typeof claims.exp !== 'number') throw AuthErrors.invalidToken();
    return claims;
  }
}
