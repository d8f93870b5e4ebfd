/**
 * The event envelope (DESIGN rule 4). `data` is the payload; metadata says who did it,
 * for which organization, under which request. Audit and provenance read metadata only.
 */
export type PrincipalKind = 'user' | 'api_key' | 'agent' | 'system';

export interface Principal {
  kind: PrincipalKind;
  id: string;
}

export interface EventMetadata {
  org_id: string;
  principal: Principal;
  /** the API key used, if any (for a key, also the principal); null for a user JWT */
  credential_id?: string | null;
  agent_id?: string | null;
  request_id: string;
  causation_id?: string | null;
  correlation_id?: string | null;
  /** Unix seconds, fractional */
  occurred_at: number;
}

export interface NewEvent<T = unknown> {
  type: string;
  data: T;
  metadata: EventMetadata;
}

export interface RecordedEvent<T = unknown> extends NewEvent<T> {
  /** unique event id (UUID) */
  id: string;
  stream: string;
  /** 0-based revision within the stream */
  revision: number;
  /** global position in the log; strictly increasing, starts at 1 */
  position: number;
}
