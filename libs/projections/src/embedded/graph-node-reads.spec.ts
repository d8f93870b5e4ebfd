import Database from 'better-sqlite3';
import { claimRecord } from '@strata/domain/testing/claim-record';
import { RecordedEvent, recordedEvent } from '@strata/domain/events';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { GraphProjection } from './graph.projection';

const node = claimRecord();

let position = 0;
function event(type: string, data: unknown, org = 'o', stream = `node-${org}:n1`): RecordedEvent {
  position++;
  return recordedEvent({
    id: '',
    stream,
    revision: position - 1,
    position,
    type,
    data,
    metadata: { org_id: org, principal: { kind: 'system', id: 't' }, request_id: 'r', occurred_at: 1 },
  });
}

const labelOf = (doc: string | null) => (doc === null ? null : (JSON.parse(doc) as { label: string }).label);

describe('node reads by uid through the remembered documents', () => {
  let db: Database.Database;
  let store: SqliteGraphStore;
  let graph: GraphProjection;
  const read = (org = 'o', uid = 'n1') => labelOf(store.getNodeDocSync(org, uid));

  beforeEach(() => {
    db = new Database(':memory:');
    store = new SqliteGraphStore(db);
    graph = new GraphProjection(store);
    graph.apply(event('NodeCreated', { node, reason: null }));
  });
  afterEach(() => db.close());

  it('a read after a new version of the node returns that version', () => {
    expect(read()).toBe('First');
    graph.apply(event('NodeUpdated', { node: { ...node, label: 'Second', version: 2 }, reason: null }));
    expect(read()).toBe('Second');
    expect(store.getNodeSync('o', 'n1')?.version).toBe(2);
  });

  it('a touch and a salience decay are seen by the next read', () => {
    expect(store.getNodeSync('o', 'n1')?.salience).toBe(0.5);
    graph.apply(event('NodeTouched', { uid: 'n1', salience: 0.9, updated_at: 1_700_000_001 }));
    expect(store.getNodeSync('o', 'n1')?.salience).toBe(0.9);
    graph.apply(event('SalienceDecayed', { items: [{ uid: 'n1', salience: 0.3 }], at: 1_700_000_002 }, 'o', 'graph-o'));
    expect(store.getNodeSync('o', 'n1')?.salience).toBe(0.3);
  });

  it('a purged or cleared node is not found once read before', () => {
    expect(read()).toBe('First');
    graph.apply(event('GraphPurged', { node_uids: ['n1'], edge_uids: [], cutoff: null }, 'o', 'graph-o'));
    expect(read()).toBeNull();
    graph.apply(event('NodeCreated', { node, reason: null }));
    expect(read()).toBe('First');
    graph.apply(event('GraphCleared', { at: 1_700_000_003 }, 'o', 'graph-o'));
    expect(read()).toBeNull();
  });

  it('a node read inside a transaction that rolls back reads as committed afterwards', () => {
    db.exec('BEGIN');
    graph.apply(event('NodeUpdated', { node: { ...node, label: 'Uncommitted', version: 2 }, reason: null }));
    expect(read()).toBe('Uncommitted');
    db.exec('ROLLBACK');
    graph.rolledBack();
    expect(read()).toBe('First');
  });

  it('a reset projection finds no node it had read', () => {
    expect(read()).toBe('First');
    graph.reset();
    expect(read()).toBeNull();
  });

  it("another organization's node of the same uid is never answered", () => {
    graph.apply(event('NodeCreated', { node: { ...node, label: 'Theirs' }, reason: null }, 'p'));
    expect(read('o')).toBe('First');
    expect(read('p')).toBe('Theirs');
    expect(read('o')).toBe('First');
    expect(read('q')).toBeNull();
  });
});
