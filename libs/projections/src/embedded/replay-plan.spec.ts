import Database from 'better-sqlite3';
import { claimRecord } from '@strata/domain/testing/claim-record';
import { RecordedEvent, recordedEvent, isNodeVersioned } from '@strata/domain/events';
import { NODE_UPSERT, nodeEventRow } from '@strata/graph-store/sqlite/graph-rows';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { SqliteGraphWriter } from '@strata/graph-store/sqlite/sqlite-graph-writer';
import { planGraph } from './replay-plan';

const node = claimRecord({ label: 'imported', confidence: 1, salience: 0.2 });

const created = (data: Record<string, unknown>): RecordedEvent => recordedEvent({
  id: 'e1',
  stream: 'node-o:n1',
  revision: 0,
  position: 1,
  type: 'NodeCreated',
  data,
  metadata: { org_id: 'o', principal: { kind: 'system', id: 's' }, request_id: 'r', occurred_at: 1 },
});

describe('planGraph: an imported node keeps its decay clock on a planned replay too (audit J3)', () => {
  it('plans the row the live writer writes, last_decayed_at included', () => {
    const e = created({ node, reason: 'import', last_decayed_at: 1_700_000_050.5 });
    expect(planGraph(e)).toEqual([1, isNodeVersioned(e) ? nodeEventRow(e) : null]);

    const live = new Database(':memory:');
    const planned = new Database(':memory:');
    try {
      new SqliteGraphWriter(new SqliteGraphStore(live)).apply(e);
      new SqliteGraphStore(planned);
      const plan = planGraph(e) as [1, unknown[]];
      planned.prepare(NODE_UPSERT).run(plan[1]);
      const row = (db: Database.Database) => db.prepare('SELECT * FROM nodes').all();
      expect(row(planned)).toEqual(row(live));
      expect((row(planned)[0] as { last_decayed_at: number }).last_decayed_at).toBe(1_700_000_050.5);
    } finally {
      live.close();
      planned.close();
    }
  });

  it('plans no clock for a node event without one', () => {
    const plan = planGraph(created({ node, reason: null })) as [1, unknown[]];
    const planned = new Database(':memory:');
    try {
      new SqliteGraphStore(planned);
      planned.prepare(NODE_UPSERT).run(plan[1]);
      expect(planned.prepare('SELECT last_decayed_at FROM nodes').pluck().get()).toBeNull();
    } finally {
      planned.close();
    }
  });
});
