import { resolveServerProjectionNames } from './projection-names';

/** What a rebuild request needs of the servers' checkpoint store (MongoDB in production). */
export interface CheckpointResets {
  reset(name: string, version: number): Promise<void>;
}

/** A version no projection has: the worker holding the lease drops the projection and replays it. */
export const REBUILD_REQUESTED_VERSION = -1;

/**
 * Servers mode: asks the projection worker to rebuild projections (graph, text, vectors; none
 * named means all) by marking their checkpoints. The worker holding the lease notices within
 * a lease renewal, empties the projection (for vectors, every Qdrant collection) and replays
 * it from the log, so the rebuild happens under the lease, never beside another writer.
 */
export async function requestServerRebuild(checkpoints: CheckpointResets, args: string[]): Promise<string[]> {
  const names = resolveServerProjectionNames(args);
  for (const n of names) await checkpoints.reset(n, REBUILD_REQUESTED_VERSION);
  return names;
}
