import Database from 'better-sqlite3';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { EDGE_UPSERT, NODE_UPSERT, edgeRow, nodeRow } from './graph-rows';
import { GRAPH_INDEXES, LABEL_LOOKUP_TERM } from './sqlite-graph-schema';
import { SqliteGraphStore } from './sqlite-graph-store';

/**
 * Lists filtered by one value must walk that value's index in the list's order. Without
 * statistics SQLite otherwise walks the organization's whole creation-order index and tests
 * every row, which made GET /decisions or an entity look-up by label cost a full scan.
 */

const TYPES = ['Claim', 'Goal', 'Decision', 'Person'];

function node(i: number, over: Partial<NodeRecord> = {}): NodeRecord {
  const node_type = i % 97 === 0 ? 'Decision' : i % 11 === 0 ? 'Goal' : i % 13 === 0 ? 'Person' : 'Claim';
  return {
    uid: `n${String(i).padStart(5, '0')}`, label: `Label ${i % 300}`, summary: '', node_type, layer: node_type === 'Claim' ? 'epistemic' : 'intent',
    confidence: 1, salience: 0.5, privacy_level: 'private', props: { _type: node_type }, agent_id: i % 40 === 0 ? `agent-${i % 3}` : null,
    // many ties on created_at, so the uid tie-break matters
    created_at: Math.floor(i / 4), updated_at: i, tombstone_at: i % 29 === 0 ? i : null, tombstone_reason: null, tombstone_by: null, version: 1, ...over,
  } as NodeRecord;
}

function edge(i: number): EdgeRecord {
  return {
    uid: `e${i}`, from_uid: `n${String(i).padStart(5, '0')}`, to_uid: `n${String((i * 7) % 2000).padStart(5, '0')}`, edge_type: i % 101 === 0 ? 'Contradicts' : 'Supports',
    layer: 'epistemic', weight: 1, confidence: 1, props: { _type: 'Supports' }, agent_id: null, version: 1, created_at: i, updated_at: i, tombstone_at: null, tombstone_reason: null,
  };
}

function seeded(): { db: Database.Database; store: SqliteGraphStore; nodes: NodeRecord[] } {
  const db = new Database(':memory:');
  const store = new SqliteGraphStore(db);
  const nodes = Array.from({ length: 2000 }, (_, i) => node(i));
  const putNode = db.prepare(NODE_UPSERT);
  const putEdge = db.prepare(EDGE_UPSERT);
  db.transaction(() => {
    for (const n of nodes) putNode.run(nodeRow('org', n, 1, true, JSON.stringify(n)));
    for (let i = 0; i < 2000; i++) putEdge.run(edgeRow('org', edge(i), 1, true, JSON.stringify(edge(i))));
  })();
  return { db, store, nodes };
}

