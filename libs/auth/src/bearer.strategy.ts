import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { AuthContext } from './auth-context';
import { CredentialResolver } from './credential-resolver';

export const STRATA_BEARER = 'strata-bearer';

/**
 * What the guard hands to passport instead of the real request: only the Authorization
 * header (so `access_token` body or query fields, which passport-http-bearer would also
 * accept, never authenticate), the X-Org-Id choice, and the resolver of this application
 * instance (passport keeps strategies in a process-wide registry; tests run several apps).
 */
export interface BearerRequest {
  headers: { authorization: string };
  org_header: string | undefined;
  resolver: CredentialResolver;
  user?: AuthContext;
}

/**
 * The passport-http-bearer strategy: `validate` resolves the token — user JWT or `strata_`
 * API key — through the cached resolver and throws the REFERENCE §1.11 errors.
 */
@Injectable()
export class StrataBearerStrategy extends PassportStrategy(Strategy, STRATA_BEARER) {
  constructor() {
    super({ passReqToCallback: true, realm: 'strata' });
  }

  validate(req: BearerRequest, token: string): AuthContext {
    return req.resolver.resolve(token, req.org_header);
  }
}
