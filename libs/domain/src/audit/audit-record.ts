import { RecordedEvent, eventFields } from '../events';

/**
 * One event as governance reads it: who (principal), with which credential, did what to which
 * uid, when, attributed to which agent.
 */
export interface AuditRecord {
  position: number;
  /** ISO 8601 time the change was made */
  at: string;
  org: string;
  /** `kind:id` of the acting principal: the identity, from the event's metadata */
  principal: string;
  /** the API key used (metadata); null for a user's JWT and for system writes */
  credential_id: string | null;
  /**
   * attribution only: the agent an agent-bound key acts for, else the `agent_id` the request
   * stated. Any caller may state one, so it never says who acted.
   */
  agent_id: string | null;
  /** the event type, e.g. NodeCreated */
  action: string;
  /** the stream's category: node, edge, graph, series, embedding, org, user, apikey, job… */
  kind: string;
  /** the uid (or account id) the change is about, when there is one */
  target: string | null;
  stream: string;
  request_id: string;
  event_id: string;
}

/** Text before the first '-' of a stream name (DESIGN rule 3). */
export function streamCategory(stream: string): string {
  const i = stream.indexOf('-');
  return i > 0 ? stream.slice(0, i) : stream;
}

const TARGET_FIELDS = ['uid', 'canonical_uid', 'series_uid', 'key_id', 'user_id', 'org_id'] as const;

/** The object a change is about: the record's uid, else the first id field of the data, else the stream's id. */
export function targetOf(e: { stream: string; data: unknown }): string | null {
  const d = eventFields(e);
  for (const nested of ['node', 'edge'] as const) {
    const rec = d[nested] as { uid?: unknown } | undefined;
    if (rec && typeof rec.uid === 'string') return rec.uid;
  }
  for (const f of TARGET_FIELDS) if (typeof d[f] === 'string' && d[f]) return d[f] as string;
  const colon = e.stream.indexOf(':');
  if (colon >= 0) return e.stream.slice(colon + 1) || null;
  return null;
}

function isoTime(unixSeconds: unknown): string {
  const n = typeof unixSeconds === 'number' && Number.isFinite(unixSeconds) ? unixSeconds : 0;
  return new Date(Math.round(n * 1000)).toISOString();
}

/** Reads identity from the envelope's metadata only, never from the event's data (DESIGN rule 4). */
export function toAuditRecord(e: RecordedEvent): AuditRecord {
  const m = e.metadata ?? ({} as RecordedEvent['metadata']);
  const principal = m.principal ? `${m.principal.kind}:${m.principal.id}` : 'unknown';
  return {
    position: e.position,
    at: isoTime(m.occurred_at),
    org: m.org_id ?? '',
    principal,
    credential_id: m.credential_id ?? null,
    agent_id: m.agent_id ?? null,
    action: e.type,
    kind: streamCategory(e.stream),
    target: targetOf(e),
    stream: e.stream,
    request_id: m.request_id ?? '',
    event_id: e.id,
  };
}
