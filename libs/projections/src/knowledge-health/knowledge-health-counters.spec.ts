import Database from 'better-sqlite3';
import { RecordedEvent, recordedEvent } from '@strata/domain/events';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { noteRecord } from '../testing/projection-event-fixtures';
import { KnowledgeHealthProjection } from './knowledge-health.projection';
import { KnowledgeHealthReadModel } from './knowledge-health-read-model';
import { CLAIM_TERM } from './knowledge-health-schema';

const DAY = 86400;
let position = 0;
function ev(t: number, type: string, data: unknown, request = `r${position}`): RecordedEvent {
  position++;
  return recordedEvent({ id: `e${position}`, type, data, stream: 's', revision: 0, position, metadata: { org_id: 'o', principal: { kind: 'user', id: 'u' }, request_id: request, occurred_at: t } } as never);
}
const node = (uid: string, node_type: string, over: Partial<NodeRecord> = {}) => noteRecord(uid, uid, { node_type, props: { _type: node_type }, ...over });
const edge = (uid: string, from_uid: string, to_uid: string, edge_type: string, over: Partial<EdgeRecord> = {}): EdgeRecord =>
  ({ uid, from_uid, to_uid, edge_type, props: {}, weight: 1, confidence: 1, version: 1, created_at: 1, updated_at: 1, tombstone_at: null, agent_id: null, ...over }) as unknown as EdgeRecord;

/** The counters and day counters as the projection keeps them, next to the same figures counted from its rows. */
function kept(db: Database.Database, rm: KnowledgeHealthReadModel) {
  const counters = Object.fromEntries(rm.counters('o'));
  const recount: Record<string, number> = {};
  // counted from the rows (liveCountsByType reads the counters themselves)
  for (const r of db.prepare('SELECT node_type, COUNT(*) AS n FROM kh_nodes WHERE org = ? AND live = 1 GROUP BY node_type').all('o') as { node_type: string; n: number }[])
    recount[`node:${r.node_type}`] = r.n;
  expect(Object.fromEntries([...rm.liveCountsByType('o')].map(([t, n]) => [`node:${t}`, n]))).toEqual(recount);
  // the partial index holds the Claims, nothing else
  const indexed = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  // (an index b-tree keeps an entry in every cell, interior ones included)
  const entries = (index: string) => indexed(`SELECT COALESCE(SUM(ncell), 0) AS n FROM dbstat WHERE name = '${index}'`);
  expect(entries('kh_nodes_claims')).toBe(indexed(`SELECT COUNT(*) AS n FROM kh_nodes WHERE ${CLAIM_TERM}`));
  expect(indexed('SELECT COUNT(*) AS n FROM kh_nodes')).toBeGreaterThan(entries('kh_nodes_claims'));
  const edges = rm.liveEdgeCount('o');
  if (edges) recount.edges = edges;
  const claims = rm.claimSupport('o');
  const judged = { evidenced: 0, sourced: 0 };
  for (const c of claims) {
    const live = (u: string) => rm.nodeRow('o', u)?.live === 1;
    if (c.evidence.some(live)) judged.evidenced++;
    else if (c.sources.some(live)) judged.sourced++;
  }
  if (judged.evidenced) recount['claim:evidenced'] = judged.evidenced;
  if (judged.sourced) recount['claim:sourced'] = judged.sourced;
  const windows: Record<string, unknown> = {};
  for (const [since, until] of [[0, 10 * DAY], [DAY / 2, 3 * DAY + 5], [2 * DAY + 1, 3 * DAY + 1], [DAY + 7, 2 * DAY + 7]]) {
    const raw = new Map<string, number>();
    for (const [w, n] of rm.activityCounts('o', since, until)) raw.set(w, n);
    for (const t of rm.transitions('o', since, until)) raw.set(`exceptions_${t.what}`, (raw.get(`exceptions_${t.what}`) ?? 0) + 1);
    const counted = Object.fromEntries([...rm.windowCounts('o', since, until)].filter(([, n]) => n !== 0));
    windows[`${since}-${until}`] = { counted, raw: Object.fromEntries(raw) };
    expect(counted).toEqual(Object.fromEntries(raw));
  }
  expect(counters).toEqual(recount);
  return { counters, days: db.prepare('SELECT what, day, n FROM kh_day_counts ORDER BY what, day').all(), windows };
}

