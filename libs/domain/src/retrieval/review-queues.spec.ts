import { EdgeRecord, NodeRecord } from '../records';
import {
  compareActiveGoals,
  compareMergeCandidates,
  compareOpenQuestions,
  comparePendingApprovals,
  compareScored,
  isPendingDuplicate,
  isUnresolvedContradiction,
} from './review-queues';

function node(uid: string, props: Record<string, unknown> = {}, over: Partial<NodeRecord> = {}): NodeRecord {
  return {
    uid,
    label: uid,
    summary: '',
    node_type: 'Goal',
    layer: 'intent',
    confidence: 1,
    salience: 0.5,
    privacy_level: 'private',
    props: { _type: 'Goal', ...props },
    agent_id: null,
    created_at: 100,
    updated_at: 100,
    tombstone_at: null,
    tombstone_reason: null,
    tombstone_by: null,
    version: 1,
    ...over,
  };
}

function edge(uid: string, props: Record<string, unknown>, over: Partial<EdgeRecord> = {}): EdgeRecord {
  return {
    uid,
    from_uid: 'a',
    to_uid: 'b',
    edge_type: 'PossibleDuplicate',
    layer: 'reality',
    weight: 0.5,
    confidence: 1,
    props: { _type: 'PossibleDuplicate', ...props },
    agent_id: null,
    version: 1,
    created_at: 1,
    updated_at: 1,
    tombstone_at: null,
    tombstone_reason: null,
    ...over,
  };
}

const uids = (xs: { uid: string }[]) => xs.map((x) => x.uid);

describe('review queue order', () => {
  it('sorts active goals by priority, then deadline with nulls last, then creation', () => {
    const goals = [
      node('low', { priority: 'low' }),
      node('unset', {}),
      node('crit-late', { priority: 'critical', deadline: 500 }),
      node('crit-none', { priority: 'critical', deadline: null }),
      node('crit-soon', { priority: 'critical', deadline: 200 }),
      node('high-old', { priority: 'high' }, { created_at: 1 }),
      node('high-new', { priority: 'high' }, { created_at: 2 }),
    ];
    expect(uids(goals.sort(compareActiveGoals))).toEqual(['crit-soon', 'crit-late', 'crit-none', 'high-old', 'high-new', 'low', 'unset']);
  });

  it('sorts open questions by importance descending with nulls last, then newest first', () => {
    const qs = [node('none'), node('half', { importance: 0.5 }), node('top-old', { importance: 0.9 }, { created_at: 1 }), node('top-new', { importance: 0.9 }, { created_at: 9 })];
    expect(uids(qs.sort(compareOpenQuestions))).toEqual(['top-new', 'top-old', 'half', 'none']);
  });

  it('sorts pending approvals oldest request first', () => {
    const as = [node('none'), node('late', { requested_at: 50 }), node('early', { requested_at: 10 })];
    expect(uids(as.sort(comparePendingApprovals))).toEqual(['early', 'late', 'none']);
  });

  it('keeps only unresolved contradictions and pending duplicates', () => {
    expect(isUnresolvedContradiction(edge('e', { resolution_status: null }))).toBe(true);
    expect(isUnresolvedContradiction(edge('e', { resolution_status: 'unresolved' }))).toBe(true);
    expect(isUnresolvedContradiction(edge('e', { resolution_status: 'resolved' }))).toBe(false);
    expect(isPendingDuplicate(edge('e', { status: 'pending' }))).toBe(true);
    expect(isPendingDuplicate(edge('e', { status: 'dismissed' }))).toBe(false);
    expect(isPendingDuplicate(edge('e', {}, { tombstone_at: 5 }))).toBe(false);
  });

  it('sorts merge candidates by similarity descending with nulls last', () => {
    const es = [edge('n', { similarity: null }), edge('lo', { similarity: 0.7 }), edge('hi', { similarity: 0.95 })];
    expect(uids(es.sort(compareMergeCandidates))).toEqual(['hi', 'lo', 'n']);
  });

  it('breaks equal search scores by salience, then uid', () => {
    const rs = [
      { score: 1, node: node('b', {}, { salience: 0.5 }) },
      { score: 1, node: node('a', {}, { salience: 0.5 }) },
      { score: 1, node: node('c', {}, { salience: 0.9 }) },
      { score: 2, node: node('z') },
    ];
    expect(rs.sort(compareScored).map((r) => r.node.uid)).toEqual(['z', 'c', 'a', 'b']);
  });
});
