import { Principal } from '@strata/domain/events';

/** Who writes, for which organization, under which request: becomes every event's metadata. */
export interface CommandContext {
  org: string;
  principal: Principal;
  /** api key id when the credential is a key */
  credential_id: string | null;
  /** attribution for this write: the bound agent of an agent-bound key, else the body's agent_id */
  agent_id: string | null;
  request_id: string;
  /** set by the unit of work in server mode when read models had not caught up in time */
  lagging?: boolean;
}

export const SYSTEM_PRINCIPAL: Principal = { kind: 'system', id: 'system' };
