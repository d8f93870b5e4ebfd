import { AuthContext } from '@strata/auth/auth-context';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';

/** Who writes a governance record: the signed-in user, on behalf of its organization. */
export function governanceContext(auth: AuthContext, requestId: string): CommandContext {
  return { org: auth.org_id, principal: auth.principal, credential_id: auth.api_key_id, agent_id: null, request_id: requestId };
}

/** Unix seconds as ISO 8601 (REFERENCE §13: `/v1` records use ISO times). */
export function iso(unixSeconds: number | null): string | null {
  return unixSeconds === null ? null : new Date(Math.round(unixSeconds * 1000)).toISOString();
}
