import { EdgeRecord, NodeRecord } from '../records';

/**
 * The selection and order rules of the review-queue actions of `/retrieve` (REFERENCE §5.2)
 * and the GET shortcuts (§5.3). Ties always end on uid ascending (§1.9).
 */

const PRIORITY_RANK: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3 };

function byUid(a: { uid: string }, b: { uid: string }): number {
  return a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Ascending with nulls last. */
function ascNullsLast(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a - b;
}

/** A node selection in read-model filter terms (null in a list matches an unset field). */
export interface QueueFilter {
  node_types: string[];
  props_in?: Record<string, unknown[]>;
  props_equals?: Record<string, unknown>;
}

export type NodeQueue = 'active_goals' | 'open_questions' | 'pending_approvals' | 'open_decisions' | 'skill_reviews';

/** Which live nodes each node queue holds (a fresh object per call: callers may extend it). */
export function queueFilter(queue: NodeQueue): QueueFilter {
  switch (queue) {
    case 'active_goals':
      return { node_types: ['Goal'], props_in: { status: ['active', null] } };
    case 'open_questions':
      return { node_types: ['Question', 'OpenQuestion'], props_in: { status: ['open', null] } };
    case 'pending_approvals':
      return { node_types: ['Approval'], props_equals: { status: 'pending' } };
    case 'open_decisions':
      // `/decisions` = `/intent/deliberation get_open`
      return { node_types: ['Decision'], props_in: { status: ['open', 'revisited', null] } };
    case 'skill_reviews':
      return { node_types: ['Skill'], props_in: { status: ['candidate', 'reviewed'] } };
  }
}

export const DEFAULT_WEAK_CLAIM_THRESHOLD = 0.6;

/** Priority (critical → low → unset), then deadline ascending with nulls last, then creation. */
export function compareActiveGoals(a: NodeRecord, b: NodeRecord): number {
  const pa = PRIORITY_RANK[String(a.props.priority ?? '').toLowerCase()] ?? 4;
  const pb = PRIORITY_RANK[String(b.props.priority ?? '').toLowerCase()] ?? 4;
  if (pa !== pb) return pa - pb;
  const d = ascNullsLast(num(a.props.deadline), num(b.props.deadline));
  if (d !== 0) return d;
  return a.created_at - b.created_at || byUid(a, b);
}

/** Importance descending with nulls last, then newest first. */
export function compareOpenQuestions(a: NodeRecord, b: NodeRecord): number {
  const ia = num(a.props.importance);
  const ib = num(b.props.importance);
  const d = ascNullsLast(ia === null ? null : -ia, ib === null ? null : -ib);
  if (d !== 0) return d;
  return b.created_at - a.created_at || byUid(a, b);
}

// Weak claims are ordered by the read model itself (NodeOrder 'confidence_asc'), so that the
// queue of a large graph is cut before it is loaded.

/** Oldest request first; approvals without `requested_at` go last, by creation. */
export function comparePendingApprovals(a: NodeRecord, b: NodeRecord): number {
  const d = ascNullsLast(num(a.props.requested_at), num(b.props.requested_at));
  if (d !== 0) return d;
  return a.created_at - b.created_at || byUid(a, b);
}

/** Newest first. */
export function compareNewestFirst(a: { created_at: number; uid: string }, b: { created_at: number; uid: string }): number {
  return b.created_at - a.created_at || byUid(a, b);
}

/** A Contradicts edge still waiting for resolution. */
export function isUnresolvedContradiction(e: EdgeRecord): boolean {
  const s = e.props.resolution_status;
  return e.tombstone_at === null && (s === null || s === undefined || s === 'unresolved');
}

/** A PossibleDuplicate edge still waiting for review. */
export function isPendingDuplicate(e: EdgeRecord): boolean {
  const s = e.props.status;
  return e.tombstone_at === null && (s === null || s === undefined || s === 'pending');
}

/** Similarity descending with nulls last, then edge uid. */
export function compareMergeCandidates(a: EdgeRecord, b: EdgeRecord): number {
  const sa = num(a.props.similarity);
  const sb = num(b.props.similarity);
  const d = ascNullsLast(sa === null ? null : -sa, sb === null ? null : -sb);
  return d !== 0 ? d : byUid(a, b);
}

/** Salience descending (preferences without a query). */
export function compareSalience(a: NodeRecord, b: NodeRecord): number {
  return b.salience - a.salience || byUid(a, b);
}

/** Search-like results: score, then salience, then uid (REFERENCE §5.1). */
export function compareScored(a: { score: number; node: NodeRecord }, b: { score: number; node: NodeRecord }): number {
  return b.score - a.score || b.node.salience - a.node.salience || byUid(a.node, b.node);
}
