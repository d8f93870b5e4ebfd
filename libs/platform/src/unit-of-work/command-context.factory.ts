import { AuthContext, REQUEST_FACTS } from '@strata/auth/auth-context';
import { readString } from '@strata/domain/validation';
import { CommandContext } from './command-context';
import { accessPrincipalOf } from '../scope/access-principal';
import type { HttpRequestFacts } from '../policy/http-request';

/**
 * Builds the command context from the credential. `agent_id` in the body is attribution
 * only; a key bound to an agent always attributes to that agent (REFERENCE §1.5).
 */
export function commandContext(auth: AuthContext, requestId: string, body?: Record<string, unknown>): CommandContext {
  const bodyAgent = body ? readString(body, 'agent_id', { max: 128 }) ?? null : null;
  return {
    org: auth.org_id,
    principal: auth.principal,
    credential_id: auth.api_key_id,
    agent_id: auth.bound_agent_id ?? bodyAgent,
    request_id: requestId,
    access: accessPrincipalOf(auth),
    http: auth[REQUEST_FACTS] as HttpRequestFacts | undefined,
    ...(auth.tool_call ? { tool_call: { approval_id: auth.tool_call.approval_id } } : {}),
    ...(body && body.space_uid !== undefined && body.space_uid !== null ? { space_uid: body.space_uid } : {}),
  };
}
