import { Inject, Injectable } from '@nestjs/common';
import { CommandContext } from '@strata/platform/unit-of-work/command-context';
import { tombstoneNode } from '@strata/platform/unit-of-work/graph-ops';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';

/**
 * `POST /ingest/cleanup` (REFERENCE §9.3): cascade-tombstones the orphaned chunks, those
 * created for a Document that is now missing or tombstoned (their ChunkOf edge says which).
 * A chunk ingested without a document has no ChunkOf edge and is never an orphan.
 */
@Injectable()
export class CleanupChunksHandler {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  async cleanup(ctx: CommandContext): Promise<{ chunks_tombstoned: number; edges_tombstoned: number }> {
    const chunks = await this.graph.listNodes(ctx.org, { node_types: ['Chunk'] }, { limit: Number.MAX_SAFE_INTEGER, offset: 0 });
    const orphans: string[] = [];
    for (const c of chunks.items) {
      // tombstoned ChunkOf edges count: tombstoning a Document cascades to them
      const parents = await this.graph.listEdges(ctx.org, { from_uid: c.uid, edge_types: ['ChunkOf'], include_tombstoned: true });
      if (parents.length === 0) continue;
      const docs = await this.graph.getNodes(ctx.org, parents.map((e) => e.to_uid));
      if (parents.every((e) => { const d = docs.get(e.to_uid); return !d || d.tombstone_at !== null; })) orphans.push(c.uid);
    }
    if (orphans.length === 0) return { chunks_tombstoned: 0, edges_tombstoned: 0 };
    return this.uow.run(ctx, async (tx) => {
      let edges = 0;
      for (const uid of orphans) edges += (await tombstoneNode(tx, uid, { reason: 'ingest_cleanup', cascade: true })).edges_tombstoned;
      return { chunks_tombstoned: orphans.length, edges_tombstoned: edges };
    });
  }
}
