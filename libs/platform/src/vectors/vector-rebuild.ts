import * as fs from 'node:fs';
import { RecordedEvent } from '@strata/domain/events';
import { READ_ONLY_INDEXED_TABLES } from '@strata/graph-store/sqlite/sqlite-graph-schema';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { beginBulkLoad } from '@strata/projections/embedded/bulk-load';
import { removeDatabaseFiles } from '@strata/projections/embedded/database-copy';
import { EmbeddedLogReader } from '@strata/projections/embedded/embedded-projection-runner';
import { ReplayProgress, replayLog } from '@strata/projections/embedded/log-replay';
import { EmbeddedProjection } from '@strata/projections/projection';
import { EmbeddedVectorIndex } from '@strata/vector-index/embedded/embedded-vector-index';
import { StrataConfig } from '../config/strata-config';
import { openProjectionSet } from '../projections/projection-set';
import { EmbedderFactory } from '../embeddings/embedder-factory';
import { EmbeddingSettings } from '../embeddings/embedding-settings.service';
import { VECTORS_PROJECTION } from '@strata/vector-index/embedded/vector-handover-files';
import { VECTOR_PROJECTION_VERSION, VectorProjection } from './vector-projection';
import type { Clock } from '@strata/domain/time';

export interface VectorRebuildOptions {
  /** the embedding rules: the service's own, or built from its configuration (the CLI) */
  embedding: { settings: EmbeddingSettings } | { config: StrataConfig; clock: Clock };
  log: EmbeddedLogReader;
  /** directory the index is built in (emptied first) */
  dir: string;
  /** scratch file for the graph read model replayed alongside (removed after) */
  graphFile: string;
  /** last position to apply (default: the head when the replay starts) */
  until?: number;
  onProgress?: (p: ReplayProgress) => void;
  /** give the event loop a turn between batches (in a serving process) */
  yieldBetweenBatches?: boolean;
}

export interface VectorRebuild {
  /** position the index is at (its manifest checkpoint) */
  position: number;
  progress: ReplayProgress;
  vectors: number;
  organizations: number;
}

const BACKFILL_PAGE = 500;

/**
 * Builds a vector index from the log into `dir`, replaying the graph projection into a
 * scratch database in the same pass, so each event is indexed against the read model as it
 * stood at that event (the configuration then in force, the node's state), as the service
 * did when the event was committed. Vectors from providers and clients are `EmbeddingSet`
 * events and the built-in embedder is local: no provider is ever called. Backfills left
 * pending by a configuration change are run at the end, as the service would run them.
 */
export async function rebuildVectorIndex(o: VectorRebuildOptions): Promise<VectorRebuild> {
  fs.rmSync(o.dir, { recursive: true, force: true });
  removeDatabaseFiles(o.graphFile);
  const set = openProjectionSet(o.graphFile, o.log, { textPostings: false }, ['graph']);
  let index: EmbeddedVectorIndex | null = null;
  try {
    const graph = new SqliteGraphStore(set.db);
    // the projection reads each organization's configuration from the scratch graph it is given
    const settings = 'settings' in o.embedding ? o.embedding.settings : new EmbeddingSettings(o.embedding.config, graph, new EmbedderFactory(o.embedding.config, o.embedding.clock));
    index = new EmbeddedVectorIndex(o.dir);
    const projection = new VectorProjection(index, graph, settings, o.dir);
    const finishBulk = beginBulkLoad(set.db, READ_ONLY_INDEXED_TABLES);
    const progress = await replayLog(
      { db: set.db, checkpoints: set.runner.checkpoints, projections: [...set.runner.projections, lockstep(projection)] },
      o.log,
      // beside a serving process, short batches: each blocks the event loop while it runs
      { until: o.until, onProgress: o.onProgress, yieldBetweenBatches: o.yieldBetweenBatches, batch: o.yieldBetweenBatches ? 500 : undefined },
    );
    finishBulk();
    for (const org of projection.backfillsPending()) backfill(projection, graph, org);
    // off the service's thread (the CLI), the graph of large spaces is built now rather than
    // by the service in the background after the swap; a serving process leaves it to that
    if (!o.yieldBetweenBatches) index.indexAllPendingSync();
    projection.flush(true);
    const orgs = distinctOrgs(set.db);
    const vectors = orgs.reduce((n, org) => n + index!.countSync(org), 0);
    return { position: projection.position, progress, vectors, organizations: orgs.filter((org) => index!.countSync(org) > 0).length };
  } finally {
    // closing stops the index's background graph insertion (the loader resumes it)
    await index?.close();
    set.close();
    removeDatabaseFiles(o.graphFile);
  }
}

/** The vector projection as one more projection of the replay, applied after the graph. */
function lockstep(projection: VectorProjection): EmbeddedProjection {
  const one: RecordedEvent[] = [];
  return {
    name: VECTORS_PROJECTION,
    version: VECTOR_PROJECTION_VERSION,
    apply(e) {
      one[0] = e;
      projection.apply(one);
    },
    reset() {},
  };
}

function backfill(projection: VectorProjection, graph: SqliteGraphStore, org: string): void {
  for (let offset = 0; ; offset += BACKFILL_PAGE) {
    const page = graph.listNodesSync(org, {}, { limit: BACKFILL_PAGE, offset }, 'created_asc');
    projection.embedNodes(org, page.items);
    if (!page.has_more) break;
  }
  projection.backfillDone(org);
}

function distinctOrgs(db: import('better-sqlite3').Database): string[] {
  return (db.prepare('SELECT DISTINCT org FROM nodes').all() as { org: string }[]).map((r) => r.org);
}
