/** REFERENCE §14.2: the exception kinds, in the table's order (which `groups` follows). */
export const EXCEPTION_KINDS = [
  'claim_unsupported',
  'contradiction_unresolved',
  'approval_overdue',
  'duplicate_pending',
  'derivation_stale',
  'chunk_failed',
  'chunk_orphaned',
  'document_stuck',
  'brief_stale',
  'schedule_failing',
] as const;
export type ExceptionKind = (typeof EXCEPTION_KINDS)[number];

export type Severity = 'high' | 'medium' | 'low';
/** In listing order: high first. */
export const SEVERITIES: readonly Severity[] = ['high', 'medium', 'low'];

export const SEVERITY_OF: Readonly<Record<ExceptionKind, Severity>> = {
  claim_unsupported: 'medium',
  contradiction_unresolved: 'medium',
  approval_overdue: 'high',
  duplicate_pending: 'low',
  derivation_stale: 'medium',
  chunk_failed: 'high',
  chunk_orphaned: 'low',
  document_stuck: 'high',
  brief_stale: 'low',
  schedule_failing: 'medium',
};

export type ExceptionStatus = 'open' | 'acknowledged' | 'resolved';
export const EXCEPTION_STATUSES: readonly ExceptionStatus[] = ['open', 'acknowledged', 'resolved'];
export type Resolution = 'condition_cleared' | 'subject_removed';

/** Kinds whose condition involves the time of the read (§14.2): evaluated with the read's `now`. */
export const TIME_BASED_KINDS: ReadonlySet<ExceptionKind> = new Set<ExceptionKind>(['approval_overdue', 'document_stuck', 'brief_stale']);

/** Node types whose Supports edge makes a Claim evidenced (§14.1). */
export const EVIDENCE_NODE_TYPES: ReadonlySet<string> = new Set(['Evidence', 'Observation', 'Experiment', 'Snippet']);
/** Node types an ExtractedFrom or DerivedFrom edge from a Claim may reach to make it sourced (§14.1). */
export const SOURCE_NODE_TYPES: ReadonlySet<string> = new Set(['Chunk', 'Document', 'Source', 'Snippet', 'Observation']);
export const SOURCING_EDGE_TYPES: ReadonlySet<string> = new Set(['ExtractedFrom', 'DerivedFrom']);

/** A Task that acknowledges what it Targets (§14.2). */
export const ACKNOWLEDGING_TASK_STATUSES: ReadonlySet<string> = new Set(['pending', 'in_progress']);

/** §14.2: how long a Document may sit pending or processing without a job, and a brief stay stale. */
export const DOCUMENT_STUCK_AFTER_S = 3600;
export const BRIEF_STALE_AFTER_S = 24 * 3600;
/** §14.2: a briefing schedule fails once this many of its most recent finished runs failed. */
export const SCHEDULE_FAILING_RUNS = 3;
/** Resolved exceptions are kept this long after `resolved_at`. */
export const RESOLVED_RETENTION_S = 90 * 24 * 3600;

export const severityRank = (s: Severity): number => SEVERITIES.indexOf(s);
export const kindRank = (k: ExceptionKind): number => EXCEPTION_KINDS.indexOf(k);
