import { Principal } from '@strata/domain/events';
import type { AccessPrincipal } from '@strata/domain/governance';
import type { HttpRequestFacts, RequestOrigin } from '../policy/http-request';

/** Who writes, for which organization, under which request: becomes every event's metadata. */
export interface CommandContext {
  org: string;
  principal: Principal;
  /** api key id when the credential is a key */
  credential_id: string | null;
  /** attribution for this write: the bound agent of an agent-bound key, else the body's agent_id */
  agent_id: string | null;
  request_id: string;
  /** what the governance rules read about the caller; absent for server processes (unrestricted) */
  access?: AccessPrincipal;
  /** top-level `space_uid` of the request: the Space its new nodes go in (REFERENCE §13.1) */
  space_uid?: unknown;
  /** the HTTP request behind the write, when there is one: what structured policies judge (REFERENCE §13.6) */
  http?: HttpRequestFacts;
  /** an agent's tool call made through its route (REFERENCE §15.10): policies ask for a tool approval */
  tool_call?: { approval_id: string | null };
  /** a background write made for an HTTP request (a job's unit): judged by policies as that request */
  origin?: RequestOrigin;
  /** set by the unit of work in server mode when read models had not caught up in time */
  lagging?: boolean;
}

export const SYSTEM_PRINCIPAL: Principal = { kind: 'system', id: 'system' };
