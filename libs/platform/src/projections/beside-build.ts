import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { EmbeddedLogReader } from '@strata/projections/embedded/embedded-projection-runner';
import { READ_ONLY_INDEXED_TABLES } from '@strata/graph-store/sqlite/sqlite-graph-schema';
import { beginBulkLoad } from '@strata/projections/embedded/bulk-load';
import { copyDatabase, removeDatabaseFiles } from '@strata/projections/embedded/database-copy';
import { ReplayProgress, replayLog, resetForRebuild } from '@strata/projections/embedded/log-replay';
import { NEXT_PROJECTIONS_FILE } from './handover-files';
import { clearPendingRebuilds, outdatedProjections, pendingRebuilds } from './pending-rebuilds';
import { ProjectionSet, ProjectionSetOptions, openProjectionSet, projectionCatalogue } from './projection-set';

export interface BuildBesideOptions {
  dataDir: string;
  /** projections to rebuild from the log; the others are copied from the live database */
  names: readonly string[];
  /** the live projections file (absent: everything is built from the log) */
  liveFile: string | null;
  log: EmbeddedLogReader;
  onProgress?: (p: ReplayProgress) => void;
  yieldBetweenBatches?: boolean;
  /** the projection code's setup, as the live projections' (the text index's postings) */
  setup: ProjectionSetOptions;
}

export interface BesideBuild {
  set: ProjectionSet;
  /** the projections actually rebuilt: those asked for, plus any outdated or pending one */
  rebuilt: string[];
  progress: ReplayProgress;
}

/**
 * Builds `projections.next.db` beside the live projections, with the same projection code,
 * up to the head of the log. Rebuilding only some projections starts from a copy of the
 * live database (one consistent snapshot) whose other projections then catch up normally.
 */
export async function buildBeside(o: BuildBesideOptions): Promise<BesideBuild> {
  const file = path.join(o.dataDir, NEXT_PROJECTIONS_FILE);
  removeDatabaseFiles(file);
  const all = projectionCatalogue().map((p) => p.name);
  const live = o.liveFile && fs.existsSync(o.liveFile) ? o.liveFile : null;
  const full = !live || all.every((n) => o.names.includes(n));
  if (!full) {
    const source = new Database(live!);
    try {
      source.pragma('busy_timeout = 5000');
      await copyDatabase(source, file);
    } finally {
      source.close();
    }
  }
  const set = openProjectionSet(file, o.log, o.setup);
  try {
    const rebuilt = full ? all : [...new Set([...o.names, ...outdatedProjections(set.runner).map((x) => x.name), ...pendingRebuilds(set.db)])];
    resetForRebuild(set.runner, rebuilt);
    clearPendingRebuilds(set.db, rebuilt);
    // an empty file nobody reads yet: load it in bulk, build the read indexes at the end
    const finishBulk = full ? beginBulkLoad(set.db, READ_ONLY_INDEXED_TABLES) : () => {};
    const progress = await replayLog(set.runner, o.log, { onProgress: o.onProgress, yieldBetweenBatches: o.yieldBetweenBatches });
    finishBulk();
    return { set, rebuilt: all.filter((n) => rebuilt.includes(n)), progress };
  } catch (err) {
    set.close();
    removeDatabaseFiles(file);
    throw err;
  }
}

/**
 * Swaps a caught-up projections database in: applies the last events, then copies it over
 * the live file with the backup API (connections to the live file keep their handles and
 * see the new content when the copy commits). The caller guarantees no write is projected
 * into the live file meanwhile. Returns the position the swapped-in projections are at.
 */
export async function swapInto(set: ProjectionSet, log: EmbeddedLogReader, liveFile: string, pagesPerStep?: number): Promise<number> {
  await replayLog(set.runner, log);
  await copyDatabase(set.db, liveFile, pagesPerStep);
  return Math.min(...set.runner.projections.map((p) => set.runner.checkpoints.get(p.name)?.position ?? 0));
}
