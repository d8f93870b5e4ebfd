import type { Database } from 'better-sqlite3';
import type { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import type { SqliteTextIndex } from '@strata/text-index/sqlite/sqlite-text-index';
import type { EmbeddedProjection } from '../projection';

/** Everything a projection may be built on: one projections database and the stores over it. */
export interface EmbeddedProjectionDeps {
  db: Database;
  graph: SqliteGraphStore;
  text: SqliteTextIndex;
}

/**
 * A read model the servers-mode worker keeps on the shared servers (its `ServerProjection` twin
 * executes the same storage-neutral changes): an API replica never builds it.
 */
export interface WorkerProjectionDefinition {
  readonly name: string;
  readonly servers: 'worker';
  create(deps: EmbeddedProjectionDeps): EmbeddedProjection;
}

/**
 * A read model every servers-mode replica keeps whole, in its in-memory log mirror
 * (`AccountsMirror`), with the same SQLite code the embedded default runs.
 */
export interface MirroredProjectionDefinition {
  readonly name: string;
  readonly servers: 'mirror';
  /**
   * Streams replayed before the replica serves and followed after. The mirror reads the union
   * of every definition's `streams`, and each projection that names any sees that whole union
   * in log order, as every embedded projection sees the whole log. Empty: fed by its backfill
   * pass alone.
   */
  readonly streams: readonly string[];
  /**
   * Streams too large to hold the replica's start up (graph streams): read after start in one
   * ordered pass per `pass` name, shared by the definitions naming it; each projection is given
   * only the events of its own `streams` here. Events arriving meanwhile wait behind the pass.
   */
  readonly backfill?: { pass: string; streams: readonly string[] };
  create(db: Database): EmbeddedProjection;
}

/** The mirror's pass over graph streams: node streams, and the organization's graph stream (purge and clear markers). */
export const GRAPH_BACKFILL_PASS = 'graph';
/** Knowledge Health's own ordered pass over the graph, settings and brief streams. */
export const HEALTH_BACKFILL_PASS = 'health';

/** One read model, defined once: how it is built, and where servers mode runs it. */
export type ProjectionDefinition = WorkerProjectionDefinition | MirroredProjectionDefinition;

/** Builds a definition's projection on an embedded projections database. */
export function createEmbedded(d: ProjectionDefinition, deps: EmbeddedProjectionDeps): EmbeddedProjection {
  return d.servers === 'worker' ? d.create(deps) : d.create(deps.db);
}
