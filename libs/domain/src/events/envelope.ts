import type { DomainEvent } from './domain-event';

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

/** A typed event: its `type` says which `data` it carries. */
export interface EventOf<T extends string, D> {
  type: T;
  data: D;
}

/** An event about to be appended: one of the domain's events, with its metadata. */
export type NewEvent<E extends EventOf<string, unknown> = DomainEvent> = E & { metadata: EventMetadata };

/** An event read from the log. `switch (e.type)` narrows `e.data`. */
export type RecordedEvent<E extends EventOf<string, unknown> = DomainEvent> = NewEvent<E> & {
  /** unique event id (UUID) */
  id: string;
  stream: string;
  /** 0-based revision within the stream */
  revision: number;
  /** global position in the log; strictly increasing, starts at 1 */
  position: number;
};
