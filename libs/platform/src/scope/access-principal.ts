import { AuthContext } from '@strata/auth/auth-context';
import { AccessPrincipal } from '@strata/domain/governance';

/** The facts of an authenticated request the governance rules read. */
export function accessPrincipalOf(auth: AuthContext): AccessPrincipal {
  return {
    credential: auth.credential,
    user_id: auth.user_id,
    role: auth.role,
    scopes: auth.scopes,
    bound_agent_id: auth.bound_agent_id,
    space_uids: auth.space_uids,
    project_uids: auth.project_uids,
  };
}
