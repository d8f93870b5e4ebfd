import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Files through which `strata projections rebuild vectors` and a running service hand a
 * rebuilt vector index over, beside the SQLite projections' hand-over (handover-files.ts):
 * the CLI builds `vectors.next/` from the log and writes a request; the service catches it
 * up, swaps the directories and its in-memory index between two commits, and writes the result.
 */
/** The vector index's name among the projections, in both modes (CLI, status, the worker's checkpoint). */
export const VECTORS_PROJECTION = 'vectors';
export const VECTORS_DIR = 'vectors';
export const VECTORS_NEXT_DIR = 'vectors.next';
/** where the service itself rebuilds an index whose projection version changed */
export const VECTORS_UPGRADE_DIR = 'vectors.upgrade';
export const VECTORS_UPGRADE_GRAPH_FILE = 'vectors.upgrade-graph.db';
/** the replaced index, kept only until the swap has succeeded */
export const VECTORS_PREV_DIR = 'vectors.prev';
export const VECTORS_REQUEST_FILE = 'vectors.handover-request.json';
export const VECTORS_RESULT_FILE = 'vectors.handover-result.json';
/** the graph read model a vector rebuild replays beside the index (scratch, removed after) */
export const VECTORS_REBUILD_GRAPH_FILE = 'vectors.rebuild-graph.db';
export const MANIFEST_FILE = 'manifest.json';

/**
 * Puts `vectors.next/` (or another built directory) in place of `vectors/`, keeping the old one as `vectors.prev/` until
 * `dropPreviousVectors` (or `restorePreviousVectors` when the new one cannot be opened).
 * A crash in between leaves at worst no `vectors/`: the service then rebuilds it from the log.
 */
export function swapInVectorDirs(dataDir: string, built = VECTORS_NEXT_DIR): void {
  const live = path.join(dataDir, VECTORS_DIR);
  const next = path.join(dataDir, built);
  const prev = path.join(dataDir, VECTORS_PREV_DIR);
  if (!fs.existsSync(path.join(next, MANIFEST_FILE))) throw new Error(`${built}/${MANIFEST_FILE} does not exist`);
  fs.rmSync(prev, { recursive: true, force: true });
  if (fs.existsSync(live)) fs.renameSync(live, prev);
  fs.renameSync(next, live);
}

export function restorePreviousVectors(dataDir: string): void {
  const live = path.join(dataDir, VECTORS_DIR);
  const prev = path.join(dataDir, VECTORS_PREV_DIR);
  if (!fs.existsSync(prev)) return;
  fs.rmSync(live, { recursive: true, force: true });
  fs.renameSync(prev, live);
}

export function dropPreviousVectors(dataDir: string): void {
  fs.rmSync(path.join(dataDir, VECTORS_PREV_DIR), { recursive: true, force: true });
}