/** The query plan of every statement `fn` runs through the store. */
function plansOf(db: Database.Database, fn: () => unknown): string[] {
  const prepare = db.prepare.bind(db);
  const plans: string[] = [];
  const spy = jest.spyOn(db, 'prepare').mockImplementation(((sql: string) => {
    const stmt = prepare(sql);
    const all = stmt.all.bind(stmt);
    stmt.all = ((...args: unknown[]) => {
      plans.push((prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(' | '));
      return all(...args);
    }) as typeof stmt.all;
    return stmt;
  }) as typeof db.prepare);
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return plans;
}

describe('SQLite graph read model indexes', () => {
  const page = { limit: 20, offset: 0 };

  it.each([
    ['a node type', { node_types: ['Decision'] }, 'nodes_type'],
    ['several node types', { node_types: ['Decision', 'Person'] }, 'nodes_type'],
    ['an agent', { agent_id: 'agent-1' }, 'nodes_agent_set'],
    ['a layer', { layer: 'intent' }, 'nodes_layer'],
    ['a normalised label of an entity type', { node_types: ['Person'], label_norm: 'label 13' }, 'nodes_label'],
    ['a normalised label of several entity types', { node_types: ['Person', 'Concept'], label_norm: 'label 13' }, 'nodes_label'],
  ])('lists nodes of %s through that index, in order', (_what, filter, index) => {
    const { db, store } = seeded();
    const plans = plansOf(db, () => store.listNodesSync('org', filter, page));
    // walks of the index; a merged list then fetches its page's documents by primary key
    const walks = plans.filter((p) => !p.includes('USING INDEX sqlite_autoindex_nodes_1 (org=? AND uid=?)'));
    expect(walks.length).toBeGreaterThan(0);
    for (const plan of walks) {
      expect(plan).toMatch(new RegExp(`USING (COVERING )?INDEX ${index} `));
      expect(plan).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
    }
  });

  it('keeps only the labels of the types looked up by label, and finds every type by its label', () => {
    const { db, store, nodes } = seeded();
    const indexed = (db.prepare(`SELECT count(*) AS n FROM nodes INDEXED BY nodes_label WHERE org = 'org' AND ${LABEL_LOOKUP_TERM}`).get() as { n: number }).n;
    expect(indexed).toBe(nodes.filter((n) => n.node_type === 'Person').length);
    // a Claim's label is still found (by another path), a Person's through the label index
    for (const [types, label] of [[['Claim'], 'label 1'], [['Person'], 'label 13'], [['Person', 'Claim'], 'label 13']] as const) {
      const expected = nodes
        .filter((n) => types.includes(n.node_type as never) && n.label.toLowerCase() === label && n.tombstone_at === null)
        .sort((a, b) => a.created_at - b.created_at || (a.uid < b.uid ? -1 : 1))
        .map((n) => n.uid);
      expect(expected.length).toBeGreaterThan(0);
      expect(store.listNodesSync('org', { node_types: [...types], label_norm: label }, { limit: 100, offset: 0 }, 'created_asc').items.map((n) => n.uid)).toEqual(expected);
    }
  });

  it('lists the nodes of a set of uids (a scoped key) by primary key, whatever else filters them', () => {
    const { db, store, nodes } = seeded();
    const uids = nodes.filter((_, i) => i % 50 === 1).map((n) => n.uid);
    for (const filter of [{ uids }, { uids, node_types: ['Claim'] }, { uids, node_types: ['Claim', 'Goal'] }]) {
      const plans = plansOf(db, () => store.listNodesSync('org', filter, page));
      expect(plans).toEqual([expect.stringContaining('USING INDEX sqlite_autoindex_nodes_1 (org=? AND uid=?)')]);
    }
    const expected = nodes
      .filter((n) => uids.includes(n.uid) && n.tombstone_at === null)
      .sort((a, b) => b.created_at - a.created_at || (a.uid < b.uid ? -1 : 1))
      .map((n) => n.uid);
    expect(store.listNodesSync('org', { uids }, { limit: 1000, offset: 0 }).items.map((n) => n.uid)).toEqual(expected);
  });

  it('takes uid sets larger than SQLite takes parameters', () => {
    const { store, nodes } = seeded();
    const uids = [...nodes.map((n) => n.uid), ...Array.from({ length: 40_000 }, (_, i) => `absent-${i}`)];
    const live = nodes.filter((n) => n.tombstone_at === null).length;
    expect(store.countNodesSync('org', { uids })).toBe(live);
    const page1 = store.listNodesSync('org', { uids }, { limit: 5, offset: 0 });
    expect(page1.items.map((n) => n.uid)).toEqual(store.listNodesSync('org', {}, { limit: 5, offset: 0 }).items.map((n) => n.uid));
  });

  it('lists edges of a type through edges_type, in order', () => {
    const { db, store } = seeded();
    const plans = plansOf(db, () => store.listEdgesSync('org', { edge_types: ['Contradicts'] }, 10));
    expect(plans).toEqual([expect.stringContaining('USING INDEX edges_type ')]);
    expect(plans[0]).not.toMatch(/TEMP B-TREE/);
  });

  it('pages several node types in creation order exactly as one sorted list would', () => {
    const { store, nodes } = seeded();
    for (const types of [['Decision', 'Person'], ['Goal', 'Decision', 'Goal'], TYPES]) {
      for (const order of ['created_desc', 'created_asc'] as const) {
        const dir = order === 'created_desc' ? -1 : 1;
        const expected = nodes
          .filter((n) => types.includes(n.node_type) && n.tombstone_at === null)
          .sort((a, b) => dir * (a.created_at - b.created_at) || (a.uid < b.uid ? -1 : 1))
          .map((n) => n.uid);
        const got: string[] = [];
        for (let offset = 0; ; offset += 37) {
          const r = store.listNodesSync('org', { node_types: types }, { limit: 37, offset }, order);
          got.push(...r.items.map((n) => n.uid));
          expect(r.has_more).toBe(offset + 37 < expected.length);
          if (!r.has_more) break;
        }
        expect(got).toEqual(expected);
      }
    }
  });

  it('answers the statistics from indexes, equal to counting the rows', () => {
    const { db, store, nodes } = seeded();
    // versions beyond the first, and tombstoned edges
    const bump = db.prepare('UPDATE nodes SET vcount = vcount + 2 WHERE uid = ?');
    for (const n of nodes.filter((_, i) => i % 7 === 0)) bump.run(n.uid);
    db.prepare("UPDATE edges SET tombstone_at = 5, vcount = 2 WHERE uid IN ('e3', 'e5', 'e8')").run();
    const plans = plansOf(db, () => store.statsSync('org'));
    for (const plan of plans) expect(plan).not.toMatch(/SCAN (nodes|edges)\b/);
    const stats = store.statsSync('org');
    const rows = (table: string) => db.prepare(`SELECT node_type, layer, tombstone_at, vcount FROM ${table === 'nodes' ? 'nodes' : 'edges'}`).all() as { node_type: string; layer: string; tombstone_at: number | null; vcount: number }[];
    const edgeRows = db.prepare('SELECT edge_type, tombstone_at, vcount FROM edges').all() as { edge_type: string; tombstone_at: number | null; vcount: number }[];
    const count = <T>(xs: T[], key: (x: T) => string) => xs.reduce<Record<string, number>>((a, x) => ({ ...a, [key(x)]: (a[key(x)] ?? 0) + 1 }), {});
    const liveNodes = rows('nodes').filter((r) => r.tombstone_at === null);
    const liveEdges = edgeRows.filter((r) => r.tombstone_at === null);
    expect(stats).toMatchObject({
      total_nodes: nodes.length,
      live_nodes: liveNodes.length,
      tombstoned_nodes: nodes.length - liveNodes.length,
      total_edges: edgeRows.length,
      live_edges: liveEdges.length,
      tombstoned_edges: 3,
      nodes_by_type: count(liveNodes, (r) => r.node_type),
      nodes_by_layer: count(liveNodes, (r) => r.layer),
      edges_by_type: count(liveEdges, (r) => r.edge_type),
      total_versions: [...rows('nodes'), ...edgeRows].reduce((a, r) => a + r.vcount, 0),
    });
  });

  it('builds indexes of an older shape again when it opens a database', () => {
    const db = new Database(':memory:');
    new SqliteGraphStore(db);
    db.exec('DROP INDEX nodes_type; CREATE INDEX nodes_type ON nodes(org, node_type, created_at DESC)');
    db.exec('DROP INDEX nodes_agent_set; CREATE INDEX nodes_agent ON nodes(org, agent_id, created_at DESC)');
    db.prepare(NODE_UPSERT).run(nodeRow('org', node(1), 1, true, '{}'));
    new SqliteGraphStore(db);
    const indexes = Object.fromEntries(
      (db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('nodes', 'edges')").all() as { name: string; sql: string }[]).map((r) => [r.name, r.sql]),
    );
    expect(indexes).toEqual(GRAPH_INDEXES);
    expect(db.prepare('SELECT count(*) FROM nodes').pluck().get()).toBe(1);
  });
});
