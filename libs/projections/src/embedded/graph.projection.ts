import { RecordedEvent } from '@strata/domain/events';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { SqliteGraphWriter } from '@strata/graph-store/sqlite/sqlite-graph-writer';
import { GRAPH_TABLES } from '@strata/graph-store/sqlite/sqlite-graph-schema';
import { PlannedProjection } from '../projection';
import { GraphPlan } from './replay-plan';

/** The graph read model: nodes, edges, aliases, embeddings, series points. */
export class GraphProjection implements PlannedProjection {
  readonly name = 'graph';
  readonly version = 1;
  readonly replayPlanner = 'graph';
  private readonly writer: SqliteGraphWriter;

  constructor(private readonly store: SqliteGraphStore) {
    this.writer = new SqliteGraphWriter(store);
  }
  apply(event: RecordedEvent): void {
    this.writer.apply(event);
  }
  applyPlanned(plan: GraphPlan): void {
    if (plan[0] === 1) this.writer.putNodeRow(plan[1]);
    else this.writer.putEdgeRow(plan[1]);
  }
  reset(): void {
    for (const t of GRAPH_TABLES) this.store.db.prepare(`DELETE FROM ${t}`).run();
    this.store.nodeDocs.forgetAll();
  }
  /** the rows read since the last commit may be gone (or the file replaced by a rebuilt copy) */
  rolledBack(): void {
    this.store.nodeDocs.forgetAll();
  }
}
