import { AuthContext } from '@strata/auth/auth-context';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';

/** Command context of an account change made by the caller, for organization `org`. */
export function accountContext(auth: AuthContext, requestId: string, org: string = auth.org_id): CommandContext {
  return { org, principal: auth.principal, credential_id: auth.api_key_id, agent_id: null, request_id: requestId };
}
