import { DomainError } from '@strata/domain/errors';

/**
 * The authentication and authorization failures of REFERENCE §1.10–1.11, with their exact
 * bodies. Every 401 gets `WWW-Authenticate` from the exception filter.
 */
export const AuthErrors = {
  unauthorized: () => new DomainError(401, 'unauthorized', 'missing Authorization: Bearer <token> header'),
  invalidToken: () => new DomainError(401, 'invalid_token', 'invalid token'),
  tokenExpired: () => new DomainError(401, 'token_expired', 'access token expired'),
  apiKeyExpired: () => new DomainError(403, 'api_key_expired', 'API key expired'),
  apiKeyNotAllowed: () => new DomainError(403, 'api_key_not_allowed', 'this route requires a signed-in user'),
  insufficientRole: (required: 'owner' | 'admin') =>
    new DomainError(403, 'insufficient_role', `${required} role required`, { required_role: required }),
  readOnly: () => new DomainError(403, 'read_only_credential', 'this credential is read-only; writes are not allowed'),
  planRequired: (plan: string, message = 'managed agents require the Pro plan or higher') =>
    new DomainError(403, 'plan_required', message, { required_plan: plan }),
  planLimitReached: (limit: string, max: number, current: number, plan: string) =>
    new DomainError(403, 'plan_limit_reached', `the ${plan} plan allows at most ${max} ${limit.replace(/_/g, ' ')}; upgrade the plan to add more`, {
      limit,
      max,
      current,
      plan,
    }),
  notAMember: (org: string) => new DomainError(403, 'forbidden', `you are not a member of organization ${org}`),
  noOrganization: () => new DomainError(403, 'forbidden', 'you are not a member of any organization'),
  rateLimited: (retryAfter: number) =>
    new DomainError(429, 'rate_limited', 'rate limit exceeded; retry later', { retry_after: retryAfter }),
  // Sign-in and refresh are public routes, which never answer 401 (§1.11), and §1.10 has no
  // code for rejected credentials in a body: they are a request field with an invalid value.
  /** wrong e-mail or password: the same answer for both, so it does not tell which */
  invalidCredentials: () => new DomainError(400, 'invalid_field', 'invalid email or password'),
  /** unknown, malformed, expired, revoked or already used refresh token */
  invalidRefreshToken: () =>
    new DomainError(400, 'invalid_field', 'invalid refresh token: unknown, expired, revoked or already used; sign in again', { field: 'refresh_token' }),
};
