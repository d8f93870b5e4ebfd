import { writesOnlyInSpaces } from '@strata/domain/governance';
import { AuthContext } from './auth-context';
import { AuthErrors } from './auth-errors';
import { AccessKind, AuthTag } from './route-tags';

/** What a route asks of its caller: its auth tag and whether it writes. */
export interface RouteAuth {
  tag: AuthTag;
  access: AccessKind | undefined;
}

const BEARER_RE = /^Bearer +(\S+) *$/i;
/** the Bearer scheme, whatever follows it */
const BEARER_SCHEME_RE = /^Bearer(?:\s|$)/i;
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const JWT_ONLY = new Set<AuthTag>(['user_jwt', 'owner_admin_jwt', 'owner_jwt']);

export function isReadMethod(method: string): boolean {
  return READ_METHODS.has(method);
}

/**
 * The token of `Authorization: Bearer <token>`. No header, or another scheme: 401
 * unauthorized. A Bearer header whose token is not one token (`Bearer`, `Bearer x y`): 401
 * invalid_token, a malformed token (REFERENCE §1.11).
 */
export function bearerTokenOf(header: unknown): string {
  if (typeof header !== 'string') throw AuthErrors.unauthorized();
  const m = BEARER_RE.exec(header);
  if (m) return m[1];
  throw BEARER_SCHEME_RE.test(header) ? AuthErrors.invalidToken() : AuthErrors.unauthorized();
}

/** `X-Org-Id`: which organization a user with several means; API keys ignore it. */
export function orgHeaderOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The authorization rules applied once the credential is known: JWT-only tags refuse API keys
 * and check the role; organization routes need an organization; read-only credentials may not
 * call a writing route (REFERENCE §1.11), except an org viewer on a route the Space rule judges.
 */
export function assertRouteAccess(route: RouteAuth, method: string, auth: AuthContext): void {
  if (JWT_ONLY.has(route.tag)) {
    if (auth.credential !== 'user_jwt') throw AuthErrors.apiKeyNotAllowed();
    if (route.tag === 'owner_jwt' && auth.role !== 'owner') throw AuthErrors.insufficientRole('owner');
    if (route.tag === 'owner_admin_jwt' && auth.role !== 'owner' && auth.role !== 'admin') throw AuthErrors.insufficientRole('admin');
  } else if (auth.org_id === '') {
    throw AuthErrors.noOrganization();
  }
  if (route.tag === 'api_key_or_jwt' && !READ_METHODS.has(method) && route.access !== 'read' && route.access !== 'by_action' && !auth.scopes.includes('write')) {
    // an org viewer reaches a Space-judged write; the unit of work keeps it inside its Spaces
    if (route.access === 'in_spaces' && writesOnlyInSpaces(auth)) return;
    throw AuthErrors.readOnly();
  }
}