describe('Knowledge Health counters', () => {
  it('equal a recount after writes over days, a unit of several events, tombstones, restores and purges; and a rebuild from the same log', () => {
    const db = new Database(':memory:');
    const p = new KnowledgeHealthProjection(db);
    const rm = new KnowledgeHealthReadModel(db);
    const log: RecordedEvent[] = [];
    const step = (...es: RecordedEvent[]) => {
      for (const e of es) {
        log.push(e);
        p.apply(e);
      }
      p.flush();
    };
    step(ev(100, 'NodeCreated', { node: node('doc', 'Document', { props: { _type: 'Document', processing_status: 'completed' } }), reason: null }));
    step(ev(110, 'NodeCreated', { node: node('ch1', 'Chunk', { props: { _type: 'Chunk', processing_status: 'failed' } }), reason: null }));
    step(ev(120, 'EdgeCreated', { edge: edge('co1', 'ch1', 'doc', 'ChunkOf'), reason: null }));
    // one unit of work: claims, evidence and their edges at one instant
    step(
      ev(DAY + 5, 'NodeCreated', { node: node('c1', 'Claim'), reason: null }, 'batch'),
      ev(DAY + 5, 'NodeCreated', { node: node('c2', 'Claim'), reason: null }, 'batch'),
      ev(DAY + 5, 'NodeCreated', { node: node('c3', 'Claim'), reason: null }, 'batch'),
      ev(DAY + 5, 'NodeCreated', { node: node('e1', 'Evidence'), reason: null }, 'batch'),
      ev(DAY + 5, 'EdgeCreated', { edge: edge('s1', 'e1', 'c1', 'Supports'), reason: null }, 'batch'),
      ev(DAY + 5, 'EdgeCreated', { edge: edge('x1', 'c2', 'ch1', 'ExtractedFrom'), reason: null }, 'batch'),
      ev(DAY + 5, 'EdgeCreated', { edge: edge('k1', 'c2', 'c3', 'Contradicts'), reason: null }, 'batch'),
    );
    kept(db, rm);
    step(ev(2 * DAY + 10, 'NodeTombstoned', { node: node('e1', 'Evidence', { version: 2, tombstone_at: 2 * DAY + 10 }), reason: null }));
    step(ev(2 * DAY + 20, 'NodeUpdated', { node: node('ch1', 'Chunk', { version: 2, props: { _type: 'Chunk', processing_status: 'completed' } }), reason: null }));
    step(ev(2 * DAY + 30, 'EdgeTombstoned', { edge: edge('k1', 'c2', 'c3', 'Contradicts', { version: 2, tombstone_at: 2 * DAY + 30 }), reason: null }));
    kept(db, rm);
    step(ev(3 * DAY, 'NodeRestored', { node: node('e1', 'Evidence', { version: 3 }), reason: null }));
    step(ev(3 * DAY + 1, 'NodeTombstoned', { node: node('c3', 'Claim', { version: 2, tombstone_at: 3 * DAY + 1 }), reason: null }));
    step(ev(3 * DAY + 2, 'GraphPurged', { node_uids: ['c3'], edge_uids: ['k1'], cutoff: null }));
    const live = kept(db, rm);
    expect(live.counters).toMatchObject({ 'node:Claim': 2, 'claim:evidenced': 1, 'claim:sourced': 1, edges: 3 });

    // a rebuild from the log as the purge left it (the purged subjects' own events are gone)
    const purged = new Set(['c3', 'k1']);
    const db2 = new Database(':memory:');
    const p2 = new KnowledgeHealthProjection(db2);
    const rm2 = new KnowledgeHealthReadModel(db2);
    for (const e of log) {
      const d = e.data as { node?: NodeRecord; edge?: EdgeRecord };
      if ((d.node && purged.has(d.node.uid)) || (d.edge && purged.has(d.edge.uid))) continue;
      p2.apply(e);
    }
    p2.flush();
    expect(kept(db2, rm2)).toEqual(live);
  });
});
