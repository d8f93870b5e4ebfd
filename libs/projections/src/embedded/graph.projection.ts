import { RecordedEvent } from '@strata/domain/events';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { SqliteGraphWriter } from '@strata/graph-store/sqlite/sqlite-graph-writer';
import { GRAPH_TABLES } from '@strata/graph-store/sqlite/sqlite-graph-schema';
import { EmbeddedProjection } from '../projection';

/** The graph read model: nodes, edges, aliases, embeddings, series points. */
export class GraphProjection implements EmbeddedProjection {
  readonly name = 'graph';
  readonly version = 1;
  private readonly writer: SqliteGraphWriter;

  constructor(private readonly store: SqliteGraphStore) {
    this.writer = new SqliteGraphWriter(store);
  }
  apply(event: RecordedEvent): void {
    this.writer.apply(event);
  }
  reset(): void {
    for (const t of GRAPH_TABLES) this.store.db.prepare(`DELETE FROM ${t}`).run();
  }
}
