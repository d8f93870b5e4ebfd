import Database from 'better-sqlite3';
import { RecordedEvent, recordedEvent } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { exceptionId } from '@strata/domain/knowledge-health';
import { noteRecord } from '../testing/projection-event-fixtures';
import { KnowledgeHealthProjection } from './knowledge-health.projection';
import { KnowledgeHealthReadModel } from './knowledge-health-read-model';
import { FIRST_OPENINGS } from './knowledge-health-schema';

let position = 0;
function at(t: number, type: string, data: unknown, org = 'o'): RecordedEvent {
  position++;
  return recordedEvent({ id: `e${position}`, type, data, stream: 's', revision: 0, position, metadata: { org_id: org, principal: { kind: 'user', id: 'u' }, request_id: 'r', occurred_at: t } } as never);
}
/** As the runner does for a unit of work of one event: apply, then flush before the commit. */
function step(p: KnowledgeHealthProjection, e: RecordedEvent): void {
  p.apply(e);
  p.flush();
}
const approval = (uid: string, status: string, over: Partial<NodeRecord> = {}) =>
  noteRecord(uid, 'approve?', { node_type: 'Approval', props: { _type: 'Approval', status, requested_at: 1000 }, created_at: 1000, ...over });

describe('KnowledgeHealthProjection', () => {
  const HOURS = 72 * 3600;

  it('commits an overdue approval episode nobody read, so the next one is a reopening', () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    step(p, at(1000, 'NodeCreated', { node: approval('a1', 'pending'), reason: null }));
    // decided long after its deadline, with no read in between
    step(p, at(1000 + HOURS + 50, 'NodeUpdated', { node: approval('a1', 'approved', { version: 2 }), reason: null }));
    const [row] = rm.rows('o');
    expect(row.id).toBe(exceptionId('approval_overdue', 'a1'));
    expect(rm.materialize(row, 1e12, 72)!.state).toMatchObject({
      status: 'resolved',
      first_detected_at: 1000 + HOURS,
      resolved_at: 1000 + HOURS + 50,
      detail: { requested_at: 1000, deadline_at: 1000 + HOURS },
      reopen_count: 0,
    });
    expect(rm.transitions('o', 0, 1e12)).toEqual([
      { id: row.id, what: 'opened' },
      { id: row.id, what: 'resolved' },
    ]);
    // pending again (a new request on the same node): due again 72 h after its request time
    step(p, at(5e6, 'NodeUpdated', { node: approval('a1', 'pending', { version: 3, props: { _type: 'Approval', status: 'pending', requested_at: 5e6 } }), reason: null }));
    const [again] = rm.rows('o');
    expect(rm.materialize(again, 5e6 + HOURS - 1, 72)!.state.status).toBe('resolved');
    expect(rm.materialize(again, 5e6 + HOURS, 72)!.state).toMatchObject({ status: 'open', reopen_count: 1, last_changed_at: 5e6 + HOURS });
  });

  it('an approval decided before its deadline never was an exception', () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    step(p, at(1000, 'NodeCreated', { node: approval('a2', 'pending'), reason: null }));
    step(p, at(2000, 'NodeUpdated', { node: approval('a2', 'denied', { version: 2 }), reason: null }));
    expect(rm.rows('o').map((r) => rm.materialize(r, 1e12, 72))).toEqual([]);
  });

  it('a tombstone resolves the exception as subject_removed; a purge then erases it, as a rebuild of the purged log would', () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const claim = noteRecord('c1', 'bare', { node_type: 'Claim', props: { _type: 'Claim', content: 'x' } });
    step(p, at(10, 'NodeCreated', { node: claim, reason: null }));
    step(p, at(20, 'NodeTombstoned', { node: { ...claim, version: 2, tombstone_at: 20 }, reason: null }));
    const [row] = rm.rows('o');
    expect(rm.materialize(row, 25, 72)!.state).toMatchObject({ status: 'resolved', resolution: 'subject_removed', resolved_at: 20 });
    step(p, at(30, 'GraphPurged', { node_uids: ['c1'], edge_uids: [], cutoff: null }));
    expect(rm.rows('o')).toEqual([]);
    expect(rm.nodeRow('o', 'c1')).toBeUndefined();
    expect(rm.activity('o', 0, 100)).toEqual([]);
  });

  it('keeps organizations apart', () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    step(p, at(10, 'NodeCreated', { node: noteRecord('c1', 'bare', { node_type: 'Claim', props: { _type: 'Claim', content: 'x' } }), reason: null }, 'o1'));
    expect(rm.rows('o1')).toHaveLength(1);
    expect(rm.rows('o2')).toHaveLength(0);
  });

  it('schedule_failing opens at the third failed run in a row, resolves on a success, reopens, and goes with the schedule', () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const base = { org_id: 'o', schedule_id: 's1' };
    const run = (t: number, status: string) =>
      step(p, at(t, 'BriefingRunFinished', { ...base, at: t, run_id: `r${t}`, status, brief_version: null, reused: null, material_change_count: 0, skip_reason: null, error: status === 'failed' ? { code: 'upstream_error', message: `at ${t}` } : null, consecutive_failures: 0 }));
    step(p, at(1, 'BriefingScheduleCreated', { ...base, at: 1, project_uid: 'p1', channel: 'webhook', recipient: 'https://example.com/h', secret_hint: null, created_by: 'user:u' }));
    run(10, 'failed');
    run(20, 'failed');
    expect(rm.rows('o')).toEqual([]);
    run(30, 'failed');
    const [row] = rm.rows('o');
    expect(row).toMatchObject({ id: exceptionId('schedule_failing', 's1'), subject_type: 'schedule', from_uid: 'p1' });
    expect(rm.materialize(row, 31, 72)!.state).toMatchObject({ status: 'open', first_detected_at: 30, detail: { last_errors: [{ code: 'upstream_error', message: 'at 30' }, { code: 'upstream_error', message: 'at 20' }, { code: 'upstream_error', message: 'at 10' }] } });
    run(40, 'delivered');
    expect(rm.materialize(rm.rows('o')[0], 41, 72)!.state).toMatchObject({ status: 'resolved', resolved_at: 40, resolution: 'condition_cleared' });
    run(50, 'failed');
    run(60, 'failed');
    run(70, 'failed');
    expect(rm.materialize(rm.rows('o')[0], 71, 72)!.state).toMatchObject({ status: 'open', reopen_count: 1, first_detected_at: 30, last_changed_at: 70 });
    step(p, at(80, 'BriefingScheduleDeleted', { ...base, at: 80, deleted_by: 'user:u', cancelled_run_id: null }));
    expect(rm.materialize(rm.rows('o')[0], 81, 72)!.state).toMatchObject({ status: 'resolved', resolved_at: 80, resolution: 'subject_removed' });
    expect(rm.transitions('o', 0, 100).map((t) => `${t.what}`)).toEqual(['opened', 'resolved', 'opened', 'resolved']);
  });

  it('brief_stale: a version replacing one over 24 h old with other sources commits the episode that ended with it', () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const DAY = 86400;
    const version = (t: number, v: number, fingerprint: string) => step(p, at(t, 'BriefVersionCreated', { org_id: 'o', project_uid: 'p1', version: v, created_at: t, source_fingerprint: fingerprint }));
    version(1000, 1, 'sha256:a');
    // the same sources a day later: never stale
    version(1000 + 2 * DAY, 2, 'sha256:a');
    // other sources within a day of the last version: not yet due
    version(1000 + 2 * DAY + 100, 3, 'sha256:b');
    expect(rm.rows('o')).toEqual([]);
    version(1000 + 5 * DAY, 4, 'sha256:c');
    const [row] = rm.rows('o');
    expect(row.id).toBe(exceptionId('brief_stale', 'p1'));
    expect(rm.materialize(row, 1e9, 72)!.state).toMatchObject({ status: 'resolved', first_detected_at: 1000 + 3 * DAY + 100, resolved_at: 1000 + 5 * DAY, resolution: 'condition_cleared', detail: { current_version: 3 }, reopen_count: 0 });
    version(1000 + 7 * DAY, 5, 'sha256:d');
    expect(rm.materialize(rm.rows('o')[0], 1e9, 72)!.state).toMatchObject({ status: 'resolved', reopen_count: 1, resolved_at: 1000 + 7 * DAY, detail: { current_version: 4 } });
    expect(rm.transitions('o', 0, 1e9).map((t) => t.what)).toEqual(['opened', 'resolved', 'opened', 'resolved']);
  });

  it('reads a unit of work once, and starts over when what it applied was rolled back', () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const ev = (position: number, request: string, t: number, type: string, data: unknown) =>
      recordedEvent({ id: `x${position}`, type, data, stream: 's', revision: 0, position, metadata: { org_id: 'o', principal: { kind: 'user', id: 'u' }, request_id: request, occurred_at: t } } as never);
    const claim = noteRecord('c1', 'bare', { node_type: 'Claim', props: { _type: 'Claim', content: 'x' }, created_at: 10 });
    step(p, ev(1, 'r1', 10, 'NodeCreated', { node: claim, reason: null }));
    step(p, ev(2, 'r1', 10, 'NodeCreated', { node: noteRecord('ev1', 'measured', { node_type: 'Evidence', props: { _type: 'Evidence' }, created_at: 10 }), reason: null }));
    // a tombstone of the Claim, applied and then rolled back with its unit of work
    try {
      db.transaction(() => {
        step(p, ev(3, 'r2', 50, 'NodeTombstoned', { node: { ...claim, version: 2, tombstone_at: 50 }, reason: null }));
        throw new Error('the log append failed');
      })();
    } catch {
      /* rolled back */
    }
    // the same request again at the same instant, the log reusing position 3: the Claim is live and now supported
    step(p, ev(3, 'r2', 50, 'EdgeCreated', { edge: { uid: 's1', edge_type: 'Supports', from_uid: 'ev1', to_uid: 'c1', props: {}, weight: 1, created_at: 50, updated_at: 50, tombstone_at: null, version: 1 }, reason: null }));
    const [row] = rm.rows('o');
    expect(row.id).toBe(exceptionId('claim_unsupported', 'c1'));
    expect(rm.materialize(row, 60, 72)!.state).toMatchObject({ status: 'resolved', resolution: 'condition_cleared', first_detected_at: 10, resolved_at: 50 });
  });

  it('counts evidence completeness in the database as the per-Claim reading does', () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const n = (uid: string, type: string, over: Partial<NodeRecord> = {}) => step(p, at(10, 'NodeCreated', { node: noteRecord(uid, uid, { node_type: type, props: { _type: type }, ...over }), reason: null }));
    let k = 0;
    const e = (from: string, to: string, type: string, tombstone_at: number | null = null) =>
      step(p, at(10, 'EdgeCreated', { edge: { uid: `e${++k}`, edge_type: type, from_uid: from, to_uid: to, props: {}, weight: 1, created_at: 10, updated_at: 10, tombstone_at, version: 1 }, reason: null }));
    for (const c of ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c8', 'c9']) n(c, 'Claim');
    n('c7', 'Claim', { tombstone_at: 10 });
    n('ev', 'Evidence');
    n('obs', 'Observation');
    n('gone', 'Evidence', { tombstone_at: 10 });
    n('ch', 'Chunk');
    n('doc', 'Document');
    e('ev', 'c1', 'Supports');
    e('c2', 'ch', 'ExtractedFrom');
    e('obs', 'c3', 'Supports');
    e('c3', 'doc', 'DerivedFrom');
    e('c4', 'c5', 'Supports');
    e('gone', 'c6', 'Supports');
    e('ev', 'c7', 'Supports');
    e('c8', 'obs', 'DerivedFrom');
    e('ev', 'c9', 'Supports', 10);
    e('ev', 'c1', 'Supports');
    const perClaim = rm.claimSupport('o');
    const expected = { claims: perClaim.length, evidenced: perClaim.filter((c) => c.evidence.length).length, sourced_only: perClaim.filter((c) => !c.evidence.length && c.sources.length).length };
    expect(expected).toEqual({ claims: 8, evidenced: 2, sourced_only: 2 });
    expect(rm.claimSupportCounts('o')).toEqual(expected);
    expect(rm.claimSupportCounts('other')).toEqual({ claims: 0, evidenced: 0, sourced_only: 0 });
    // the kept support follows later changes: evidence tombstoned, a source edge tombstoned, a Claim tombstoned
    const again = () => {
      const per = rm.claimSupport('o');
      return { claims: per.length, evidenced: per.filter((c) => c.evidence.length).length, sourced_only: per.filter((c) => !c.evidence.length && c.sources.length).length };
    };
    step(p, at(20, 'NodeTombstoned', { node: noteRecord('ev', 'ev', { node_type: 'Evidence', props: { _type: 'Evidence' }, version: 2, tombstone_at: 20 }), reason: null }));
    step(p, at(20, 'EdgeTombstoned', { edge: { uid: 'e2', edge_type: 'ExtractedFrom', from_uid: 'c2', to_uid: 'ch', props: {}, weight: 1, created_at: 10, updated_at: 20, tombstone_at: 20, version: 2 }, reason: null }));
    step(p, at(20, 'NodeTombstoned', { node: noteRecord('c3', 'c3', { node_type: 'Claim', props: { _type: 'Claim' }, version: 2, tombstone_at: 20 }), reason: null }));
    expect(again()).toEqual({ claims: 7, evidenced: 0, sourced_only: 1 });
    expect(rm.claimSupportCounts('o')).toEqual(again());
  });

  it('evaluates a unit of work once, at its end: a Claim and its support in one /batch never open an exception', () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const ev = (position: number, request: string, t: number, type: string, data: unknown) =>
      recordedEvent({ id: `u${position}`, type, data, stream: 's', revision: 0, position, metadata: { org_id: 'o', principal: { kind: 'user', id: 'u' }, request_id: request, occurred_at: t } } as never);
    const node = (uid: string, type: string) => ({ node: noteRecord(uid, uid, { node_type: type, props: { _type: type }, created_at: 10 }), reason: null });
    const edge = (uid: string, from: string, to: string) => ({ edge: { uid, edge_type: 'Supports', from_uid: from, to_uid: to, props: {}, weight: 1, created_at: 10, updated_at: 10, tombstone_at: null, version: 1 }, reason: null });
    const writes = () => (db.prepare("SELECT total_changes() AS n").get() as { n: number }).n;
    p.apply(ev(1, 'b1', 10, 'NodeCreated', node('c1', 'Claim')));
    p.apply(ev(2, 'b1', 10, 'NodeCreated', node('c2', 'Claim')));
    p.apply(ev(3, 'b1', 10, 'NodeCreated', node('ev', 'Evidence')));
    p.apply(ev(4, 'b1', 10, 'EdgeCreated', edge('s1', 'ev', 'c1')));
    // nothing judged yet: the unit is still open
    expect(rm.rows('o')).toEqual([]);
    const before = writes();
    p.flush();
    // c1 supported: never an exception; c2 unsupported: one row, which is its opening's record
    // too (first_at), nothing taken back, and c1's judged support (2 writes: c2 was created as
    // unsupported, its judgement);
    // the unit's creations, one row for its nodes and one for its edges (2); then one write per
    // counter the unit moved, however many events moved it: Claims, Evidence, edges, evidenced
    // Claims, and the day's nodes created, edges created and exceptions opened (7)
    expect(rm.rows('o').map((r) => r.id)).toEqual([exceptionId('claim_unsupported', 'c2')]);
    expect(writes() - before).toBe(2 + 2 + 7);
    expect(rm.claimSupportCounts('o')).toEqual({ claims: 2, evidenced: 1, sourced_only: 0 });
    expect(rm.transitions('o', 0, 100)).toEqual([{ id: exceptionId('claim_unsupported', 'c2'), what: 'opened' }]);
    // the opening is read from the exception's row, through the list's index, not from a transition row
    expect(db.prepare('SELECT COUNT(*) AS n FROM kh_transitions').get()).toEqual({ n: 0 });
    const plan = (db.prepare(`EXPLAIN QUERY PLAN SELECT COUNT(*) ${FIRST_OPENINGS}`).all('o', 0, 100) as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan).toMatch(/USING COVERING INDEX kh_exceptions_page \(org=\? AND lane=\? AND sev=\? AND first_at>\? AND first_at<\?\)/);
    // a second flush has nothing left to judge
    p.flush();
    expect(writes() - before).toBe(2 + 2 + 7);
    // the next unit (another request) judges what it touched, at its own instant
    p.apply(ev(5, 'b2', 20, 'EdgeCreated', edge('s2', 'ev', 'c2')));
    p.flush();
    expect(rm.materialize(rm.rows('o')[0], 30, 72)!.state).toMatchObject({ status: 'resolved', first_detected_at: 10, resolved_at: 20 });
  });

  it("a Claim created and tombstoned in one unit keeps no support, as a row never judged live; one created live keeps its judged support", () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const ev = (position: number, request: string, type: string, data: unknown) =>
      recordedEvent({ id: `u${position}`, type, data, stream: 's', revision: 0, position, metadata: { org_id: 'o', principal: { kind: 'user', id: 'u' }, request_id: request, occurred_at: 10 } } as never);
    const claim = (uid: string, tombstone_at: number | null = null) => ({ node: { ...noteRecord(uid, uid, { node_type: 'Claim', props: { _type: 'Claim' }, created_at: 10 }), tombstone_at }, reason: null });
    const support = (uid: string) => (db.prepare("SELECT support FROM kh_nodes WHERE org = 'o' AND uid = ?").get(uid) as { support: number | null }).support;
    p.apply(ev(1, 'b1', 'NodeCreated', claim('gone')));
    p.apply(ev(2, 'b1', 'NodeTombstoned', claim('gone', 10)));
    p.apply(ev(3, 'b1', 'NodeCreated', claim('kept')));
    p.apply(ev(4, 'b1', 'NodeCreated', claim('born-dead', 10)));
    p.flush();
    expect([support('gone'), support('kept'), support('born-dead')]).toEqual([null, 0, null]);
    // a later unit tombstones the kept one: its judged support stays, as before
    p.apply(ev(5, 'b2', 'NodeTombstoned', claim('kept', 10)));
    p.flush();
    expect(support('kept')).toBe(0);
  });

  it('a unit ends when the next one starts, even without a flush between them', () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const ev = (position: number, request: string, t: number, type: string, data: unknown) =>
      recordedEvent({ id: `v${position}`, type, data, stream: 's', revision: 0, position, metadata: { org_id: 'o', principal: { kind: 'user', id: 'u' }, request_id: request, occurred_at: t } } as never);
    p.apply(ev(1, 'r1', 10, 'NodeCreated', { node: noteRecord('c1', 'c1', { node_type: 'Claim', props: { _type: 'Claim' }, created_at: 10 }), reason: null }));
    p.apply(ev(2, 'r2', 10, 'NodeCreated', { node: noteRecord('g1', 'g1', { node_type: 'Goal', props: { _type: 'Goal' }, created_at: 10 }), reason: null }));
    expect(rm.rows('o').map((r) => r.id)).toEqual([exceptionId('claim_unsupported', 'c1')]);
  });

  it("a purge finds its subjects' activity by an index, not by a scan of the organization's", () => {
    const db = new Database(':memory:');
    new KnowledgeHealthProjection(db);
    const plan = (db.prepare('EXPLAIN QUERY PLAN DELETE FROM kh_activity WHERE org = ? AND uid = ?').all('o', 'c1') as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan).toMatch(/USING INDEX kh_activity_uid/);
  });

  it('counts creations in a window from one row per unit of work and what it created, and keeps no activity row for them', () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    step(p, at(10, 'NodeCreated', { node: noteRecord('n1', 'n1'), reason: null }));
    step(p, at(20, 'NodeCreated', { node: noteRecord('n2', 'n2'), reason: null }));
    step(p, at(20, 'EdgeCreated', { edge: { uid: 'e1', from_uid: 'n2', to_uid: 'n1', edge_type: 'RelatesTo', props: {}, weight: 1, confidence: 1, version: 1, created_at: 20, updated_at: 20, tombstone_at: null, agent_id: null }, reason: null }));
    // an update creates no activity, and a creation of a uid already held is no new creation
    step(p, at(30, 'NodeUpdated', { node: noteRecord('n1', 'n1 again', { version: 2 }), reason: null }));
    step(p, at(40, 'NodeCreated', { node: noteRecord('n2', 'n2'), reason: null }));
    expect(db.prepare('SELECT COUNT(*) AS n FROM kh_activity').get()).toEqual({ n: 0 });
    expect(Object.fromEntries(rm.activityCounts('o', 0, 100))).toEqual({ nodes_created: 2, edges_created: 1 });
    expect(Object.fromEntries(rm.activityCounts('o', 15, 100))).toEqual({ nodes_created: 1, edges_created: 1 });
    expect(Object.fromEntries(rm.windowCounts('o', 15, 100))).toEqual({ nodes_created: 1, edges_created: 1 });
    expect(rm.activity('o', 15, 25)).toEqual([
      { what: 'nodes_created', uid: 'n2', from_uid: null, to_uid: null },
      { what: 'edges_created', uid: 'e1', from_uid: 'n2', to_uid: 'n1' },
    ]);
    // the unit at 20 created a node and an edge: one row for each, not an index entry per object
    expect(db.prepare('SELECT at, what, n, uids FROM kh_created ORDER BY at, what').all()).toEqual([
      { at: 10, what: 'nodes_created', n: 1, uids: '["n1"]' },
      { at: 20, what: 'edges_created', n: 1, uids: '["e1"]' },
      { at: 20, what: 'nodes_created', n: 1, uids: '["n2"]' },
    ]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%born_at%'").all()).toEqual([]);
    // a window's creations are summed along the table's own key (one b-tree entry per row)
    const plan = (db.prepare('EXPLAIN QUERY PLAN SELECT what, SUM(n) FROM kh_created WHERE org = ? AND at >= ? AND at < ? GROUP BY what').all('o', 0, 1) as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan).toMatch(/SEARCH kh_created USING PRIMARY KEY \(org=\? AND at>\? AND at<\?\)/);
    // a purge takes its uids out of their creation rows, as a rebuild of the purged log never writes them
    step(p, at(50, 'GraphPurged', { node_uids: ['n2'], edge_uids: ['e1'], cutoff: null }));
    expect(db.prepare('SELECT at, what, n, uids FROM kh_created ORDER BY at, what').all()).toEqual([{ at: 10, what: 'nodes_created', n: 1, uids: '["n1"]' }]);
    expect(Object.fromEntries(rm.windowCounts('o', 0, 100))).toEqual({ nodes_created: 1 });
    expect(rm.activity('o', 0, 100)).toEqual([{ what: 'nodes_created', uid: 'n1', from_uid: null, to_uid: null }]);
    // one unit applied in two parts (a rebuild's batch ended inside it): still one row, as applied at once
    step(p, at(60, 'NodeCreated', { node: noteRecord('x1', 'x1'), reason: null }));
    step(p, at(60, 'NodeCreated', { node: noteRecord('x2', 'x2'), reason: null }));
    expect(db.prepare('SELECT at, what, n, uids FROM kh_created WHERE at = 60').all()).toEqual([{ at: 60, what: 'nodes_created', n: 2, uids: '["x1","x2"]' }]);
    expect(Object.fromEntries(rm.windowCounts('o', 55, 100))).toEqual({ nodes_created: 2 });
  });

  it("an exception's transitions are read and dropped through its subject, and a purge takes them off the day counts", () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const claim = noteRecord('c1', 'bare', { node_type: 'Claim', props: { _type: 'Claim', content: 'x' } });
    step(p, at(10, 'NodeCreated', { node: claim, reason: null }));
    step(p, at(20, 'NodeTombstoned', { node: { ...claim, version: 2, tombstone_at: 20 }, reason: null }));
    const id = exceptionId('claim_unsupported', 'c1');
    expect(rm.transitionsOf('o', 'c1', id, 0, 100)).toEqual([{ what: 'opened' }, { what: 'resolved' }]);
    expect(rm.transitionsOf('o', 'c1', id, 15, 100)).toEqual([{ what: 'resolved' }]);
    const plan = (db.prepare('EXPLAIN QUERY PLAN DELETE FROM kh_transitions INDEXED BY kh_transitions_subject WHERE org = ? AND subject_uid = ? AND id = ?').all('o', 'c1', id) as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan).toMatch(/USING INDEX kh_transitions_subject/);
    step(p, at(30, 'GraphPurged', { node_uids: ['c1'], edge_uids: [], cutoff: null }));
    expect(rm.transitionsOf('o', 'c1', id, 0, 100)).toEqual([]);
    expect(db.prepare('SELECT COUNT(*) FROM kh_transitions').pluck().get()).toBe(0);
    expect(db.prepare("SELECT COALESCE(SUM(n), 0) FROM kh_day_counts WHERE what LIKE 'exceptions_%'").pluck().get()).toBe(0);
  });

  it('a projections file of version 4 (exceptions keyed by id, transitions without their subject) is brought to the row-table shape', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE kh_exceptions (
      org TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL, subject_uid TEXT NOT NULL, subject_type TEXT NOT NULL,
      from_uid TEXT, to_uid TEXT, state TEXT, arm TEXT, lane TEXT, sev INTEGER, first_at REAL, resolved_at REAL,
      PRIMARY KEY (org, id)) WITHOUT ROWID;
      CREATE INDEX kh_exceptions_subject ON kh_exceptions(org, subject_uid);
      CREATE TABLE kh_transitions (org TEXT NOT NULL, at REAL NOT NULL, id TEXT NOT NULL, what TEXT NOT NULL);
      CREATE INDEX kh_transitions_id ON kh_transitions(org, id);
      CREATE TABLE kh_nodes (
        org TEXT NOT NULL, uid TEXT NOT NULL, node_type TEXT NOT NULL, label TEXT NOT NULL, live INTEGER NOT NULL,
        version INTEGER NOT NULL, created_at REAL NOT NULL, created_by TEXT, last_version_at REAL NOT NULL,
        tombstone_at REAL, status TEXT, status_since REAL, update_times TEXT NOT NULL, attrs TEXT, support INTEGER,
        PRIMARY KEY (org, uid)) WITHOUT ROWID;
      CREATE INDEX kh_nodes_type ON kh_nodes(org, node_type, live);`);
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const sql = (name: string) => db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(name) as string | undefined;
    expect(sql('kh_exceptions')).not.toMatch(/WITHOUT ROWID/i);
    expect(sql('kh_exceptions_id')).toBeUndefined();
    expect(sql('kh_exceptions_subject')).toBeUndefined();
    expect(sql('kh_exceptions_subject_id')).toMatch(/UNIQUE/i);
    expect(sql('kh_transitions_id')).toBeUndefined();
    expect(sql('kh_transitions_subject')).toBeDefined();
    expect(sql('kh_nodes_type')).toBeUndefined();
    step(p, at(10, 'NodeCreated', { node: noteRecord('c1', 'bare', { node_type: 'Claim', props: { _type: 'Claim', content: 'x' } }), reason: null }));
    expect(rm.rows('o').map((r) => r.id)).toEqual([exceptionId('claim_unsupported', 'c1')]);
    expect(rm.transitionsOf('o', 'c1', exceptionId('claim_unsupported', 'c1'), 0, 100)).toEqual([{ what: 'opened' }]);
  });

  it('a projections file of version 5 (exception rows indexed by id) loses that index, and a second row of one subject and id is refused', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE kh_exceptions (
      org TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL, subject_uid TEXT NOT NULL, subject_type TEXT NOT NULL,
      from_uid TEXT, to_uid TEXT, state TEXT, arm TEXT, lane TEXT, sev INTEGER, first_at REAL, resolved_at REAL);
      CREATE UNIQUE INDEX kh_exceptions_id ON kh_exceptions(org, id);
      CREATE INDEX kh_exceptions_subject ON kh_exceptions(org, subject_uid);`);
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const sql = (name: string) => db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(name) as string | undefined;
    expect(sql('kh_exceptions_id')).toBeUndefined();
    expect(sql('kh_exceptions_subject')).toBeUndefined();
    for (const uid of ['c2', 'c1', 'c3']) step(p, at(10, 'NodeCreated', { node: noteRecord(uid, uid, { node_type: 'Claim', props: { _type: 'Claim', content: uid } }), reason: null }));
    const ids = ['c1', 'c2', 'c3'].map((u) => exceptionId('claim_unsupported', u));
    expect(rm.rows('o').map((r) => r.id)).toEqual([...ids].sort());
    expect(() => db.prepare("INSERT INTO kh_exceptions(org, id, kind, subject_uid, subject_type) VALUES ('o', ?, 'claim_unsupported', 'c1', 'node')").run(ids[0])).toThrow(/UNIQUE/);
  });

  it("lists a type's live uids in uid order from the support index", () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const claim = (uid: string) => noteRecord(uid, uid, { node_type: 'Claim', props: { _type: 'Claim', content: uid } });
    const ev = noteRecord('ev', 'ev', { node_type: 'Evidence', props: { _type: 'Evidence' } });
    step(p, at(10, 'NodeCreated', { node: claim('c3'), reason: null }));
    step(p, at(11, 'NodeCreated', { node: claim('c1'), reason: null }));
    step(p, at(12, 'NodeCreated', { node: claim('c2'), reason: null }));
    step(p, at(13, 'NodeCreated', { node: ev, reason: null }));
    // c1 evidenced: its support sorts it after the other two in the index
    step(p, at(14, 'EdgeCreated', { edge: { uid: 'e1', edge_type: 'Supports', from_uid: 'ev', to_uid: 'c1', props: {}, weight: 1, confidence: 1, layer: 'epistemic', created_at: 14, updated_at: 14, tombstone_at: null, tombstone_reason: null, version: 1 }, reason: null }));
    expect(rm.claimSupportCounts('o')).toMatchObject({ claims: 3, evidenced: 1 });
    expect(rm.liveClaimUids('o')).toEqual(['c1', 'c2', 'c3']);
  });

  it("reads an organization's exception rows in id order, as when rows were keyed by id", () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const uids = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
    uids.forEach((uid, i) => step(p, at(10 + i, 'NodeCreated', { node: noteRecord(uid, uid, { node_type: 'Claim', props: { _type: 'Claim', content: uid } }), reason: null })));
    const ids = uids.map((u) => exceptionId('claim_unsupported', u));
    expect(rm.rows('o').map((r) => r.id)).toEqual([...ids].sort());
  });
});
